// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// The hybridkv_admin tool, run as a process.
#include <gtest/gtest.h>

#include <string>

#include "hybridkv/hybridkv.h"
#include "plugin/hybridkv/blob/io/rocksdb_compat.h"
#include "rocksdb/db.h"
#include "test_util.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

// hybridkv_admin, as an operator's job runs it: a backup of a closed DB, its
// verification, a restore that reads every value, a checkpoint, and the way
// out to a DB stock RocksDB reads.
TEST(HybridKVAdminTest, BacksUpRestoresAndConverts) {
  test::ScratchDir dir("admin");
  auto value_of = [](int i) { return std::string(300, 'a' + i % 26); };
  {
    Options options;
    options.create_if_missing = true;
    ASSERT_OK(ConfigureOptions(&options));
    DB* raw = nullptr;
    ASSERT_OK(hybridkv::OpenDB(options, dir.Sub("db"), &raw));
    std::unique_ptr<DB> db(raw);
    for (int i = 0; i < 500; ++i) {
      ASSERT_OK(db->Put(WriteOptions(), "key" + std::to_string(1000000 + i),
                        value_of(i)));
    }
    ASSERT_OK(db->Flush(FlushOptions()));
    ASSERT_OK(db->Close());
  }
  ASSERT_FALSE(test::FilesWithSuffix(dir.Sub("db"), ".medium").empty());
  const std::string admin = HYBRIDKV_ADMIN;
  std::string out;
  auto run = [&](const std::string& args) {
    return test::RunCommand(admin + " " + args, &out);
  };
  ASSERT_EQ(run("backup --db=" + dir.Sub("db") +
                " --backup_dir=" + dir.Sub("backups")),
            0)
      << out;
  ASSERT_EQ(run("verify-backup --backup_dir=" + dir.Sub("backups")), 0) << out;
  ASSERT_EQ(run("restore --backup_dir=" + dir.Sub("backups") +
                " --db=" + dir.Sub("restored")),
            0)
      << out;
  ASSERT_EQ(run("checkpoint --db=" + dir.Sub("db") +
                " --checkpoint_dir=" + dir.Sub("ckpt")),
            0)
      << out;
  ASSERT_EQ(run("convert-to-stock --db=" + dir.Sub("ckpt")), 0) << out;
  EXPECT_NE(out.find("GB written"), std::string::npos) << out;
  EXPECT_TRUE(test::FilesWithSuffix(dir.Sub("ckpt"), ".medium").empty());
  Options options;
  ASSERT_OK(ConfigureOptions(&options));
  Options stock;  // BlockBasedTable, no HybridKV component
  for (const auto& [path, opts] : {std::make_pair(dir.Sub("restored"), options),
                                   std::make_pair(dir.Sub("ckpt"), stock)}) {
    DB* raw = nullptr;
    ASSERT_OK(hybridkv::OpenDB(opts, path, &raw));
    std::unique_ptr<DB> db(raw);
    for (int i = 0; i < 500; ++i) {
      std::string value;
      ASSERT_OK(
          db->Get(ReadOptions(), "key" + std::to_string(1000000 + i), &value))
          << path;
      ASSERT_EQ(value, value_of(i));
    }
  }
  EXPECT_NE(run("restore --backup_dir=" + dir.Sub("nothing") +
                " --db=" + dir.Sub("r2")),
            0);
}

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
