// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// Everything HybridKV keeps per DB, in one object per DB directory (the
// directory of its SSTs and medium files), process-wide: the counters that
// GetStatistics reports, the medium-file tracker, and the open medium files.
// Builders, readers, the listener and pointer resolution all reach a DB's
// state through DbStateFor.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "plugin/hybridkv/blob/medium_file_cache.h"
#include "plugin/hybridkv/blob/medium_lifecycle.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

// The counters HybridKV keeps per DB, listed once: DbCounters holds each as
// an atomic, and GetStatistics copies each into the public HybridStatistics
// field of the same name (include/hybridkv/hybridkv.h says what they count).
#define HYBRIDKV_COUNTERS(X) \
  X(small_values_flushed)    \
  X(small_bytes_flushed)     \
  X(medium_values_extracted) \
  X(medium_bytes_extracted)  \
  X(medium_files_created)    \
  X(large_values_flushed)    \
  X(pointers_kept)           \
  X(medium_values_inlined)   \
  X(medium_bytes_inlined)    \
  X(merge_bytes_read)        \
  X(merge_reads)             \
  X(medium_values_resolved)  \
  X(medium_bytes_resolved)   \
  X(resolve_bytes_read)

struct DbCounters {
#define HYBRIDKV_DECLARE_COUNTER(name) std::atomic<uint64_t> name{0};
  HYBRIDKV_COUNTERS(HYBRIDKV_DECLARE_COUNTER)
#undef HYBRIDKV_DECLARE_COUNTER

  // Deepest level any SST of column family `cf` has been seen at, for negative
  // merge levels without level_compaction_dynamic_level_bytes.
  void NoteLevel(uint32_t cf, int level);
  int DeepestLevel(uint32_t cf) const;

 private:
  static constexpr uint32_t kTrackedColumnFamilies = 64;
  std::atomic<int> deepest_[kTrackedColumnFamilies] = {};
};

struct DbState {
  explicit DbState(const std::string& dir) : tracker(dir, &medium_files) {}

  DbCounters counters;
  MediumFileCache medium_files;
  MediumFileTracker tracker;  // evicts deleted files from medium_files
};

// The state of the DB whose SSTs live in `dir`. Never null; lives for the
// process.
DbState* DbStateFor(const std::string& dir);

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
