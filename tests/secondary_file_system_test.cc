// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// SecondaryFileSystem (blob/lifecycle/secondary_file_system.h), without a DB:
// once enabled, a table file that is gone opens as Corruption, and nothing
// else changes. secondary_test.cc follows a primary with it.
#include "plugin/hybridkv/blob/lifecycle/secondary_file_system.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "rocksdb/env.h"
#include "rocksdb/file_system.h"
#include "test_util.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

// SecondaryFileSystem reports a table file that is not there as Corruption,
// once enabled, and nothing else; HybridKV's own file accesses see the file
// system beneath it, which can punch holes.
TEST(SecondaryFileSystemTest, ReportsOnlyVanishedTablesOnceEnabled) {
  test::ScratchDir dir("secondary-fs");
  auto fs = std::make_shared<SecondaryFileSystem>(FileSystem::Default());
  std::unique_ptr<FSRandomAccessFile> file;
  auto open = [&](const std::string& name) {
    return fs->NewRandomAccessFile(dir.Sub(name), FileOptions(), &file,
                                   nullptr);
  };
  EXPECT_TRUE(open("000007.sst").IsPathNotFound()) << "not yet enabled";
  fs->Enable();
  EXPECT_TRUE(open("000007.sst").IsCorruption());
  EXPECT_TRUE(open("000007.log").IsPathNotFound());
  EXPECT_TRUE(open("7.medium").IsPathNotFound());
  // RocksDB looks for the LevelDB name of a table it cannot find.
  ASSERT_OK(WriteStringToFile(Env::Default(), "x", dir.Sub("000008.ldb")));
  EXPECT_TRUE(open("000008.sst").IsPathNotFound());
  ASSERT_OK(WriteStringToFile(Env::Default(), "x", dir.Sub("000009.sst")));
  EXPECT_OK(open("000009.sst"));
  const std::shared_ptr<FileSystem> as_fs = fs;
  EXPECT_EQ(UnwrapSecondary(as_fs), FileSystem::Default());
  EXPECT_EQ(UnwrapSecondary(FileSystem::Default()), FileSystem::Default());
}

// The Corruption names the file and says what to do; the file opened through
// the wrapper is the one beneath it.
TEST(SecondaryFileSystemTest, CorruptionNamesTheVanishedTable) {
  test::ScratchDir dir("secondary-fs");
  auto fs = std::make_shared<SecondaryFileSystem>(FileSystem::Default());
  fs->Enable();
  std::unique_ptr<FSRandomAccessFile> file;
  const IOStatus gone = fs->NewRandomAccessFile(dir.Sub("000012.sst"),
                                                FileOptions(), &file, nullptr);
  ASSERT_TRUE(gone.IsCorruption()) << gone.ToString();
  EXPECT_NE(gone.ToString().find(dir.Sub("000012.sst")), std::string::npos)
      << gone.ToString();
  EXPECT_NE(gone.ToString().find("catch up again"), std::string::npos)
      << gone.ToString();

  ASSERT_OK(WriteStringToFile(Env::Default(), "hello", dir.Sub("000013.sst")));
  ASSERT_OK(fs->NewRandomAccessFile(dir.Sub("000013.sst"), FileOptions(), &file,
                                    nullptr));
  char scratch[8];
  Slice read;
  ASSERT_OK(file->Read(0, 5, IOOptions(), &read, scratch, nullptr));
  EXPECT_EQ(read.ToString(), "hello");

  EXPECT_STREQ(fs->Name(), SecondaryFileSystem::kClassName());
  EXPECT_EQ(fs->base(), FileSystem::Default());
  // A wrapper of another kind is not unwrapped.
  const std::shared_ptr<FileSystem> other =
      std::make_shared<test::PlainWrapperFs>();
  EXPECT_EQ(UnwrapSecondary(other), other);
  const std::shared_ptr<FileSystem> none;
  EXPECT_EQ(UnwrapSecondary(none), nullptr);
}

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
