// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// The file system a secondary instance reads the primary's files through
// (hybridkv::OpenAsSecondary). Once enabled, after the open, a table file
// that is gone when RocksDB opens it is reported as Corruption, not NotFound.
//
// A catch-up (TryCatchUpWithPrimary) loads the tables of each Version it
// replays, and the primary may delete one in between. RocksDB's
// ManifestTailer skips a point in time whose tables fail with Corruption
// (VersionEditHandlerPointInTime::MaybeCreateVersionBeforeApplyEdit), keeping
// the previous Version for the next catch-up to move on from, but keeps any
// other error for good (VersionEditHandlerBase::status_) and stops following.
// Not during the open, which would be left with no Version; a failed open
// can be retried. HybridKV's own medium-file reads go beneath it
// (UnwrapSecondary).
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
