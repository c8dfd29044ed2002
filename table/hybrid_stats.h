// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// Per-DB counters and LSM-shape facts that builders and readers share. Keyed by
// the DB's directory (the directory of its SSTs), process-wide, thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "rocksdb/rocksdb_namespace.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

struct DbCounters {
  std::atomic<uint64_t> small_values_flushed{0};
  std::atomic<uint64_t> small_bytes_flushed{0};
  std::atomic<uint64_t> medium_values_extracted{0};
  std::atomic<uint64_t> medium_bytes_extracted{0};
  std::atomic<uint64_t> medium_files_created{0};
  std::atomic<uint64_t> large_values_flushed{
      0};  // left to BlobDB (or inline without it)
  std::atomic<uint64_t> pointers_kept{
      0};  // copied by compactions above the merge level
  std::atomic<uint64_t> medium_values_inlined{0};
  std::atomic<uint64_t> medium_bytes_inlined{0};
  std::atomic<uint64_t> merge_bytes_read{0};
  std::atomic<uint64_t> merge_reads{0};
  std::atomic<uint64_t> medium_values_resolved{0};
  std::atomic<uint64_t> medium_bytes_resolved{0};
  std::atomic<uint64_t> resolve_bytes_read{0};
  // Deepest level any SST of column family `cf` has been seen at, for negative
  // merge levels without level_compaction_dynamic_level_bytes.
  void NoteLevel(uint32_t cf, int level);
  int DeepestLevel(uint32_t cf) const;

 private:
  static constexpr uint32_t kTrackedColumnFamilies = 64;
  std::atomic<int> deepest_[kTrackedColumnFamilies] = {};
};

// The counters of the DB whose SSTs live in `dir`. Never null; lives for the
// process.
DbCounters* CountersFor(const std::string& dir);

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
