// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// What one compaction's input iterators and output builders share. RocksDB
// runs a (sub)compaction's input iterators and its output TableBuilders on one
// thread (CompactionJob::ProcessKeyValueCompaction), so the thread finds the
// scope: it opens with the first compaction input iterator of a HybridTable,
// and the iterators and builders that use it share its ownership, wherever
// they end up destroyed.
//
// - Runs. The byte runs of the medium files that the inputs point into (their
//   refs properties), so that a merge-level builder reads exactly those spans
//   in large requests instead of growing its reads from 4 KiB.
// - One merge reader for all the compaction's output files, so a medium file
//   region that two consecutive outputs need is read once.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>

#include "plugin/hybridkv/blob/medium/medium_readahead.h"
#include "plugin/hybridkv/blob/medium/medium_refs.h"
#include "rocksdb/slice.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

class CompactionScope : public MediumReadahead::Plan {
 public:
  // The scope of the compaction this thread runs; null when none.
  static std::shared_ptr<CompactionScope> Current();
  // A compaction input iterator over a table with `refs` opens on this
  // thread: the current scope, opened if there is none, with their runs.
  static std::shared_ptr<CompactionScope> Enter(const MediumRefs& refs);

  // MediumReadahead::Plan: the runs the inputs point to.
  uint64_t RunEnd(uint64_t number, uint64_t offset) const override;
  size_t FileCount() const override { return runs_.size(); }

  // Whether this compaction's inputs hand it values instead of compaction
  // pointers. Decided once, by the first input that meets a pointer (`want`),
  // so that every input of the compaction agrees and its builders can check
  // the decision against the options the compaction was picked with.
  bool HandOffValues(bool want) {
    if (handoff_ == Handoff::kUndecided) {
      handoff_ = want ? Handoff::kValues : Handoff::kPointers;
    }
    return handoff_ == Handoff::kValues;
  }
  // True once an input handed the compaction a compaction pointer.
  bool HandsOffPointers() const { return handoff_ == Handoff::kPointers; }

  // The compaction's merge reader, created by `make` on first use.
  std::shared_ptr<MediumReadahead> MergeReader(
      const std::function<std::shared_ptr<MediumReadahead>()>& make);

 private:
  enum class Handoff { kUndecided, kPointers, kValues };
  Handoff handoff_ = Handoff::kUndecided;
  std::map<uint64_t, MediumRuns> runs_;  // by medium file number
  std::shared_ptr<MediumReadahead> merge_reader_;
};

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
