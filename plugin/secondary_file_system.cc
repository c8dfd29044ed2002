// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "plugin/hybridkv/plugin/secondary_file_system.h"

#include "plugin/hybridkv/blob/lifecycle/medium_lifecycle.h"
#include "plugin/hybridkv/include/hybridkv/hybridkv.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

IOStatus SecondaryFileSystem::NewRandomAccessFile(
    const std::string& fname, const FileOptions& options,
    std::unique_ptr<FSRandomAccessFile>* result, IODebugContext* dbg) {
  IOStatus s = target()->NewRandomAccessFile(fname, options, result, dbg);
  if ((s.IsNotFound() || s.IsPathNotFound()) && SstNumberOf(fname) != 0) {
    return IOStatus::Corruption(
        "HybridKV secondary: table file " + fname +
        " is gone: the primary deleted it since the MANIFEST named it. The "
        "catch-up skips that Version; catch up again for a later one (" +
        s.ToString() + ")");
  }
  return s;
}

std::shared_ptr<FileSystem> NewSecondaryFileSystem(
    const std::shared_ptr<FileSystem>& base) {
  return std::make_shared<SecondaryFileSystem>(base);
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
