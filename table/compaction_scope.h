// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// What one compaction's input iterators and output builders share. RocksDB
// runs a (sub)compaction's input iterators and its output TableBuilders on one
// thread (CompactionJob::ProcessKeyValueCompaction), so the thread finds the
// scope: it opens with the first compaction input iterator of a HybridTable,
// and the iterators and builders that use it share its ownership, wherever
// they end up destroyed.
//
// - Verified pointers. An input iterator checks each pointer's MAC before a
//   compaction sees it; the output builder must know the same value is a
//   pointer. It finds the exact (user key, pointer) bytes here, with the
//   pointer already decoded, instead of computing the MAC and decoding a
//   second time. Only bytes identical to a pointer that verified for the same
//   user key are found, and those are that pointer.
// - Runs. The byte runs of the medium files that the inputs point into (their
//   refs properties), so that a merge-level builder reads exactly those spans
//   in large requests instead of growing its reads from 4 KiB.
// - One merge reader for all the compaction's output files, so a medium file
//   region that two consecutive outputs need is read once.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>

#include "plugin/hybridkv/blob/medium/medium_pointer.h"
#include "plugin/hybridkv/blob/medium/medium_readahead.h"
#include "plugin/hybridkv/blob/medium/medium_refs.h"
#include "rocksdb/slice.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

class CompactionScope : public MediumReadahead::Plan {
 public:
  // Verified pointers are direct-mapped by two MAC bytes. A compaction has
  // one in flight per input iterator (two for most compactions; one per L0
  // file plus one for the output level when L0 compacts); a slot overwritten
  // before its pointer reaches the builder only costs a MAC. 512 slots of
  // 128 bytes (64 KB) stay in the core's cache; 4096 slots (434 KB) did not,
  // and the table took 4% of a load's compaction CPU
  // (bench/results/issue10-compaction-cpu).
  static constexpr size_t kSlots = 512;

  // The scope of the compaction this thread runs; null when none.
  static std::shared_ptr<CompactionScope> Current();
  // A compaction input iterator over a table with `refs` opens on this
  // thread: the current scope, opened if there is none, with their runs.
  static std::shared_ptr<CompactionScope> Enter(const MediumRefs& refs);

  // `pointer` is the encoded pointer of `user_key`, which verified and
  // decodes to `decoded`.
  void NoteVerified(const Slice& user_key, const Slice& pointer,
                    const MediumPointer& decoded);
  // True iff `pointer` for `user_key` was noted; sets `*decoded`.
  bool WasVerified(const Slice& user_key, const Slice& pointer,
                   MediumPointer* decoded) const;

  // MediumReadahead::Plan: the runs the inputs point to.
  uint64_t RunEnd(uint64_t number, uint64_t offset) const override;
  size_t FileCount() const override { return runs_.size(); }

  // The compaction's merge reader, created by `make` on first use.
  std::shared_ptr<MediumReadahead> MergeReader(
      const std::function<std::shared_ptr<MediumReadahead>()>& make);

 private:
  // Keys longer than fit are not noted: their pointers cost a MAC.
  struct alignas(64) Verified {
    MediumPointer decoded;
    uint8_t key_size = 0;
    uint8_t pointer_size = 0;  // 0: empty slot
    std::array<char, 64> key;
    std::array<char, kMaxMediumPointerSize> pointer;
  };
  static_assert(sizeof(Verified) == 128, "two cache lines per slot");

  std::map<uint64_t, MediumRuns> runs_;  // by medium file number
  std::array<Verified, kSlots> verified_;
  std::shared_ptr<MediumReadahead> merge_reader_;
};

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
