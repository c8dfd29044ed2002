// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// HybridDB: the StackableDB that hybridkv::Open and NewHandle return;
// include/hybridkv/hybridkv.h says what it adds.
// Depends on plugin/live_files.h, blob/ and RocksDB's public headers.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "rocksdb/utilities/stackable_db.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

class HybridDB : public StackableDB {
 public:
  // Owns `db`.
  explicit HybridDB(DB* db) : StackableDB(db) {}
  // Shares `db`; its deleter says who owns it.
  explicit HybridDB(std::shared_ptr<DB> db) : StackableDB(std::move(db)) {}

  using StackableDB::GetIntProperty;
  using StackableDB::GetProperty;

  Status GetLiveFilesStorageInfo(
      const LiveFilesStorageInfoOptions& opts,
      std::vector<LiveFileStorageInfo>* files) override;
  Status GetLiveFiles(std::vector<std::string>& files,
                      uint64_t* manifest_file_size,
                      bool flush_memtable = true) override;
  bool GetIntProperty(ColumnFamilyHandle* column_family, const Slice& property,
                      uint64_t* value) override;
  bool GetProperty(ColumnFamilyHandle* column_family, const Slice& property,
                   std::string* value) override;
};

// HybridKV property `property` ("hybridkv.<name>") of `db`; false if none.
bool GetHybridKVProperty(DB* db, const Slice& property, uint64_t* value);

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
