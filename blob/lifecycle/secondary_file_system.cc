// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "plugin/hybridkv/blob/lifecycle/secondary_file_system.h"

#include "file/filename.h"
#include "plugin/hybridkv/blob/lifecycle/medium_lifecycle.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

IOStatus SecondaryFileSystem::NewRandomAccessFile(
    const std::string& fname, const FileOptions& options,
    std::unique_ptr<FSRandomAccessFile>* result, IODebugContext* dbg) {
  IOStatus s = target()->NewRandomAccessFile(fname, options, result, dbg);
  if (!enabled_ || !(s.IsNotFound() || s.IsPathNotFound()) ||
      SstNumberOf(fname) == 0) {  // 0: not a table file
    return s;
  }
  // RocksDB tries the LevelDB name of a table it cannot find
  // (TableCache::GetTableReader) only after PathNotFound.
  const std::string ldb = Rocks2LevelTableFileName(fname);
  if (ldb != fname && target()->FileExists(ldb, IOOptions(), nullptr).ok()) {
    return s;
  }
  return IOStatus::Corruption(
      "HybridKV secondary: table file " + fname +
      " is gone: the primary deleted it since the MANIFEST named it. The "
      "catch-up keeps its previous Version; catch up again for a later one (" +
      s.ToString() + ")");
}

const std::shared_ptr<FileSystem>& UnwrapSecondary(
    const std::shared_ptr<FileSystem>& fs) {
  if (fs != nullptr && fs->IsInstanceOf(SecondaryFileSystem::kClassName())) {
    return static_cast<const SecondaryFileSystem*>(fs.get())->base();
  }
  return fs;
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
