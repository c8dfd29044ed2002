// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// HybridKV's DB handle (plugin/hybrid_db.h) on a small DB: GetLiveFiles adds
// the medium files and the secret to RocksDB's names, and only them;
// `hybridkv.*` properties are answered by the handle, in both forms, and
// everything else passes through; NewHandle leaves the DB the caller's.
// deployability_test.cc copies DBs through the handle; statistics_test.cc
// checks the figures themselves.
#include "plugin/hybridkv/plugin/hybrid_db.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "plugin/hybridkv/blob/io/rocksdb_compat.h"
#include "plugin/hybridkv/blob/lifecycle/db_secret.h"
#include "plugin/hybridkv/blob/medium/medium_file.h"
#include "test_util.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

class HybridDbTest : public testing::Test {
 protected:
  void SetUp() override {
    Options options;
    options.create_if_missing = true;
    options.disable_auto_compactions = true;
    ASSERT_OK(ConfigureOptions(&options));
    StackableDB* raw = nullptr;
    ASSERT_OK(hybridkv::Open(options, dir_.path(), &raw));
    handle_.reset(raw);
    for (int flush = 0; flush < 2; flush++) {
      for (int i = 0; i < 30; i++) {
        ASSERT_OK(handle_->Put(WriteOptions(),
                               "k" + std::to_string(flush * 100 + i),
                               std::string(400, 'x')));
      }
      ASSERT_OK(handle_->Flush(FlushOptions()));
    }
    mediums_ = test::MediumFileNumbers(dir_.path());
    ASSERT_EQ(mediums_.size(), 2u);
  }

  test::ScratchDir dir_{"hybrid-db"};
  std::unique_ptr<StackableDB> handle_;
  std::set<uint64_t> mediums_;
};

TEST_F(HybridDbTest, GetLiveFilesAddsTheMediumFilesAndTheSecret) {
  std::vector<std::string> raw_files, files;
  uint64_t raw_manifest = 0, manifest = 0;
  ASSERT_OK(handle_->GetBaseDB()->GetLiveFiles(raw_files, &raw_manifest,
                                               /*flush_memtable=*/false));
  ASSERT_OK(handle_->GetLiveFiles(files, &manifest, /*flush_memtable=*/false));
  EXPECT_EQ(manifest, raw_manifest);
  std::vector<std::string> added;
  for (const std::string& f : files) {
    if (std::find(raw_files.begin(), raw_files.end(), f) == raw_files.end()) {
      added.push_back(f);
    }
  }
  std::vector<std::string> want;
  for (uint64_t n : mediums_) {
    want.push_back("/" + std::to_string(n) + kMediumFileSuffix);
  }
  want.push_back(std::string("/") + kSecretFileName);
  EXPECT_EQ(added, want);
  EXPECT_EQ(files.size(), raw_files.size() + want.size());
}

TEST_F(HybridDbTest, HybridKVPropertiesAnsweredOthersPassThrough) {
  uint64_t files = 0, pointers = 0;
  ASSERT_TRUE(handle_->GetIntProperty(kPropertyMediumFiles, &files));
  EXPECT_EQ(files, 2u);
  ASSERT_TRUE(handle_->GetIntProperty(kPropertyMediumPointers, &pointers));
  EXPECT_EQ(pointers, 60u);
  std::string text;
  ASSERT_TRUE(handle_->GetProperty(kPropertyMediumPointers, &text));
  EXPECT_EQ(text, "60");
  uint64_t value = 7;
  EXPECT_TRUE(GetHybridKVProperty(handle_->GetBaseDB(), kPropertyMediumPointers,
                                  &value));
  EXPECT_EQ(value, 60u);

  // Unknown names under the prefix are nobody's.
  EXPECT_FALSE(handle_->GetIntProperty("hybridkv.no-such-property", &value));
  EXPECT_FALSE(handle_->GetProperty("hybridkv.no-such-property", &text));
  EXPECT_FALSE(GetHybridKVProperty(handle_->GetBaseDB(),
                                   "rocksdb.num-files-at-level0", &value));

  // RocksDB's own, as the DB underneath answers them.
  uint64_t keys = 0, raw_keys = 0;
  ASSERT_TRUE(handle_->GetProperty("rocksdb.num-files-at-level0", &text));
  EXPECT_EQ(text, "2");
  ASSERT_TRUE(handle_->GetIntProperty("rocksdb.estimate-num-keys", &keys));
  ASSERT_TRUE(handle_->GetBaseDB()->GetIntProperty("rocksdb.estimate-num-keys",
                                                   &raw_keys));
  EXPECT_EQ(keys, raw_keys);
  EXPECT_EQ(keys, 60u);
}

// NewHandle leaves the DB the caller's: it stays open and usable once the
// handle is gone.
TEST_F(HybridDbTest, NewHandleDoesNotOwnTheDb) {
  DB* base = handle_->GetBaseDB();
  {
    std::unique_ptr<StackableDB> other = NewHandle(base);
    uint64_t files = 0;
    ASSERT_TRUE(other->GetIntProperty(kPropertyMediumFiles, &files));
    EXPECT_EQ(files, 2u);
    EXPECT_EQ(other->GetBaseDB(), base);
  }
  std::string value;
  ASSERT_OK(base->Get(ReadOptions(), "k101", &value));
  EXPECT_EQ(value, std::string(400, 'x'));
}

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
