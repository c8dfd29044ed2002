// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// blob/lifecycle/: what HybridKV keeps per DB and how a medium file lives and
// goes: the per-DB state (this header), the medium-file tracker that counts
// references and frees dead runs (medium_lifecycle.h), the DB secret that keys
// pointer MACs (db_secret.h), the references of SSTs on disk (sst_refs.h),
// and freeing runs in place (hole_punch.h). RocksDB's events reach the
// tracker through HybridKVListener, in plugin/.
//
// May depend on: blob/format/, blob/medium/, blob/io/, RocksDB. Not on table/
// or plugin/.
//
// Everything HybridKV keeps per DB, one object per home directory (the first
// of a column family's cf_paths, where flushes write SSTs and medium files and
// the secret lives), process-wide: counters, open medium files, the DB secret
// and the medium-file tracker. Builders and readers reach it through
// DbStateForPaths, the listener through DbStateFor of an SST's directory.
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
  X(resolve_bytes_read)      \
  X(resolve_reads)           \
  X(scan_values_prefetched)  \
  X(scan_values_used)        \
  X(scan_table_seeks)

struct DbCounters {
#define HYBRIDKV_DECLARE_COUNTER(name) std::atomic<uint64_t> name{0};
  HYBRIDKV_COUNTERS(HYBRIDKV_DECLARE_COUNTER)
#undef HYBRIDKV_DECLARE_COUNTER

  // The LSM's shape by column family id, for negative and automatic merge
  // levels (a lock costs nothing where builders start).
  //
  // An SST of `cf` was seen at `level`, opened or written.
  void NoteLevel(uint32_t cf, int level);
  // The deepest such level, for negative merge levels without
  // level_compaction_dynamic_level_bytes.
  int DeepestLevel(uint32_t cf) const;
  // The level L0 last compacted into (the base level), for merge_level=auto.
  // Before such a compaction in this process: the shallowest level below L0
  // an SST was seen at, never above the base level (which is at or above the
  // first non-empty level), so `auto` errs toward -1 only. 0 if neither.
  void NoteBaseLevel(uint32_t cf, int level);
  int BaseLevel(uint32_t cf) const;

 private:
  // `levels`' entry for `cf`, 0 when none. Call with levels_mu_ held.
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

  // Column families whose compactions must hand values, not pointers, to
  // their output: SetOptions replaced the table factory, or lowered
  // min_blob_size until BlobDB would take pointers. HybridKVListener notes it
  // as a compaction begins, before its inputs open; it holds until reopen, so
  // a change back cannot let a compaction picked before it hand pointers on.
  void NoteCompactionsResolvePointers(uint32_t cf);
  bool CompactionsResolvePointers(uint32_t cf);

 private:
  const std::string home_;
  std::mutex resolving_mu_;
  std::set<uint32_t> resolving_cfs_;
  const std::unique_ptr<MediumFileTracker> tracker_;  // evicts medium_files
};

// The state of the column family whose SSTs live in `cf_paths` (RocksDB's,
// sanitized: never empty), homed in the first; registers the others as its
// SST directories. Fails when a directory would be the first path of one
// column family and a later path of another (or of an earlier-opened DB).
Status DbStateForPaths(const std::vector<DbPath>& cf_paths, DbState** state);

// The state of the DB whose SSTs live in `dir`: a home, or a directory
// DbStateForPaths registered; any other directory is taken for a home. Never
// null; lives for the process. Every spelling of a directory ("db", "./db/",
// a symlink) names one state, so all DB sessions of one DB in the process
// (primary, read-only, secondaries) see each other's holds.
DbState* DbStateFor(const std::string& dir);

// The absolute, symlink-free spelling of `dir` that DbStateFor keys by.
std::string CanonicalDbDir(const std::string& dir);

// Whether `dir` is one of `paths`, however either is spelled.
bool IsOneOfPaths(const std::string& dir, const std::vector<DbPath>& paths);

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
