// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// The file system a secondary (hybridkv::OpenAsSecondary) reads the primary's
// files through. Once enabled, after the open, a table file gone when RocksDB
// opens it is Corruption, not NotFound: a catch-up (TryCatchUpWithPrimary)
// loads each replayed Version's tables, which the primary may delete
// meanwhile. ManifestTailer skips a point in time whose tables fail with
// Corruption (VersionEditHandlerPointInTime::MaybeCreateVersionBeforeApplyEdit)
// and moves on from the previous Version at the next catch-up, but keeps any
// other error for good (VersionEditHandlerBase::status_) and stops following.
// Not during the open, which would have no Version; a failed open can be
// retried. HybridKV's medium-file reads go beneath it (UnwrapSecondary).
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "rocksdb/file_system.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

class SecondaryFileSystem : public FileSystemWrapper {
 public:
  explicit SecondaryFileSystem(const std::shared_ptr<FileSystem>& base)
      : FileSystemWrapper(base) {}

  static const char* kClassName() { return "HybridKVSecondaryFileSystem"; }
  const char* Name() const override { return kClassName(); }

  // Reports vanished table files as Corruption from now on.
  void Enable() { enabled_ = true; }
  const std::shared_ptr<FileSystem>& base() const { return target_; }

  IOStatus NewRandomAccessFile(const std::string& fname,
                               const FileOptions& options,
                               std::unique_ptr<FSRandomAccessFile>* result,
                               IODebugContext* dbg) override;

 private:
  std::atomic<bool> enabled_{false};
};

// `fs` without a SecondaryFileSystem on top.
const std::shared_ptr<FileSystem>& UnwrapSecondary(
    const std::shared_ptr<FileSystem>& fs);

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
