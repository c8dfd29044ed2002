// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// blob/lifecycle/: per-DB state (this header) and medium file lifetimes:
// reference counting and dead-run freeing (medium_lifecycle.h), the pointer
// MAC secret (db_secret.h), SST references (sst_refs.h), hole punching
// (hole_punch.h). RocksDB events arrive via plugin/'s HybridKVListener.
// May depend on: blob/format/, blob/medium/, blob/io/, RocksDB. Not on table/
// or plugin/.
//
// Process-wide state per DB home (first of a CF's cf_paths, holding flushed
// SSTs, medium files, secret). Builders and readers use DbStateForPaths; the
// listener, DbStateFor(an SST's directory).
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "plugin/hybridkv/blob/format/siphash.h"
#include "plugin/hybridkv/blob/medium/medium_file_cache.h"
#include "rocksdb/options.h"
#include "rocksdb/status.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

// Per-DB counters: atomics in DbCounters, copied by GetStatistics into the
// same-named HybridStatistics fields (meanings: include/hybridkv/hybridkv.h).
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
  X(resolve_bytes_read)      \
  X(resolve_reads)           \
  X(scan_values_prefetched)  \
  X(scan_values_used)        \
  X(scan_table_seeks)

struct DbCounters {
#define HYBRIDKV_DECLARE_COUNTER(name) std::atomic<uint64_t> name{0};
  HYBRIDKV_COUNTERS(HYBRIDKV_DECLARE_COUNTER)
#undef HYBRIDKV_DECLARE_COUNTER

  // LSM shape per CF id, for negative and auto merge levels (a lock costs
  // nothing where builders start). NoteLevel: an SST of `cf` seen at `level`.
  void NoteLevel(uint32_t cf, int level);
  // For negative merge levels without level_compaction_dynamic_level_bytes.
  int DeepestLevel(uint32_t cf) const;
  // The level L0 last compacted into (base level), for merge_level=auto.
  // Before any in this process: the shallowest level below L0 seen, never above
  // the base level (at or above the first non-empty one), so `auto` errs toward
  // -1 only. 0 if neither.
  void NoteBaseLevel(uint32_t cf, int level);
  int BaseLevel(uint32_t cf) const;

 private:
  // `levels`' entry for `cf`, 0 if none. REQUIRES: levels_mu_ held.
  static int LevelOf(const std::map<uint32_t, int>& levels, uint32_t cf);

  mutable std::mutex levels_mu_;
  std::map<uint32_t, int> deepest_;
  std::map<uint32_t, int> shallowest_;  // below L0
  std::map<uint32_t, int> base_;
};

class MediumFileTracker;

class DbState {
 public:
  explicit DbState(const std::string& dir);
  ~DbState();

  // The directory of its medium files and secret, as first spelled.
  const std::string& home() const { return home_; }

  DbCounters counters;
  MediumFileCache medium_files;

  MediumFileTracker& tracker() { return *tracker_; }

  // The DB secret by DB id (after DestroyDB the directory may hold a new DB);
  // db_secret.h reads and writes it under secrets_mu.
  std::mutex secrets_mu;
  std::map<std::string, SipKey> secrets;

  // CFs whose compactions must output values, not pointers: SetOptions
  // swapped the table factory or lowered min_blob_size into BlobDB's range.
  // HybridKVListener notes it as a compaction begins, before inputs open;
  // held until reopen, lest a change back let a picked compaction pass them.
  void NoteCompactionsResolvePointers(uint32_t cf);
  bool CompactionsResolvePointers(uint32_t cf);

 private:
  const std::string home_;
  std::mutex resolving_mu_;
  std::set<uint32_t> resolving_cfs_;
  const std::unique_ptr<MediumFileTracker> tracker_;  // evicts medium_files
};

// State of the CF whose SSTs live in `cf_paths` (as RocksDB sanitized them),
// homed in the first; registers the rest as its SST directories. Fails if a
// directory is one CF's first path and another's (or an earlier DB's) later.
// Without cf_paths (SstFileWriter, standalone readers), DbStateFor(`dir`).
Status DbStateForPaths(const std::vector<DbPath>& cf_paths,
                       const std::string& dir, DbState** state);

// State of the DB whose SSTs live in `dir`, a home or registered directory
// (else taken for a home); never null, lives for the process. All spellings
// ("db", "./db/", a symlink) share one state, so a DB's sessions in-process
// (primary, read-only, secondaries) see each other's holds.
DbState* DbStateFor(const std::string& dir);

// The absolute, symlink-free spelling of `dir` that DbStateFor keys by.
std::string CanonicalDbDir(const std::string& dir);

// Whether `dir` is one of `paths`, however either is spelled.
bool IsOneOfPaths(const std::string& dir, const std::vector<DbPath>& paths);

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
