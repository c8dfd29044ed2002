// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// What a (sub)compaction's input iterators and output builders share. RocksDB
// runs both on one thread (CompactionJob::ProcessKeyValueCompaction), so the
// scope is per thread, opened by the first HybridTable input iterator and
// owned by its users. It holds the medium runs the inputs point to (refs
// properties), so merge-level builders read just those in large requests, not
// reads growing from 4 KiB; and one merge reader, so outputs share reads.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>

#include "plugin/hybridkv/blob/format/medium_refs.h"
#include "plugin/hybridkv/blob/medium/medium_readahead.h"
#include "rocksdb/slice.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

class CompactionScope : public MediumReadahead::Plan {
 public:
  // The scope of the compaction this thread runs; null when none.
  static std::shared_ptr<CompactionScope> Current();
  // For a new input iterator: this thread's scope (opened if none) + `refs`.
  static std::shared_ptr<CompactionScope> Enter(const MediumRefs& refs);

  // MediumReadahead::Plan: the runs the inputs point to.
  uint64_t RunEnd(uint64_t number, uint64_t offset) const override;
  size_t FileCount() const override { return runs_.size(); }

  // Whether inputs hand values, not compaction pointers; the first to meet a
  // pointer decides (`want`), so all agree and builders can check it.
  bool HandOffValues(bool want) {
    if (handoff_ == Handoff::kUndecided) {
      handoff_ = want ? Handoff::kValues : Handoff::kPointers;
    }
    return handoff_ == Handoff::kValues;
  }

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
