// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// The file system a follower (hybridkv::OpenAsFollower) reads the leader's
// HybridKV files through. As RocksDB's OnDemandFileSystem hard-links each
// leader table file on first use (reading only MANIFEST, CURRENT, WALs and
// OPTIONS in place), this links medium files beneath it, so old Versions keep
// their bytes after the leader deletes a file, whose runs the leader never
// punches while linked. The follower deletes only its own links and reads the
// leader's secret. HybridKV's medium I/O finds this beneath the DB's file
// system (UnwrapFollower): OnDemandFileSystem refuses other files.
#pragma once

#include <memory>
#include <string>

#include "rocksdb/file_system.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

class FollowerFileSystem : public FileSystemWrapper {
 public:
  FollowerFileSystem(const std::shared_ptr<FileSystem>& base,
                     std::string follower_dir, std::string leader_dir);

  static const char* kClassName() { return "HybridKVFollowerFileSystem"; }
  const char* Name() const override { return kClassName(); }

  IOStatus NewRandomAccessFile(const std::string& fname,
                               const FileOptions& options,
                               std::unique_ptr<FSRandomAccessFile>* result,
                               IODebugContext* dbg) override;
  IOStatus NewSequentialFile(const std::string& fname,
                             const FileOptions& options,
                             std::unique_ptr<FSSequentialFile>* result,
                             IODebugContext* dbg) override;
  IOStatus FileExists(const std::string& fname, const IOOptions& options,
                      IODebugContext* dbg) override;
  IOStatus GetFileSize(const std::string& fname, const IOOptions& options,
                       uint64_t* size, IODebugContext* dbg) override;

 private:
  // Where `fname` is read from, linking a missing medium file first.
  std::string Resolve(const std::string& fname, const IOOptions& options);

  const std::string follower_dir_;  // canonical
  const std::string leader_dir_;
};

// The FollowerFileSystem beneath `fs` (sharing ownership), else `fs`.
std::shared_ptr<FileSystem> UnwrapFollower(
    const std::shared_ptr<FileSystem>& fs);

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
