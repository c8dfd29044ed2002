// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "plugin/hybridkv/blob/medium_file_cache.h"

#include "plugin/hybridkv/blob/async_read_batch.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

Status MediumFileCache::Get(const std::shared_ptr<FileSystem>& fs,
                            const std::vector<std::string>& dirs,
                            const FileOptions& file_options,
                            const IOOptions& io, uint64_t number,
                            std::shared_ptr<MediumFileReader>* file) {
  Shard& shard = ShardOf(number);
  {
    std::lock_guard<std::mutex> lock(shard.mu);
    auto it = shard.files.find(number);
    if (it != shard.files.end()) {
      *file = it->second;
      return Status::OK();
    }
  }
  // Opened outside the lock: two first readers may both open it, and the
  // second one's reader replaces the first in the map (both stay valid).
  std::unique_ptr<MediumFileReader> opened;
  // Through HybridKV's own file system instance, so that scans may leave
  // reads of it in flight (ReadFileSystemFor).
  IOStatus s = OpenMediumFile(ReadFileSystemFor(fs), dirs, number, file_options,
                              &opened, io);
  if (!s.ok()) {
    return s;
  }
  *file = std::shared_ptr<MediumFileReader>(std::move(opened));
  std::lock_guard<std::mutex> lock(shard.mu);
  shard.files[number] = *file;
  return Status::OK();
}

Status MediumFileCache::CheckPresent(const std::shared_ptr<FileSystem>& fs,
                                     const std::vector<std::string>& dirs,
                                     uint64_t number,
                                     const std::string& referrer) {
  Shard& shard = ShardOf(number);
  {
    std::lock_guard<std::mutex> lock(shard.mu);
    if (shard.files.count(number) != 0 || shard.present.count(number) != 0) {
      return Status::OK();
    }
  }
  for (const std::string& dir : dirs) {
    if (fs->FileExists(MediumFileName(dir, number), IOOptions(), nullptr)
            .ok()) {
      std::lock_guard<std::mutex> lock(shard.mu);
      shard.present.insert(number);
      return Status::OK();
    }
  }
  return MissingMediumFile(fs, dirs.empty() ? "." : dirs[0], number, referrer);
}

void MediumFileCache::Evict(uint64_t number) {
  Shard& shard = ShardOf(number);
  std::lock_guard<std::mutex> lock(shard.mu);
  shard.files.erase(number);
  shard.present.erase(number);
}

void MediumFileCache::Clear() {
  for (Shard& shard : shards_) {
    std::lock_guard<std::mutex> lock(shard.mu);
    shard.files.clear();
    shard.present.clear();
  }
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
