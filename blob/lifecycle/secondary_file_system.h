// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// The file system a secondary instance reads the primary's files through
// (hybridkv::OpenAsSecondary). Once enabled (after the open), it changes one
// thing: a table file that is gone when RocksDB opens it is reported as
// Corruption, not as NotFound/PathNotFound.
//
// Why: a catch-up (TryCatchUpWithPrimary) replays the primary's MANIFEST and
// loads the tables of each Version it builds. The primary may delete one in
// between. RocksDB's ManifestTailer skips a point in time whose tables fail
// with Corruption (VersionEditHandlerPointInTime::
// MaybeCreateVersionBeforeApplyEdit), but keeps any other error in a status it
// never clears (VersionEditHandlerBase::status_): on RocksDB 11.x every later
// catch-up returns that error and the secondary stops following; on 9.10
// TryCatchUpWithPrimary turns it into OK, but installs nothing new again. A
// table the primary deleted belongs to a Version the primary has left, so the
// catch-up keeps its previous Version, as it does for a table already missing
// when it first checks it (VerifyFile), and the next one moves on.
//
// Not during the open: a point in time skipped there would leave the secondary
// with no Version at all, while a failed open can simply be retried.
//
// HybridKV's own reads (medium files) go to the file system underneath
// (UnwrapSecondary): the mapping is for RocksDB's table opens only.
//
// Depends on medium_lifecycle.h (SstNumberOf) and RocksDB's headers.
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
