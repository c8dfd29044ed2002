// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// The file system a secondary instance reads the primary's files through
// (hybridkv::OpenAsSecondary, NewSecondaryFileSystem). It changes one thing:
// a table file that is gone when RocksDB opens it is reported as Corruption,
// not as NotFound/PathNotFound.
//
// Why: a catch-up (TryCatchUpWithPrimary) replays the primary's MANIFEST and
// opens the tables of each Version it builds. The primary may delete one of
// them in between. RocksDB's ManifestTailer skips a point in time whose tables
// fail with Corruption ("cannot be recovered; skip it and continue",
// VersionEditHandlerPointInTime), but keeps any other error in a status it
// never clears (VersionEditHandlerBase::status_): on RocksDB 11.x every later
// catch-up then returns that same error and the secondary stops following; on
// 9.10, TryCatchUpWithPrimary turns it into OK but no longer replays WALs.
// A table the primary deleted belongs to a Version the primary has left, so
// skipping that point in time is what a catch-up should do.
//
// Depends on blob/lifecycle (SstNumberOf) and RocksDB's public headers.
#pragma once

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

  IOStatus NewRandomAccessFile(const std::string& fname,
                               const FileOptions& options,
                               std::unique_ptr<FSRandomAccessFile>* result,
                               IODebugContext* dbg) override;
};

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
