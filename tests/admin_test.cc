// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// The admin helpers (plugin/admin.cc) on small DBs: DestroyDB removes
// HybridKV's files (medium files, the secret and its temporary) and no
// other, and the directory only once empty; ConvertToStockDB rewrites the
// HybridTable column families of a DB with several and leaves the others
// alone, and refuses FIFO before changing anything; CreateCheckpoint of a raw
// DB* holds what the copy needs. deployability_test.cc and lifecycle_test.cc
// cover the single-family conversion and DestroyDB of an open DB.
#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "plugin/hybridkv/blob/io/rocksdb_compat.h"
#include "plugin/hybridkv/blob/lifecycle/db_secret.h"
#include "plugin/hybridkv/blob/medium/medium_file.h"
#include "rocksdb/table.h"
#include "test_util.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

bool Exists(const std::string& path) {
  return FileSystem::Default()->FileExists(path, IOOptions(), nullptr).ok();
}

Options HybridOptionsForTest() {
  Options options;
  options.create_if_missing = true;
  options.create_missing_column_families = true;
  EXPECT_OK(ConfigureOptions(&options));
  return options;
}

// Writes `n` medium values to `cf` of `db` and flushes.
void WriteMedium(DB* db, ColumnFamilyHandle* cf, int n) {
  for (int i = 0; i < n; i++) {
    ASSERT_OK(db->Put(WriteOptions(), cf, "k" + std::to_string(1000 + i),
                      std::string(300, static_cast<char>('a' + i % 26))));
  }
  ASSERT_OK(db->Flush(FlushOptions(), cf));
}

TEST(AdminTest, DestroyDBRemovesHybridKVFilesAndNoOthers) {
  test::ScratchDir dir("admin");
  const std::string path = dir.Sub("db");
  const Options options = HybridOptionsForTest();
  {
    DB* raw = nullptr;
    ASSERT_OK(OpenDB(options, path, &raw));
    std::unique_ptr<DB> db(raw);
    ASSERT_NO_FATAL_FAILURE(
        WriteMedium(db.get(), db->DefaultColumnFamily(), 20));
  }
  ASSERT_EQ(test::MediumFileNumbers(path).size(), 1u);
  test::WriteWholeFile(path + "/" + kSecretFileName + ".tmp", "partial");
  test::WriteWholeFile(path + "/notes.txt", "the user's");
  test::WriteWholeFile(path + "/7.medium.bak", "the user's too");
  ASSERT_OK(hybridkv::DestroyDB(path, options));
  EXPECT_TRUE(test::MediumFileNumbers(path).empty());
  EXPECT_FALSE(Exists(path + "/" + kSecretFileName));
  EXPECT_FALSE(Exists(path + "/" + kSecretFileName + ".tmp"));
  EXPECT_FALSE(Exists(path + "/CURRENT"));
  EXPECT_TRUE(Exists(path + "/notes.txt"));
  EXPECT_TRUE(Exists(path + "/7.medium.bak"));

  // Without foreign files the directory goes too.
  const std::string clean = dir.Sub("clean");
  {
    DB* raw = nullptr;
    ASSERT_OK(OpenDB(options, clean, &raw));
    std::unique_ptr<DB> db(raw);
    ASSERT_NO_FATAL_FAILURE(
        WriteMedium(db.get(), db->DefaultColumnFamily(), 20));
  }
  ASSERT_OK(hybridkv::DestroyDB(clean, options));
  EXPECT_FALSE(Exists(clean));
}

// A name that only ends in ".medium" is a user's file, not a medium file:
// DestroyDB keeps it, as RocksDB's own DestroyDB keeps the names its
// ParseFileName does not accept.
TEST(AdminTest, DestroyDBKeepsNamesThatOnlyEndInMedium) {
  test::ScratchDir dir("admin");
  const std::string path = dir.Sub("db");
  const Options options = HybridOptionsForTest();
  {
    DB* raw = nullptr;
    ASSERT_OK(OpenDB(options, path, &raw));
    std::unique_ptr<DB> db(raw);
    ASSERT_NO_FATAL_FAILURE(
        WriteMedium(db.get(), db->DefaultColumnFamily(), 20));
  }
  const std::set<uint64_t> mediums = test::MediumFileNumbers(path);
  ASSERT_EQ(mediums.size(), 1u);
  test::WriteWholeFile(path + "/7-notes.medium", "the user's");
  ASSERT_OK(hybridkv::DestroyDB(path, options));
  EXPECT_FALSE(Exists(MediumFileName(path, *mediums.begin())));
  EXPECT_TRUE(Exists(path + "/7-notes.medium"));
}

// Only the HybridTable column families are rewritten with merge level 0; a
// stock one beside them is compacted as it is. Afterwards stock RocksDB
// reads both, and HybridKV's files are gone.
TEST(AdminTest, ConvertToStockDBConvertsEveryHybridColumnFamily) {
  test::ScratchDir dir("admin");
  const std::string path = dir.Sub("db");
  const Options options = HybridOptionsForTest();
  ColumnFamilyOptions stock_cf;  // BlockBasedTable, no companions
  const std::vector<ColumnFamilyDescriptor> families = {
      {kDefaultColumnFamilyName, ColumnFamilyOptions(options)},
      {"hybrid2", ColumnFamilyOptions(options)},
      {"stock", stock_cf}};
  {
    std::vector<ColumnFamilyHandle*> handles;
    DB* raw = nullptr;
    ASSERT_OK(OpenDB(DBOptions(options), path, families, &handles, &raw));
    std::unique_ptr<DB> db(raw);
    for (ColumnFamilyHandle* cf : handles) {
      ASSERT_NO_FATAL_FAILURE(WriteMedium(db.get(), cf, 30));
    }
    for (ColumnFamilyHandle* cf : handles) {
      ASSERT_OK(db->DestroyColumnFamilyHandle(cf));
    }
  }
  ASSERT_EQ(test::MediumFileNumbers(path).size(), 2u);  // not the stock CF's
  ASSERT_OK(ConvertToStockDB(DBOptions(options), path, families));
  EXPECT_TRUE(test::MediumFileNumbers(path).empty());
  EXPECT_FALSE(Exists(path + "/" + kSecretFileName));

  // Stock RocksDB, with no HybridKV component at all.
  DBOptions stock_db;
  std::vector<ColumnFamilyDescriptor> stock_families = {
      {kDefaultColumnFamilyName, stock_cf},
      {"hybrid2", stock_cf},
      {"stock", stock_cf}};
  std::vector<ColumnFamilyHandle*> handles;
  DB* raw = nullptr;
  ASSERT_OK(OpenDB(stock_db, path, stock_families, &handles, &raw));
  std::unique_ptr<DB> db(raw);
  for (ColumnFamilyHandle* cf : handles) {
    for (int i = 0; i < 30; i++) {
      std::string value;
      ASSERT_OK(
          db->Get(ReadOptions(), cf, "k" + std::to_string(1000 + i), &value))
          << cf->GetName() << " " << i;
      EXPECT_EQ(value, std::string(300, static_cast<char>('a' + i % 26)));
    }
  }
  for (ColumnFamilyHandle* cf : handles) {
    ASSERT_OK(db->DestroyColumnFamilyHandle(cf));
  }
}

// A FIFO column family cannot be converted: refused before the DB is opened,
// with every file in place.
TEST(AdminTest, ConvertToStockDBRefusesFifoBeforeOpening) {
  test::ScratchDir dir("admin");
  const std::string path = dir.Sub("db");
  const Options options = HybridOptionsForTest();
  {
    DB* raw = nullptr;
    ASSERT_OK(OpenDB(options, path, &raw));
    std::unique_ptr<DB> db(raw);
    ASSERT_NO_FATAL_FAILURE(
        WriteMedium(db.get(), db->DefaultColumnFamily(), 20));
  }
  const std::set<uint64_t> mediums = test::MediumFileNumbers(path);
  ColumnFamilyOptions fifo(options);
  fifo.compaction_style = kCompactionStyleFIFO;
  Status s = ConvertToStockDB(
      DBOptions(options), path,
      {{kDefaultColumnFamilyName, ColumnFamilyOptions(options)},
       {"later", fifo}});
  EXPECT_TRUE(s.IsNotSupported()) << s.ToString();
  EXPECT_NE(s.ToString().find("later"), std::string::npos) << s.ToString();
  EXPECT_EQ(test::MediumFileNumbers(path), mediums);
  EXPECT_TRUE(Exists(path + "/" + kSecretFileName));
}

// A checkpoint of the raw DB* of DB::Open still holds the medium files and
// the secret, and opens reading every value.
TEST(AdminTest, CreateCheckpointOfARawDbHoldsHybridKVFiles) {
  test::ScratchDir dir("admin");
  const Options options = HybridOptionsForTest();
  DB* raw = nullptr;
  ASSERT_OK(OpenDB(options, dir.Sub("db"), &raw));
  std::unique_ptr<DB> db(raw);
  ASSERT_NO_FATAL_FAILURE(WriteMedium(db.get(), db->DefaultColumnFamily(), 20));
  ASSERT_OK(hybridkv::CreateCheckpoint(db.get(), dir.Sub("ckpt")));
  EXPECT_EQ(test::MediumFileNumbers(dir.Sub("ckpt")),
            test::MediumFileNumbers(dir.Sub("db")));
  EXPECT_EQ(test::ReadWholeFile(dir.Sub("ckpt") + "/" + kSecretFileName),
            test::ReadWholeFile(dir.Sub("db") + "/" + kSecretFileName));
  db.reset();
  ASSERT_OK(OpenDB(options, dir.Sub("ckpt"), &raw));
  std::unique_ptr<DB> copy(raw);
  std::string value;
  ASSERT_OK(copy->Get(ReadOptions(), "k1005", &value));
  EXPECT_EQ(value, std::string(300, 'f'));
}

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
