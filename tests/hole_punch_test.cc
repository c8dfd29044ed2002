// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// PunchHoles (blob/lifecycle/hole_punch.h) on a real file system: it frees whole
// blocks of a medium file in place, keeps the rest readable, leaves files
// shared with a checkpoint alone, and says when it cannot punch.
#include "plugin/hybridkv/blob/lifecycle/hole_punch.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "plugin/hybridkv/blob/format/medium_runs.h"
#include "rocksdb/file_system.h"
#include "test_util.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

using test::AllocatedBytes;

void WriteFile(const std::string& path, size_t size) {
  std::string data(size, 'x');
  ASSERT_OK(WriteStringToFile(FileSystem::Default().get(), data, path,
                              /*should_sync=*/true));
}

TEST(PunchHolesTest, FreesWholeBlocksAndKeepsTheRest) {
  test::ScratchDir dir("punch");
  const std::string path = dir.Sub("1.medium");
  WriteFile(path, 1 << 20);
  const uint64_t before = AllocatedBytes(path);
  uint64_t freed = 0;
  // Unaligned ends shrink to whole blocks: nothing outside is touched.
  ASSERT_OK(PunchHoles(path, {{100, (256 << 10) + 100}}, 0, 0, &freed));
  // [100, 4096) and [256 KiB, 256 KiB + 100) are partial blocks.
  EXPECT_EQ(freed, (256u << 10) - 4096);
  EXPECT_LE(AllocatedBytes(path), before - freed);
  std::string data;
  ASSERT_OK(ReadFileToString(FileSystem::Default().get(), path, &data));
  ASSERT_EQ(data.size(), 1u << 20);  // size unchanged
  const size_t hole_end = 256 << 10;
  EXPECT_TRUE(data.substr(0, 4096) == std::string(4096, 'x'));
  EXPECT_TRUE(data.substr(4096, hole_end - 4096) ==
              std::string(hole_end - 4096, '\0'));
  EXPECT_TRUE(data.substr(hole_end) ==
              std::string(data.size() - hole_end, 'x'));
}

// Runs that reach past the file (the whole-file runs of a version 1 refs
// property) never touch the protected header and footer.
TEST(PunchHolesTest, HeadAndTailAreKept) {
  test::ScratchDir dir("punchclip");
  const std::string path = dir.Sub("1.medium");
  WriteFile(path, 1 << 20);
  uint64_t freed = 0;
  ASSERT_OK(PunchHoles(path, WholeMediumFile(), 8192, 8192, &freed));
  EXPECT_EQ(freed, (1u << 20) - 2 * 8192);
  std::string data;
  ASSERT_OK(ReadFileToString(FileSystem::Default().get(), path, &data));
  ASSERT_EQ(data.size(), 1u << 20);
  EXPECT_TRUE(data.substr(0, 8192) == std::string(8192, 'x'));
  EXPECT_TRUE(data.substr(data.size() - 8192) == std::string(8192, 'x'));
}

TEST(PunchHolesTest, FileSharedWithACheckpointIsLeftAlone) {
  test::ScratchDir dir("punchlinked");
  const std::string path = dir.Sub("1.medium");
  WriteFile(path, 1 << 20);
  ASSERT_EQ(link(path.c_str(), dir.Sub("copy.medium").c_str()), 0);
  const uint64_t before = AllocatedBytes(path);
  uint64_t freed = 0;
  IOStatus s = PunchHoles(path, {{0, 1 << 20}}, 0, 0, &freed);
  EXPECT_TRUE(s.IsBusy()) << s.ToString();  // to be tried again
  EXPECT_EQ(freed, 0u);
  EXPECT_EQ(AllocatedBytes(path), before);
}

TEST(PunchHolesTest, UnsupportedAndFailingPunchesSaySo) {
  test::ScratchDir dir("punchfail");
  const std::string path = dir.Sub("1.medium");
  WriteFile(path, 1 << 20);
  uint64_t freed = 0;
  SetPunchHoleForTesting([](int, uint64_t, uint64_t) { return EOPNOTSUPP; });
  IOStatus s = PunchHoles(path, {{0, 1 << 20}}, 0, 0, &freed);
  EXPECT_TRUE(s.IsNotSupported()) << s.ToString();
  SetPunchHoleForTesting([](int, uint64_t, uint64_t) { return EIO; });
  s = PunchHoles(path, {{0, 1 << 20}}, 0, 0, &freed);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_NE(s.ToString().find(path), std::string::npos) << s.ToString();
  SetPunchHoleForTesting(nullptr);
}

TEST(PunchHolesTest, OnlyTheUnwrappedPosixFileSystemPunches) {
  EXPECT_TRUE(CanPunchHoles(*FileSystem::Default()));
  EXPECT_FALSE(CanPunchHoles(test::PlainWrapperFs()))
      << "wrappers may remap offsets";
}

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
