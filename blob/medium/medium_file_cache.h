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

// The open medium files of one DB directory: one reader per file, shared by
// every DB session in the process. A table reader holds the files its SST
// points into for its life (Hold/Release), as RocksDB holds SSTs open: a file
// another process deletes stays readable, and MediumFileTracker does not punch
// one another session holds. A file closes when its last holder releases it,
// or when the tracker deletes it (Evict). Thread-safe.
class MediumFileCache {
 public:
  // The reader of medium file `number`, opened from the first of `dirs` that
  // has it (with `file_options` and `io`) unless it is open already.
  Status Get(const std::shared_ptr<FileSystem>& fs,
             const std::vector<std::string>& dirs,
             const FileOptions& file_options, const IOOptions& io,
             uint64_t number, std::shared_ptr<MediumFileReader>* file);
  // A table reader of DB session `session` holds medium file `number`
  // (opened with Get), until Release.
  void Hold(uint64_t number, const std::string& session);
  void Release(uint64_t number, const std::string& session);
  // True while a table reader of a session other than `session` holds
  // medium file `number`.
  bool HeldByOtherSession(uint64_t number, const std::string& session);
  // Forgets medium file `number` (deleted); readers in use stay valid.
  void Evict(uint64_t number);
  // Drops the cache's own references to every file: the DB was opened again,
  // or the directory holds another DB. Readers in use stay shared by number
  // (`alive`), so nothing may keep an old DB's readers past its replacement,
  // or they would serve the new file.
  void Clear();

 private:
  // Sharded by file number: scans resolve values from several threads (scan
  // prefetch's I/O pool) and every lookup takes its shard's lock.
  static constexpr size_t kShards = 16;
  struct Shard {
    std::mutex mu;
    // The cache's own references: until the last holder releases it, or it
    // is deleted.
    std::map<uint64_t, std::shared_ptr<MediumFileReader>> files;
    // Every reader still alive, with or without the cache's reference: a
    // file is open once per process, since closing a second descriptor would
    // drop the process's POSIX read lock on it (HoldForReading).
    std::map<uint64_t, std::weak_ptr<MediumFileReader>> alive;
    // number -> holding session -> table readers of it
    std::map<uint64_t, std::map<std::string, int>> holders;
  };
  Shard& ShardOf(uint64_t number) { return shards_[number % kShards]; }
  Shard shards_[kShards];
};

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
