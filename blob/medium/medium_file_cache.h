// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "plugin/hybridkv/blob/medium/medium_file.h"
#include "rocksdb/file_system.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

// One DB directory's open medium files, one reader per file, shared by all DB
// sessions in the process. Table readers hold their SST's files for life
// (Hold/Release) as RocksDB holds SSTs open: a file another process deletes
// stays readable, and MediumFileTracker does not punch one another session
// holds. A file closes at its last Release or deletion (Evict). Thread-safe.
class MediumFileCache {
 public:
  // Opens `number` from the first of `dirs` holding it, unless already open.
  Status Get(const std::shared_ptr<FileSystem>& fs,
             const std::vector<std::string>& dirs,
             const FileOptions& file_options, const IOOptions& io,
             uint64_t number, std::shared_ptr<MediumFileReader>* file);
  // A table reader of DB session `session` holds `number` (from Get).
  void Hold(uint64_t number, const std::string& session);
  void Release(uint64_t number, const std::string& session);
  // True while another session's table reader holds `number`.
  bool HeldByOtherSession(uint64_t number, const std::string& session);
  // Forgets medium file `number` (deleted); readers in use stay valid.
  void Evict(uint64_t number);
  // Drops the cache's references (DB reopened, or another DB in the
  // directory). Readers in use stay shared by number (`alive`), so none may
  // outlive its DB's replacement, or it would serve the new file.
  void Clear();

 private:
  // Sharded by file number: scans resolve values from several threads (scan
  // prefetch's I/O pool) and every lookup takes its shard's lock.
  static constexpr size_t kShards = 16;
  struct Shard {
    std::mutex mu;
    // The cache's own references, until the last Release or deletion.
    std::map<uint64_t, std::shared_ptr<MediumFileReader>> files;
    // Every live reader, referenced or not: one open per process, as closing
    // a second fd drops the process's POSIX read lock (HoldForReading).
    std::map<uint64_t, std::weak_ptr<MediumFileReader>> alive;
    // number -> holding session -> table readers of it
    std::map<uint64_t, std::map<std::string, int>> holders;
  };
  Shard& ShardOf(uint64_t number) { return shards_[number % kShards]; }
  Shard shards_[kShards];
};

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
