// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// Medium space without rewrites: when a key range merges, the records its
// pointers reached are freed from their medium files in place (hole
// punching), while the rest of each file stays readable. Covers the run
// arithmetic, the refs property's runs, punching on a real file system, file
// systems that cannot punch, punch failures, checkpoints that share medium
// files, and crashes around a punch.
#include "plugin/hybridkv/blob/medium/hole_punch.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/falloc.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "hybridkv/hybridkv.h"
#include "plugin/hybridkv/blob/io/rocksdb_compat.h"
#include "plugin/hybridkv/blob/medium/medium_refs.h"
#include "rocksdb/db.h"
#include "rocksdb/file_system.h"
#include "rocksdb/metadata.h"
#include "test_util.h"
#include "util/coding.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

TEST(MediumRunsTest, NormalizeMergesOverlapsAndShortGaps) {
  MediumRuns runs{{500, 600}, {0, 100}, {90, 200}, {650, 700}, {5000, 5100}};
  NormalizeRuns(&runs);
  EXPECT_EQ(runs, (MediumRuns{{0, 200}, {500, 600}, {650, 700}, {5000, 5100}}));
  NormalizeRuns(&runs, 100);
  EXPECT_EQ(runs, (MediumRuns{{0, 200}, {500, 700}, {5000, 5100}}));
  MediumRuns whole = WholeMediumFile();
  whole.push_back({10, 20});
  NormalizeRuns(&whole, kMediumRunMergeGap);  // no overflow at UINT64_MAX
  EXPECT_EQ(whole, WholeMediumFile());
}

TEST(MediumRunsTest, SubtractLeavesOnlyUncoveredBytes) {
  const MediumRuns from{{0, 100}, {200, 300}, {400, 500}};
  EXPECT_EQ(SubtractRuns(from, {}), from);
  EXPECT_EQ(SubtractRuns(from, {{50, 250}}),
            (MediumRuns{{0, 50}, {250, 300}, {400, 500}}));
  EXPECT_EQ(SubtractRuns(from, {{10, 20}, {30, 40}, {450, 1000}}),
            (MediumRuns{{0, 10}, {20, 30}, {40, 100}, {200, 300}, {400, 450}}));
  EXPECT_TRUE(SubtractRuns(from, WholeMediumFile()).empty());
}

// The recorder's cache of map entries must not change what is recorded: 3000
// files, far more than its slots, interleaved at random, against a plain map.
TEST(MediumRunsTest, RecorderMatchesAPlainMapAcrossCacheCollisions) {
  std::mt19937_64 rng(7);
  MediumRefsRecorder recorder;
  MediumRefs expected;
  std::vector<uint64_t> next_offset(3000, 100);
  for (int i = 0; i < 200000; ++i) {
    const uint64_t file = rng() % next_offset.size();
    const uint64_t number = 10 + 7 * file;  // spaced like SST numbers
    const uint64_t size = 40 + rng() % 200;
    const uint64_t offset = next_offset[file] + (rng() % 8 == 0 ? 9000 : 0);
    next_offset[file] = offset + size;
    recorder.AddRecord(number, offset, size);
    expected[number].AddRecord(offset, size);
  }
  ASSERT_EQ(recorder.refs()->size(), expected.size());
  for (const auto& [number, ref] : expected) {
    const MediumFileRef& got = recorder.refs()->at(number);
    EXPECT_EQ(got.pointers, ref.pointers) << number;
    EXPECT_EQ(got.record_bytes, ref.record_bytes) << number;
    EXPECT_EQ(got.runs, ref.runs) << number;
  }
}

// Version 1 of the refs property had no runs: its references keep the whole
// file, so nothing it may point to is ever punched.
TEST(MediumRunsTest, VersionOneRefsCoverTheWholeFile) {
  std::string v1;
  PutVarint32(&v1, 1);
  PutVarint32(&v1, 1);
  PutVarint64(&v1, 42);   // file number
  PutVarint64(&v1, 3);    // pointers
  PutVarint64(&v1, 600);  // record bytes
  TableProperties props;
  props.user_collected_properties[kMediumRefsProperty] = v1;
  MediumRefs refs;
  bool known = false;
  ASSERT_OK(GetMediumRefs(props, &refs, &known));
  ASSERT_TRUE(known);
  ASSERT_EQ(refs.count(42), 1u);
  EXPECT_EQ(refs[42].pointers, 3u);
  EXPECT_EQ(refs[42].runs, WholeMediumFile());

  props.user_collected_properties[kMediumRefsProperty] = std::string("\x09", 1);
  Status s = GetMediumRefs(props, &refs, &known);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find("unknown version"), std::string::npos);
}

uint64_t Allocated(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 ? uint64_t(st.st_blocks) * 512 : 0;
}

void WriteFile(const std::string& path, size_t size) {
  std::string data(size, 'x');
  ASSERT_OK(WriteStringToFile(FileSystem::Default().get(), data, path,
                              /*should_sync=*/true));
}

TEST(PunchHolesTest, FreesWholeBlocksAndKeepsTheRest) {
  test::ScratchDir dir("punch");
  const std::string path = dir.Sub("1.medium");
  WriteFile(path, 1 << 20);
  const uint64_t before = Allocated(path);
  uint64_t freed = 0;
  // Unaligned ends shrink to whole blocks: nothing outside is touched.
  ASSERT_OK(PunchHoles(path, {{100, (256 << 10) + 100}}, 0, 0, &freed));
  // [100, 4096) and [256 KiB, 256 KiB + 100) are partial blocks.
  EXPECT_EQ(freed, (256u << 10) - 4096);
  EXPECT_LE(Allocated(path), before - freed);
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
  const uint64_t before = Allocated(path);
  uint64_t freed = 0;
  ASSERT_OK(PunchHoles(path, {{0, 1 << 20}}, 0, 0, &freed));
  EXPECT_EQ(freed, 0u);
  EXPECT_EQ(Allocated(path), before);
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

// A FileSystem wrapper: HybridKV must not punch beneath it.
class PlainWrapperFs : public FileSystemWrapper {
 public:
  PlainWrapperFs() : FileSystemWrapper(FileSystem::Default()) {}
  static const char* kClassName() { return "HybridKVTestWrapperFs"; }
  const char* Name() const override { return kClassName(); }
};

TEST(PunchHolesTest, OnlyTheUnwrappedPosixFileSystemPunches) {
  EXPECT_TRUE(CanPunchHoles(*FileSystem::Default()));
  EXPECT_FALSE(CanPunchHoles(PlainWrapperFs())) << "wrappers may remap offsets";
}

// --- Against real DBs -------------------------------------------------------

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
std::string LoadIntoL1(DB* db, const std::string& dir) {
  std::vector<int> order(kKeys);
  for (int i = 0; i < kKeys; ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), std::mt19937(7));
  for (int i : order) EXPECT_OK(db->Put(WriteOptions(), Key(i), Value(i)));
  EXPECT_OK(db->Flush(FlushOptions()));
  CompactionOptions small_files;
  small_files.output_file_size_limit = 16 << 10;
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

bool Eventually(const std::function<bool()>& done) {
  for (int i = 0; i < 500 && !done(); ++i) usleep(20000);
  return done();
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
  EXPECT_TRUE(Eventually(
      [&] { return test::FilesWithSuffix(dir, ".medium").empty(); }));
  CheckAll(db);
}

TEST(MediumSpaceTest, MergedRangesAreFreedInPlace) {
  test::ScratchDir dir("inplace");
  auto db = Open(PunchOptions(), dir.path());
  const std::string medium = LoadIntoL1(db.get(), dir.path());
  const uint64_t full = Allocated(medium);
  MergeFirstHalf(db.get());
  // About half the records are inline now; their bytes go once the L1 inputs
  // are deleted, and the file stays for the other half.
  ASSERT_TRUE(Eventually([&] { return Allocated(medium) < full * 6 / 10; }))
      << Allocated(medium) << " of " << full << " bytes still allocated";
  EXPECT_GT(Allocated(medium), full * 3 / 10);
  HybridStatistics stats;
  ASSERT_OK(GetStatistics(db.get(), &stats));
  EXPECT_GT(stats.medium_bytes_punched, full * 4 / 10) << stats.ToString();
  EXPECT_LT(stats.medium_space_amplification(), 1.1) << stats.ToString();
  CheckAll(db.get());
  // The rest merges too: the file goes whole.
  MergeTheRestAndCheck(db.get(), dir.path());
}

TEST(MediumSpaceTest, WithoutPunchSupportFilesAreKeptWhole) {
  test::ScratchDir dir("nopunch");
  auto fs = std::make_shared<PlainWrapperFs>();
  std::unique_ptr<Env> env = NewCompositeEnv(fs);
  auto db = Open(PunchOptions(env.get()), dir.path());
  const std::string medium = LoadIntoL1(db.get(), dir.path());
  const uint64_t full = Allocated(medium);
  MergeFirstHalf(db.get());
  HybridStatistics stats;
  ASSERT_OK(GetStatistics(db.get(), &stats));
  EXPECT_EQ(stats.medium_bytes_punched, 0u);
  EXPECT_EQ(Allocated(medium), full);
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
    full = Allocated(medium);
    SetPunchHoleForTesting([](int, uint64_t, uint64_t) { return EIO; });
    MergeFirstHalf(db.get());
    HybridStatistics stats;
    ASSERT_TRUE(Eventually([&] {
      EXPECT_OK(GetStatistics(db.get(), &stats));
      return stats.medium_punch_failures > 0;
    })) << stats.ToString();
    SetPunchHoleForTesting(nullptr);
    EXPECT_EQ(Allocated(medium), full);
    CheckAll(db.get());
    ASSERT_OK(db->Close());
  }
  auto db = Open(options, dir.path());
  ASSERT_OK(db->Put(WriteOptions(), Key(0), Value(0)));
  ASSERT_OK(db->Flush(FlushOptions()));  // the first event seeds
  EXPECT_TRUE(Eventually([&] { return Allocated(medium) < full * 6 / 10; }))
      << Allocated(medium) << " of " << full;
  CheckAll(db.get());
}

// A checkpoint hard-links the medium files: while they are shared, neither
// side punches, since the other's SSTs may still point into any run.
TEST(MediumSpaceTest, CheckpointSharingFilesBlocksPunching) {
  test::ScratchDir dir("punchcheckpoint");
  auto db = Open(PunchOptions(), dir.path());
  const std::string medium = LoadIntoL1(db.get(), dir.path());
  const uint64_t full = Allocated(medium);
  ASSERT_OK(CreateCheckpoint(db.get(), dir.Sub("checkpoint")));
  MergeFirstHalf(db.get());
  ASSERT_OK(
      db->CompactFiles(CompactionOptions(), test::FilesAt(db.get(), 1), 2));
  CheckAll(db.get());
  auto copy = Open(PunchOptions(), dir.Sub("checkpoint"));
  CheckAll(copy.get());
  const std::string copied =
      dir.Sub("checkpoint") + medium.substr(medium.rfind('/'));
  EXPECT_EQ(Allocated(copied), full);
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
  EXPECT_TRUE(Eventually([&] { return Allocated(medium) < size * 6 / 10; }))
      << Allocated(medium) << " of " << size;
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
