// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "plugin/hybridkv/blob/medium_file.h"
#include "rocksdb/file_system.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

// The open medium files of one DB: one reader per file, shared by the DB's
// table readers, table builders and pointer resolution, as RocksDB shares one
// BlobFileCache per column family. A file is opened on first use and closed
// when MediumFileTracker deletes it (Evict), so a deleted file's space is
// never held by an idle reader. Thread-safe.
class MediumFileCache {
 public:
  // The reader of medium file `number`, opened from the first of `dirs` that
  // has it (with `file_options` and `io`) unless it is open already.
  Status Get(const std::shared_ptr<FileSystem>& fs,
             const std::vector<std::string>& dirs,
             const FileOptions& file_options, const IOOptions& io,
             uint64_t number, std::shared_ptr<MediumFileReader>* file);
  // OK when medium file `number` is open or exists in one of `dirs` (a
  // stat, once per file); otherwise MissingMediumFile's Corruption, naming
  // `referrer`.
  Status CheckPresent(const std::shared_ptr<FileSystem>& fs,
                      const std::vector<std::string>& dirs, uint64_t number,
                      const std::string& referrer);
  // Forgets medium file `number` (deleted); readers in use stay valid.
  void Evict(uint64_t number);
  // Forgets every file: the directory now holds another DB.
  void Clear();

 private:
  // Sharded by file number: scans resolve values from several threads (scan
  // prefetch's I/O pool) and every lookup takes its shard's lock.
  static constexpr size_t kShards = 16;
  struct Shard {
    std::mutex mu;
    std::map<uint64_t, std::shared_ptr<MediumFileReader>> files;
    std::set<uint64_t> present;  // seen on disk by CheckPresent
  };
  Shard& ShardOf(uint64_t number) { return shards_[number % kShards]; }
  Shard shards_[kShards];
};

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
