// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// The part of the medium-file tracker (medium_lifecycle.h) that table builders
// see: which SSTs and medium files a build is writing, so that seeding does
// not take them for crash leftovers.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "rocksdb/file_system.h"
#include "rocksdb/sst_file_manager.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

// What a table builder tells the medium-file tracker.
class BuildRegistry {
 public:
  virtual ~BuildRegistry() = default;
  // The file system and SstFileManager of the DB's latest session.
  virtual void SetFileSystem(
      const std::shared_ptr<FileSystem>& fs,
      const std::shared_ptr<SstFileManager>& sst_file_manager) = 0;
  // SST `sst_number` (and perhaps medium file `sst_number`) is being written
  // by DB session `session_id`: not a leftover, until BuildFinished.
  virtual void BuildStarted(uint64_t sst_number,
                            const std::string& session_id) = 0;
  virtual void BuildFinished(uint64_t sst_number) = 0;
  // A builder finished medium file `path`: the DB's SstFileManager counts it.
  virtual void MediumFileWritten(const std::string& path) = 0;
};

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
