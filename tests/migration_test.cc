// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// Migration between stock RocksDB and HybridTable, both ways, on one DB.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "hybridkv/hybridkv.h"
#include "plugin/hybridkv/blob/io/rocksdb_compat.h"
#include "rocksdb/db.h"
#include "test_util.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

using test::Arm;
using test::GroupedKey;
using test::StockOrHybridOptions;
using test::VersionedValue;

// A DB written by stock RocksDB opens with HybridTable and new flushes are
// hybrid. Stock RocksDB refuses, loudly, a DB that still holds medium pointers;
// once a full compaction has written every medium value back inline, it reads
// the DB again.
TEST(MigrationTest, StockToHybridAndBack) {
  test::ScratchDir dir("migrate");
  using Pairs = std::vector<std::pair<std::string, std::string>>;
  std::map<std::string, std::string> model;
  // Without auto compactions, pointers stay in L0 until the explicit full
  // compaction.
  auto open = [&](Arm arm) {
    Options options = StockOrHybridOptions(arm);
    options.disable_auto_compactions = true;
    DB* raw = nullptr;
    EXPECT_OK(hybridkv::OpenDB(options, dir.path(), &raw));
    return std::unique_ptr<DB>(raw);
  };
  auto write = [&](DB* db, int step) {
    for (int i = step; i < 5000; i += 3) {
      model[GroupedKey(i)] = VersionedValue(i, step);
      ASSERT_OK(db->Put(WriteOptions(), GroupedKey(i), model[GroupedKey(i)]));
    }
    ASSERT_OK(db->Flush(FlushOptions()));
  };
  {
    auto db = open(Arm::kStock);
    write(db.get(), 0);
    ASSERT_OK(db->Close());
  }
  EXPECT_TRUE(test::FilesWithSuffix(dir.path(), ".medium").empty());
  {
    auto db = open(Arm::kHybrid);
    ASSERT_EQ(test::ScanAll(db.get()), Pairs(model.begin(), model.end()));
    write(db.get(), 1);
    ASSERT_EQ(test::ScanAll(db.get()), Pairs(model.begin(), model.end()));
    ASSERT_OK(db->Close());
  }
  EXPECT_FALSE(test::FilesWithSuffix(dir.path(), ".medium").empty());
  {
    auto db =
        open(Arm::kStock);  // opening works; reading a medium key must not
    auto scanned = test::ScanAll(db.get());
    ASSERT_FALSE(scanned.empty());
    EXPECT_EQ(scanned.back().first, "<iterator error>");
    EXPECT_NE(scanned.back().second.find("blob index"), std::string::npos)
        << scanned.back().second;
    for (const auto& kv : scanned) {
      if (kv.first != "<iterator error>") {
        EXPECT_EQ(kv.second, model[kv.first]);  // never a pointer as a value
      }
    }
    ASSERT_OK(db->Close());
  }
  {
    auto db = open(Arm::kHybrid);
    ASSERT_OK(db->CompactRange(CompactRangeOptions(), nullptr, nullptr));
    ASSERT_OK(db->Close());
  }
  {
    auto db = open(Arm::kStock);
    ASSERT_EQ(test::ScanAll(db.get()), Pairs(model.begin(), model.end()));
    ASSERT_OK(db->VerifyChecksum());
  }
}

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
