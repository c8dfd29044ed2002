// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// The file system a follower (hybridkv::OpenAsFollower) reads the leader's
// HybridKV files through. RocksDB's follower hard-links each table file from
// the leader into its own directory on first use (OnDemandFileSystem), and
// reads nothing else of the leader's but MANIFEST, CURRENT, WALs and OPTIONS.
// Beneath OnDemandFileSystem, this links medium files the same way, so the
// follower's old Versions keep their bytes after the leader deletes a file,
// and the leader, which never punches a file with another link, keeps its
// runs whole meanwhile. The follower deletes only its own links; the secret
// is read from the leader's directory.
//
// HybridKV's own medium-file I/O finds it beneath the DB's file system
// (UnwrapFollower), since OnDemandFileSystem refuses other files.
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

// The FollowerFileSystem beneath `fs`, sharing `fs`'s ownership, or `fs`
// itself when there is none.
std::shared_ptr<FileSystem> UnwrapFollower(
    const std::shared_ptr<FileSystem>& fs);

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
