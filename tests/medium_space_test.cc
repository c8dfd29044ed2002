// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// Medium space without rewrites, in real DBs: when a key range merges, the
// records its pointers reached are freed from their medium files in place
// (hole punching), while the rest of each file stays readable. Covers file
// systems that cannot punch, punch failures, checkpoints that share medium
// files, and crashes around a punch.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/falloc.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "hybridkv/hybridkv.h"
#include "plugin/hybridkv/blob/io/rocksdb_compat.h"
#include "plugin/hybridkv/blob/lifecycle/db_state.h"
#include "plugin/hybridkv/blob/lifecycle/hole_punch.h"
#include "plugin/hybridkv/blob/lifecycle/medium_lifecycle.h"
#include "rocksdb/db.h"
#include "rocksdb/file_system.h"
#include "test_util.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

using test::AllocatedBytes;

constexpr int kKeys = 6000;

std::string Key(int i) { return "key" + std::to_string(100000 + i); }
std::string Value(int i) {
  return std::string(300, static_cast<char>('a' + i % 26));
}

// Merge level 2, small SSTs, no automatic compactions: the test moves key
// ranges down one CompactFiles at a time.
Options PunchOptions(Env* env = Env::Default()) {
  Options options;
  options.create_if_missing = true;
  options.env = env;
  options.disable_auto_compactions = true;
  options.target_file_size_base = 16 << 10;
  options.write_buffer_size = 8 << 20;  // one flush holds every key
  HybridOptions hybrid;
  hybrid.table.merge_level = 2;
  EXPECT_OK(ConfigureOptions(&options, hybrid));
  return options;
}

// Loads kKeys in random order into one flush (one medium file, key-sorted),
// then moves its pointers to L1 as many small SSTs, each pointing into a
// narrow run of that file. Returns the medium file's path.
std::string LoadIntoL1(DB* db, const std::string& dir,
                       uint64_t l1_file_size = 16 << 10) {
  std::vector<int> order(kKeys);
  for (int i = 0; i < kKeys; ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), std::mt19937(7));
  for (int i : order) EXPECT_OK(db->Put(WriteOptions(), Key(i), Value(i)));
  EXPECT_OK(db->Flush(FlushOptions()));
  CompactionOptions small_files;
  small_files.output_file_size_limit = l1_file_size;
  EXPECT_OK(db->CompactFiles(small_files, test::FilesAt(db, 0), 1));
  const auto mediums = test::FilesWithSuffix(dir, ".medium");
  EXPECT_EQ(mediums.size(), 1u);
  return mediums.empty() ? "" : dir + "/" + mediums[0];
}

// Merges the first half of L1 (by key) into L2, the merge level, where those
// values are written back inline.
void MergeFirstHalf(DB* db) {
  std::vector<std::string> l1 = test::FilesAt(db, 1);
  ASSERT_GT(l1.size(), 4u);
  l1.resize(l1.size() / 2);
  ASSERT_OK(db->CompactFiles(CompactionOptions(), l1, 2));
}

void CheckAll(DB* db) {
  for (int i = 0; i < kKeys; ++i) {
    std::string v;
    ASSERT_OK(db->Get(ReadOptions(), Key(i), &v)) << i;
    ASSERT_EQ(v, Value(i)) << i;
  }
  ASSERT_EQ(test::ScanAll(db).size(), size_t{kKeys});
  ASSERT_OK(db->VerifyChecksum());
}

// Waits for the file at `medium` to occupy fewer than `limit` bytes on disk.
testing::AssertionResult ShrinksBelow(const std::string& medium,
                                      uint64_t limit) {
  if (test::Eventually([&] { return AllocatedBytes(medium) < limit; })) {
    return testing::AssertionSuccess();
  }
  return testing::AssertionFailure()
         << AllocatedBytes(medium) << " bytes still allocated, expected fewer "
         << "than " << limit;
}

std::unique_ptr<DB> Open(const Options& options, const std::string& path) {
  DB* raw = nullptr;
  EXPECT_OK(hybridkv::OpenDB(options, path, &raw));
  return std::unique_ptr<DB>(raw);
}

// Merges what is left in L1 into the merge level: the last references go,
// the medium file with them, and every value still reads back.
void MergeTheRestAndCheck(DB* db, const std::string& dir) {
  ASSERT_OK(db->CompactFiles(CompactionOptions(), test::FilesAt(db, 1), 2));
  EXPECT_TRUE(test::Eventually(
      [&] { return test::FilesWithSuffix(dir, ".medium").empty(); }));
  CheckAll(db);
}

TEST(MediumSpaceTest, MergedRangesAreFreedInPlace) {
  test::ScratchDir dir("inplace");
  auto db = Open(PunchOptions(), dir.path());
  const std::string medium = LoadIntoL1(db.get(), dir.path());
  const uint64_t full = AllocatedBytes(medium);
  MergeFirstHalf(db.get());
  // About half the records are inline now; their bytes go once the L1 inputs
  // are deleted, and the file stays for the other half.
  ASSERT_TRUE(ShrinksBelow(medium, full * 6 / 10));
  EXPECT_GT(AllocatedBytes(medium), full * 3 / 10);
  HybridStatistics stats;
  ASSERT_OK(GetStatistics(db.get(), &stats));
  EXPECT_GT(stats.medium_bytes_punched, full * 4 / 10) << stats.ToString();
  EXPECT_LT(stats.medium_space_amplification(), 1.1) << stats.ToString();
  CheckAll(db.get());
  // The rest merges too: the file goes whole.
  MergeTheRestAndCheck(db.get(), dir.path());
}

// Narrow SSTs: each points to a run of about 45 KB, and neighbouring runs
// share a file-system block. A shared block is whole once the second of its
// SSTs goes, and is freed then: the merged half is freed whole (51% of the
// file left allocated), not short of a block at every boundary between two
// SSTs' runs (56%).
TEST(MediumSpaceTest, BlocksSharedByNarrowRunsAreFreedWithTheLast) {
  test::ScratchDir dir("narrow");
  auto db = Open(PunchOptions(), dir.path());
  const std::string medium =
      LoadIntoL1(db.get(), dir.path(), /*l1_file_size=*/1 << 10);
  ASSERT_GT(test::FilesAt(db.get(), 1).size(), 30u);
  const uint64_t full = AllocatedBytes(medium);
  MergeFirstHalf(db.get());
  ASSERT_TRUE(ShrinksBelow(medium, full * 53 / 100));
  CheckAll(db.get());
  MergeTheRestAndCheck(db.get(), dir.path());
}

TEST(MediumSpaceTest, WithoutPunchSupportFilesAreKeptWhole) {
  test::ScratchDir dir("nopunch");
  auto fs = std::make_shared<test::PlainWrapperFs>();
  std::unique_ptr<Env> env = NewCompositeEnv(fs);
  auto db = Open(PunchOptions(env.get()), dir.path());
  const std::string medium = LoadIntoL1(db.get(), dir.path());
  const uint64_t full = AllocatedBytes(medium);
  MergeFirstHalf(db.get());
  HybridStatistics stats;
  ASSERT_OK(GetStatistics(db.get(), &stats));
  EXPECT_EQ(stats.medium_bytes_punched, 0u);
  EXPECT_EQ(AllocatedBytes(medium), full);
  CheckAll(db.get());
  MergeTheRestAndCheck(db.get(), dir.path());
  ASSERT_OK(db->Close());
}

// A punch that fails leaves the bytes (reads are unaffected); the next open
// punches them.
TEST(MediumSpaceTest, FailedPunchIsRetriedAtOpen) {
  test::ScratchDir dir("punchretry");
  const Options options = PunchOptions();
  std::string medium;
  uint64_t full = 0;
  {
    auto db = Open(options, dir.path());
    medium = LoadIntoL1(db.get(), dir.path());
    full = AllocatedBytes(medium);
    SetPunchHoleForTesting([](int, uint64_t, uint64_t) { return EIO; });
    MergeFirstHalf(db.get());
    HybridStatistics stats;
    ASSERT_TRUE(test::Eventually([&] {
      EXPECT_OK(GetStatistics(db.get(), &stats));
      return stats.medium_punch_failures > 0;
    })) << stats.ToString();
    SetPunchHoleForTesting(nullptr);
    EXPECT_EQ(AllocatedBytes(medium), full);
    CheckAll(db.get());
    ASSERT_OK(db->Close());
  }
  auto db = Open(options, dir.path());
  ASSERT_OK(db->Put(WriteOptions(), Key(0), Value(0)));
  ASSERT_OK(db->Flush(FlushOptions()));  // the first event seeds
  EXPECT_TRUE(ShrinksBelow(medium, full * 6 / 10));
  CheckAll(db.get());
}

// A checkpoint hard-links the medium files: while they are shared, neither
// side punches, since the other's SSTs may still point into any run.
TEST(MediumSpaceTest, CheckpointSharingFilesBlocksPunching) {
  test::ScratchDir dir("punchcheckpoint");
  auto db = Open(PunchOptions(), dir.path());
  const std::string medium = LoadIntoL1(db.get(), dir.path());
  const uint64_t full = AllocatedBytes(medium);
  ASSERT_OK(CreateCheckpoint(db.get(), dir.Sub("checkpoint")));
  MergeFirstHalf(db.get());
  ASSERT_OK(
      db->CompactFiles(CompactionOptions(), test::FilesAt(db.get(), 1), 2));
  CheckAll(db.get());
  auto copy = Open(PunchOptions(), dir.Sub("checkpoint"));
  CheckAll(copy.get());
  const std::string copied =
      dir.Sub("checkpoint") + medium.substr(medium.rfind('/'));
  EXPECT_EQ(AllocatedBytes(copied), full);
}

// The runs that died while a checkpoint shared the file are punched once it
// no longer does, at the next SST deletion, not at the next open.
TEST(MediumSpaceTest, PunchesHeldBackByACheckpointFollowItsDeletion) {
  test::ScratchDir dir("punchafterckpt");
  // Shared files are tried again at most every 10 s by default.
  DbStateFor(dir.path())->tracker().SetSharedRetryIntervalForTesting({});
  auto db = Open(PunchOptions(), dir.path());
  const std::string medium = LoadIntoL1(db.get(), dir.path());
  const uint64_t full = AllocatedBytes(medium);
  ASSERT_OK(CreateCheckpoint(db.get(), dir.Sub("checkpoint")));
  MergeFirstHalf(db.get());
  ASSERT_EQ(AllocatedBytes(medium), full) << "punched while shared";
  ASSERT_OK(hybridkv::DestroyDB(dir.Sub("checkpoint"), PunchOptions()));
  // An SST deletion: the flush's SST, compacted away.
  ASSERT_OK(db->Put(WriteOptions(), "zz-more", "small"));
  ASSERT_OK(db->Flush(FlushOptions()));
  ASSERT_OK(
      db->CompactFiles(CompactionOptions(), test::FilesAt(db.get(), 0), 1));
  EXPECT_TRUE(ShrinksBelow(medium, full * 6 / 10));
  ASSERT_OK(db->Delete(WriteOptions(), "zz-more"));
  CheckAll(db.get());
}

// Crashes around a punch. Punches follow the deletion of the SST whose
// pointers die, which follows the MANIFEST edit that drops it, so no crash
// can leave a live pointer into a punched run. The child process is killed
// in the punch itself, before or after it takes effect; the reopened DB reads
// every value and punches what the crash left.
constexpr char kPunchCrashDir[] = "HYBRIDKV_PUNCH_CRASH_DIR";
constexpr char kPunchCrashMode[] = "HYBRIDKV_PUNCH_CRASH_MODE";

class PunchCrashChild : public testing::Environment {
 public:
  void SetUp() override {
    const char* dir = std::getenv(kPunchCrashDir);
    const char* mode = std::getenv(kPunchCrashMode);
    if (dir == nullptr || mode == nullptr) return;
    const bool after = std::string(mode) == "after";
    DB* raw = nullptr;
    if (!hybridkv::OpenDB(PunchOptions(), dir, &raw).ok()) _exit(2);
    LoadIntoL1(raw, dir);
    SetPunchHoleForTesting([after](int fd, uint64_t offset, uint64_t length) {
      if (after) {
        fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                  static_cast<off_t>(offset), static_cast<off_t>(length));
      }
      kill(getpid(), SIGKILL);
      return 0;
    });
    MergeFirstHalf(raw);
    usleep(5 * 1000 * 1000);  // the deletion runs in the background
    _exit(4);                 // not reached
  }
};
testing::Environment* const punch_crash_child =
    testing::AddGlobalTestEnvironment(new PunchCrashChild);

class MediumSpaceCrashTest : public testing::TestWithParam<std::string> {};

TEST_P(MediumSpaceCrashTest, CrashAtPunchLosesNothing) {
  test::ScratchDir dir("punchcrash");
  std::string how;
  ASSERT_TRUE(test::RunSelfUntilKilled(
      {{kPunchCrashDir, dir.path()}, {kPunchCrashMode, GetParam()}}, &how))
      << how;
  const auto mediums = test::FilesWithSuffix(dir.path(), ".medium");
  ASSERT_EQ(mediums.size(), 1u);
  const std::string medium = dir.path() + "/" + mediums[0];
  uint64_t size = 0;
  ASSERT_OK(
      FileSystem::Default()->GetFileSize(medium, IOOptions(), &size, nullptr));

  auto db = Open(PunchOptions(), dir.path());
  CheckAll(db.get());
  ASSERT_OK(db->Put(WriteOptions(), Key(0), Value(0)));
  ASSERT_OK(db->Flush(FlushOptions()));  // the first event seeds
  EXPECT_TRUE(ShrinksBelow(medium, size * 6 / 10));
  CheckAll(db.get());
}

INSTANTIATE_TEST_SUITE_P(BeforeAndAfter, MediumSpaceCrashTest,
                         testing::Values("before", "after"),
                         [](const testing::TestParamInfo<std::string>& when) {
                           return when.param + "Punch";
                         });

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
