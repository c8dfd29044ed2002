// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// Checkpoint and DestroyDB helpers that know HybridKV's own files: `<n>.medium`
// and HYBRIDKV-SECRET. The checkpoint is RocksDB's own, taken through
// HybridKV's handle, whose live-file list holds them (plugin/live_files.h).
#include <string>
#include <vector>

#include "plugin/hybridkv/blob/db_secret.h"
#include "plugin/hybridkv/blob/medium_file.h"
#include "plugin/hybridkv/include/hybridkv/hybridkv.h"
#include "rocksdb/file_system.h"
#include "rocksdb/utilities/checkpoint.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

bool IsHybridKVFile(const std::string& name) {
  return name == kSecretFileName || MediumNumberOf(name) != 0;
}

}  // namespace

Status CreateCheckpoint(DB* db, const std::string& checkpoint_dir) {
  std::unique_ptr<StackableDB> handle = NewHandle(db);
  Checkpoint* raw = nullptr;
  Status s = Checkpoint::Create(handle.get(), &raw);
  std::unique_ptr<Checkpoint> checkpoint(raw);
  if (s.ok()) s = checkpoint->CreateCheckpoint(checkpoint_dir);
  return s;
}

Status DestroyDB(const std::string& name, const Options& options) {
  // RocksDB's DestroyDB takes the DB's lock, so it fails while the DB is open:
  // only then are HybridKV's files removed.
  Status s = ROCKSDB_NAMESPACE::DestroyDB(name, options);
  if (!s.ok()) {
    return s;
  }
  const std::shared_ptr<FileSystem>& fs = options.env->GetFileSystem();
  std::vector<std::string> children;
  if (!fs->GetChildren(name, IOOptions(), &children, nullptr).ok()) {
    return s;  // the directory is gone: nothing of ours was left
  }
  for (const std::string& child : children) {
    if (IsHybridKVFile(child) ||
        child == std::string(kSecretFileName) + ".tmp") {
      IOStatus d = fs->DeleteFile(name + "/" + child, IOOptions(), nullptr);
      if (!d.ok()) return d;
    }
  }
  fs->DeleteDir(name, IOOptions(), nullptr)
      .PermitUncheckedError();  // only if now empty
  return s;
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
