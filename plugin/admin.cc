// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// Checkpoint and DestroyDB helpers that know HybridKV's own files: `<n>.medium`
// and HYBRIDKV-SECRET, which RocksDB's versions of these operations do not know
// about.
#include <string>
#include <vector>

#include "plugin/hybridkv/blob/db_secret.h"
#include "plugin/hybridkv/blob/medium_file.h"
#include "plugin/hybridkv/blob/medium_lifecycle.h"
#include "plugin/hybridkv/include/hybridkv/hybridkv.h"
#include "rocksdb/file_system.h"
#include "rocksdb/utilities/checkpoint.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

bool IsHybridKVFile(const std::string& name) {
  return name == kSecretFileName || MediumNumberOf(name) != 0;
}

// Hard-links `from` to `to`, or copies it where links are not supported.
IOStatus LinkOrCopy(FileSystem* fs, const std::string& from,
                    const std::string& to) {
  IOStatus s = fs->LinkFile(from, to, IOOptions(), nullptr);
  if (s.ok()) {
    return s;
  }
  std::string data;
  s = ReadFileToString(fs, from, &data);
  if (s.ok()) {
    s = WriteStringToFile(fs, data, to, /*should_sync=*/true);
  }
  return s;
}

}  // namespace

// Builds the checkpoint in a staging directory and renames it into place only
// once the medium files and the secret are in it, so `checkpoint_dir` never
// exists without them, even across a crash.
Status CreateCheckpoint(DB* db, const std::string& checkpoint_dir) {
  const std::shared_ptr<FileSystem>& fs = db->GetEnv()->GetFileSystem();
  if (fs->FileExists(checkpoint_dir, IOOptions(), nullptr).ok()) {
    return Status::InvalidArgument("HybridKV: checkpoint directory " +
                                   checkpoint_dir +
                                   " already exists; name a new one");
  }
  const std::string staging = checkpoint_dir + ".hybridkv-staging";
  Status s = db->DisableFileDeletions();
  if (!s.ok()) {
    return s;
  }
  Checkpoint* raw = nullptr;
  s = Checkpoint::Create(db, &raw);
  std::unique_ptr<Checkpoint> checkpoint(raw);
  if (s.ok()) {
    s = checkpoint->CreateCheckpoint(staging);
  }
  // Every medium file present now: the checkpoint's SSTs reference a subset,
  // and the rest are deleted as leftovers when the checkpoint is first opened.
  std::vector<std::string> children;
  if (s.ok()) {
    s = fs->GetChildren(db->GetName(), IOOptions(), &children, nullptr);
  }
  for (size_t i = 0; s.ok() && i < children.size(); ++i) {
    if (IsHybridKVFile(children[i])) {
      s = LinkOrCopy(fs.get(), db->GetName() + "/" + children[i],
                     staging + "/" + children[i]);
    }
  }
  Status enable = db->EnableFileDeletions();
  if (s.ok()) {
    std::unique_ptr<FSDirectory> dir;
    s = fs->NewDirectory(staging, IOOptions(), &dir, nullptr);
    if (s.ok()) {
      s = dir->FsyncWithDirOptions(IOOptions(), nullptr, DirFsyncOptions());
    }
  }
  if (s.ok()) {
    s = fs->RenameFile(staging, checkpoint_dir, IOOptions(), nullptr);
  }
  if (s.ok()) {
    std::unique_ptr<FSDirectory> parent;
    s = fs->NewDirectory(DirName(checkpoint_dir), IOOptions(), &parent,
                         nullptr);
    if (s.ok()) {
      s = parent->FsyncWithDirOptions(IOOptions(), nullptr, DirFsyncOptions());
    }
  }
  if (!s.ok()) {  // leave nothing half-made behind
    std::vector<std::string> made;
    if (fs->GetChildren(staging, IOOptions(), &made, nullptr).ok()) {
      for (const std::string& f : made) {
        fs->DeleteFile(staging + "/" + f, IOOptions(), nullptr)
            .PermitUncheckedError();
      }
      fs->DeleteDir(staging, IOOptions(), nullptr).PermitUncheckedError();
    }
    return s;
  }
  return enable;
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
