// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "plugin/hybridkv/blob/medium/medium_file_cache.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

Status MediumFileCache::Get(const std::shared_ptr<FileSystem>& fs,
                            const std::vector<std::string>& dirs,
                            const FileOptions& file_options,
                            const IOOptions& io, uint64_t number,
                            std::shared_ptr<MediumFileReader>* file) {
  Shard& shard = ShardOf(number);
  // Opened under the shard's lock, so a file is never open twice (see alive).
  std::lock_guard<std::mutex> lock(shard.mu);
  auto it = shard.files.find(number);
  if (it != shard.files.end()) {
    *file = it->second;
    return Status::OK();
  }
  auto alive = shard.alive.find(number);
  if (alive != shard.alive.end()) {
    if ((*file = alive->second.lock()) != nullptr) {
      shard.files[number] = *file;
      return Status::OK();
    }
    shard.alive.erase(alive);
  }
  std::unique_ptr<MediumFileReader> opened;
  IOStatus s = OpenMediumFile(fs, dirs, number, file_options, &opened, io);
  if (!s.ok()) {
    return s;
  }
  *file = std::shared_ptr<MediumFileReader>(std::move(opened));
  shard.files[number] = *file;
  shard.alive[number] = *file;
  return Status::OK();
}

void MediumFileCache::Hold(uint64_t number, const std::string& session) {
  Shard& shard = ShardOf(number);
  std::lock_guard<std::mutex> lock(shard.mu);
  shard.holders[number][session]++;
}

void MediumFileCache::Release(uint64_t number, const std::string& session) {
  Shard& shard = ShardOf(number);
  std::lock_guard<std::mutex> lock(shard.mu);
  auto it = shard.holders.find(number);
  if (it == shard.holders.end()) return;
  if (--it->second[session] <= 0) it->second.erase(session);
  if (it->second.empty()) {
    shard.holders.erase(it);
    shard.files.erase(number);  // no table reader needs it open any more
  }
}

bool MediumFileCache::HeldByOtherSession(uint64_t number,
                                         const std::string& session) {
  Shard& shard = ShardOf(number);
  std::lock_guard<std::mutex> lock(shard.mu);
  auto it = shard.holders.find(number);
  if (it == shard.holders.end()) return false;
  for (const auto& [holder, count] : it->second) {
    if (holder != session && count > 0) return true;
  }
  return false;
}

void MediumFileCache::Evict(uint64_t number) {
  Shard& shard = ShardOf(number);
  std::lock_guard<std::mutex> lock(shard.mu);
  shard.files.erase(number);
  auto alive = shard.alive.find(number);
  if (alive != shard.alive.end() && alive->second.expired()) {
    shard.alive.erase(alive);
  }
}

void MediumFileCache::Clear() {
  for (Shard& shard : shards_) {
    std::lock_guard<std::mutex> lock(shard.mu);
    shard.files.clear();
  }
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
