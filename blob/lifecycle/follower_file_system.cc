// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "plugin/hybridkv/blob/lifecycle/follower_file_system.h"

#include "plugin/hybridkv/blob/lifecycle/db_secret.h"
#include "plugin/hybridkv/blob/lifecycle/db_state.h"
#include "plugin/hybridkv/blob/medium/medium_file.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

FollowerFileSystem::FollowerFileSystem(const std::shared_ptr<FileSystem>& base,
                                       std::string follower_dir,
                                       std::string leader_dir)
    : FileSystemWrapper(base),
      follower_dir_(CanonicalDbDir(follower_dir)),
      leader_dir_(std::move(leader_dir)) {}

std::string FollowerFileSystem::Resolve(const std::string& fname,
                                        const IOOptions& options) {
  const size_t slash = fname.rfind('/');
  if (slash == std::string::npos) return fname;
  const std::string name = fname.substr(slash + 1);
  const bool medium = MediumNumberOf(name) != 0;
  if ((!medium && name != kSecretFileName) ||
      CanonicalDbDir(fname.substr(0, slash)) != follower_dir_) {
    return fname;
  }
  if (!medium) return leader_dir_ + "/" + name;
  IOStatus s = target()->FileExists(fname, options, nullptr);
  if (s.IsNotFound() || s.IsPathNotFound()) {
    // Linked, not read in place: the leader may delete its name any time. If
    // it already has, the open below reports the file missing, as it is.
    target()
        ->LinkFile(leader_dir_ + "/" + name, fname, options, nullptr)
        .PermitUncheckedError();
  }
  return fname;
}

IOStatus FollowerFileSystem::NewRandomAccessFile(
    const std::string& fname, const FileOptions& options,
    std::unique_ptr<FSRandomAccessFile>* result, IODebugContext* dbg) {
  return target()->NewRandomAccessFile(Resolve(fname, options.io_options),
                                       options, result, dbg);
}

IOStatus FollowerFileSystem::NewSequentialFile(
    const std::string& fname, const FileOptions& options,
    std::unique_ptr<FSSequentialFile>* result, IODebugContext* dbg) {
  return target()->NewSequentialFile(Resolve(fname, options.io_options),
                                     options, result, dbg);
}

IOStatus FollowerFileSystem::FileExists(const std::string& fname,
                                        const IOOptions& options,
                                        IODebugContext* dbg) {
  return target()->FileExists(Resolve(fname, options), options, dbg);
}

IOStatus FollowerFileSystem::GetFileSize(const std::string& fname,
                                         const IOOptions& options,
                                         uint64_t* size, IODebugContext* dbg) {
  return target()->GetFileSize(Resolve(fname, options), options, size, dbg);
}

std::shared_ptr<FileSystem> UnwrapFollower(
    const std::shared_ptr<FileSystem>& fs) {
  FollowerFileSystem* follower =
      fs == nullptr ? nullptr : fs->CheckedCast<FollowerFileSystem>();
  return follower == nullptr ? fs : std::shared_ptr<FileSystem>(fs, follower);
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
