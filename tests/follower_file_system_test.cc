// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// FollowerFileSystem (blob/lifecycle/follower_file_system.h), without a DB: a
// medium file of the follower's directory is linked from the leader's on
// first use, the secret is read in the leader's directory, and nothing else
// changes. deployability_test.cc follows a leader with it.
#include "plugin/hybridkv/blob/lifecycle/follower_file_system.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <memory>
#include <string>

#include "plugin/hybridkv/blob/lifecycle/db_secret.h"
#include "rocksdb/env.h"
#include "rocksdb/file_system.h"
#include "test_util.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

uint64_t Links(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 ? st.st_nlink : 0;
}

TEST(FollowerFileSystemTest, LinksMediumFilesAndReadsTheLeadersSecret) {
  test::ScratchDir dir("follower-fs");
  const std::string leader = dir.Sub("leader"), follower = dir.Sub("follower");
  Env* env = Env::Default();
  ASSERT_OK(env->CreateDir(leader));
  ASSERT_OK(env->CreateDir(follower));
  ASSERT_OK(WriteStringToFile(env, "medium", leader + "/7.medium"));
  ASSERT_OK(WriteStringToFile(env, "secret", leader + "/" + kSecretFileName));
  ASSERT_OK(WriteStringToFile(env, "options", leader + "/OPTIONS-000005"));
  auto fs = std::make_shared<FollowerFileSystem>(FileSystem::Default(),
                                                 follower, leader);

  // A medium file: linked on first use, then the follower's own name.
  uint64_t size = 0;
  ASSERT_OK(fs->GetFileSize(follower + "/7.medium", IOOptions(), &size,
                            nullptr));
  EXPECT_EQ(size, 6u);
  EXPECT_EQ(Links(follower + "/7.medium"), 2u);
  std::unique_ptr<FSRandomAccessFile> file;
  ASSERT_OK(fs->NewRandomAccessFile(follower + "/7.medium", FileOptions(),
                                    &file, nullptr));
  ASSERT_OK(fs->DeleteFile(leader + "/7.medium", IOOptions(), nullptr));
  EXPECT_OK(fs->FileExists(follower + "/7.medium", IOOptions(), nullptr));
  ASSERT_OK(fs->DeleteFile(follower + "/7.medium", IOOptions(), nullptr));
  // Gone from both: missing, as it is.
  EXPECT_TRUE(fs->FileExists(follower + "/7.medium", IOOptions(), nullptr)
                  .IsNotFound());

  // The secret is read where it is, never linked.
  std::string secret;
  ASSERT_OK(ReadFileToString(fs.get(), follower + "/" + kSecretFileName,
                             &secret));
  EXPECT_EQ(secret, "secret");
  EXPECT_TRUE(env->FileExists(follower + "/" + kSecretFileName).IsNotFound());

  // Other files, and HybridKV's names in other directories, pass through.
  EXPECT_TRUE(fs->FileExists(follower + "/OPTIONS-000005", IOOptions(), nullptr)
                  .IsNotFound());
  EXPECT_TRUE(
      fs->FileExists(dir.Sub("elsewhere/8.medium"), IOOptions(), nullptr)
          .IsNotFound());
  ASSERT_OK(WriteStringToFile(env, "m9", leader + "/9.medium"));
  EXPECT_TRUE(fs->FileExists(dir.Sub("elsewhere/9.medium"), IOOptions(),
                             nullptr)
                  .IsNotFound());
  EXPECT_EQ(Links(leader + "/9.medium"), 1u);
}

class Wrapper : public FileSystemWrapper {
 public:
  explicit Wrapper(const std::shared_ptr<FileSystem>& t) : FileSystemWrapper(t) {}
  const char* Name() const override { return "HybridKVTestWrapper"; }
};

// HybridKV's medium-file I/O finds it beneath the file systems RocksDB puts
// on top (OnDemandFileSystem for a follower), sharing their ownership.
TEST(FollowerFileSystemTest, UnwrapFindsItBeneathWrappers) {
  test::ScratchDir dir("follower-fs");
  auto follower = std::make_shared<FollowerFileSystem>(
      FileSystem::Default(), dir.Sub("f"), dir.Sub("l"));
  std::shared_ptr<FileSystem> top =
      std::make_shared<Wrapper>(follower);
  EXPECT_EQ(UnwrapFollower(top).get(), follower.get());
  EXPECT_EQ(UnwrapFollower(FileSystem::Default()), FileSystem::Default());
  EXPECT_EQ(UnwrapFollower(nullptr), nullptr);
}

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
