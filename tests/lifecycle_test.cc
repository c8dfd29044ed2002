// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// Medium files live exactly as long as something can read them: an SST, a
// snapshot's old Version, an open iterator. Then they go, within seconds,
// without garbage collection. Checks poll with a deadline; they never sleep and
// hope.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "hybridkv/hybridkv.h"
#include "plugin/hybridkv/blob/io/rocksdb_compat.h"
#include "plugin/hybridkv/blob/lifecycle/db_state.h"
#include "plugin/hybridkv/blob/lifecycle/medium_lifecycle.h"
#include "rocksdb/compaction_filter.h"
#include "rocksdb/db.h"
#include "rocksdb/file_system.h"
#include "rocksdb/merge_operator.h"
#include "rocksdb/metadata.h"
#include "rocksdb/slice_transform.h"
#include "rocksdb/table.h"
#include "test_util.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

Options MakeOptions() {
  Options options;
  options.create_if_missing = true;
  EXPECT_OK(ConfigureOptions(&options));
  options.disable_auto_compactions = true;  // the tests decide when files die
  return options;
}

std::unique_ptr<DB> Open(const Options& options, const std::string& path) {
  DB* raw = nullptr;
  EXPECT_OK(hybridkv::OpenDB(options, path, &raw));
  return std::unique_ptr<DB>(raw);
}

std::string Key(int i) { return "key" + std::to_string(100000 + i); }
std::string Medium(int i, int v) {
  return std::string(200, static_cast<char>('a' + (i + v) % 26));
}

void Write(DB* db, int n, int version) {
  for (int i = 0; i < n; ++i)
    ASSERT_OK(db->Put(WriteOptions(), Key(i), Medium(i, version)));
  ASSERT_OK(db->Flush(FlushOptions()));
}

size_t MediumFiles(const std::string& dir) {
  return test::FilesWithSuffix(dir, ".medium").size();
}

void FullCompaction(DB* db) {
  CompactRangeOptions cro;
  cro.bottommost_level_compaction = BottommostLevelCompaction::kForce;
  ASSERT_OK(db->CompactRange(cro, nullptr, nullptr));
}

TEST(LifecycleTest, MediumFilesGoOnceNothingReferencesThem) {
  test::ScratchDir dir("life");
  auto db = Open(MakeOptions(), dir.path());
  Write(db.get(), 1000, 1);
  Write(db.get(), 1000, 2);
  ASSERT_EQ(MediumFiles(dir.path()), 2u);
  FullCompaction(db.get());  // everything inline at the merge level
  EXPECT_TRUE(test::Eventually([&] { return MediumFiles(dir.path()) == 0; }))
      << MediumFiles(dir.path()) << " medium files left";
  std::string v;
  ASSERT_OK(db->Get(ReadOptions(), Key(7), &v));
  EXPECT_EQ(v, Medium(7, 2));
}

// What this process's medium-file tracker knows of a directory is of the DB
// it last saw there. Between two opens by this process, another one (here
// second paths to the directories, which have trackers of their own) compacts
// the DB and stops before deleting the compaction's inputs, as a crash leaves
// them. This process's next open deletes those inputs as obsolete. By what it
// knew, they were the only SSTs pointing into their medium files, which would
// then be deleted under the compaction's output. It learns the DB again first.
// With `own_sst_dir`, the SSTs and medium files are in db_paths[0], not in
// the DB's directory, which holds CURRENT.
void ReopenAfterAnotherProcessChangedTheDb(bool own_sst_dir) {
  test::ScratchDir dir("stale");
  const std::string db_path = dir.Sub("db");
  const std::string sst_path = own_sst_dir ? dir.Sub("ssts") : db_path;
  auto options_for = [&](const std::string& ssts) {
    Options options = MakeOptions();
    if (own_sst_dir) options.db_paths = {DbPath(ssts, 0)};
    return options;
  };
  {
    auto db = Open(options_for(sst_path), db_path);
    ASSERT_NE(db, nullptr);
    for (int half = 0; half < 2; ++half) {  // two SSTs, two medium files
      for (int i = half * 500; i < half * 500 + 500; ++i) {
        ASSERT_OK(db->Put(WriteOptions(), Key(i), Medium(i, 1)));
      }
      ASSERT_OK(db->Flush(FlushOptions()));
    }
  }
  // The other process's paths to the same directories.
  const std::string other_db = dir.Sub("other");
  const std::string other_ssts = own_sst_dir ? dir.Sub("other-ssts") : other_db;
  ASSERT_EQ(symlink(db_path.c_str(), other_db.c_str()), 0);
  if (own_sst_dir) {
    ASSERT_EQ(symlink(sst_path.c_str(), other_ssts.c_str()), 0);
  }
  const auto inputs = test::FilesWithSuffix(sst_path, ".sst");
  ASSERT_EQ(inputs.size(), 2u);
  {
    auto other = Open(options_for(other_ssts), other_db);
    ASSERT_NE(other, nullptr);
    ASSERT_OK(other->DisableFileDeletions());  // left, as a crash leaves them
    ASSERT_OK(other->CompactFiles(CompactionOptions(),
                                  test::FilesAt(other.get(), 0),
                                  /*output_level=*/1));  // pointers kept
  }
  for (const std::string& sst : inputs) {
    ASSERT_TRUE(Env::Default()->FileExists(sst_path + "/" + sst).ok())
        << sst << " was deleted: the test proves nothing";
  }
  ASSERT_EQ(MediumFiles(sst_path), 2u);
  auto db = Open(options_for(sst_path), db_path);
  ASSERT_NE(db, nullptr);
  for (const std::string& sst : inputs) {
    EXPECT_TRUE(test::Eventually([&] {
      return !Env::Default()->FileExists(sst_path + "/" + sst).ok();
    })) << sst
        << " was not deleted as obsolete";
  }
  EXPECT_EQ(MediumFiles(sst_path), 2u);
  // Read after another open too: open files outlive their deletion.
  for (int round = 0; round < 2; ++round) {
    for (int i = 0; i < 1000; ++i) {
      std::string v;
      ASSERT_OK(db->Get(ReadOptions(), Key(i), &v)) << i;
      ASSERT_EQ(v, Medium(i, 1)) << i;
    }
    db.reset();
    db = Open(options_for(sst_path), db_path);
    ASSERT_NE(db, nullptr);
  }
}

TEST(LifecycleTest, ReopenAfterAnotherProcessChangedTheDbLearnsItAgain) {
  ReopenAfterAnotherProcessChangedTheDb(/*own_sst_dir=*/false);
}

TEST(LifecycleTest, ReopenAfterAnotherProcessChangedTheDbInItsDbPath) {
  ReopenAfterAnotherProcessChangedTheDb(/*own_sst_dir=*/true);
}

// Counts the opens of each SST file for reading.
class SstOpenCountingFs : public FileSystemWrapper {
 public:
  SstOpenCountingFs() : FileSystemWrapper(FileSystem::Default()) {}
  const char* Name() const override { return "HybridKVTestSstOpenCountingFs"; }
  IOStatus NewRandomAccessFile(const std::string& path,
                               const FileOptions& options,
                               std::unique_ptr<FSRandomAccessFile>* file,
                               IODebugContext* dbg) override {
    if (path.size() > 4 && path.compare(path.size() - 4, 4, ".sst") == 0) {
      std::lock_guard<std::mutex> lock(mu_);
      opens_[path.substr(path.rfind('/') + 1)]++;
    }
    return target()->NewRandomAccessFile(path, options, file, dbg);
  }
  std::map<std::string, int> opens() {
    std::lock_guard<std::mutex> lock(mu_);
    return opens_;
  }
  void Reset() {
    std::lock_guard<std::mutex> lock(mu_);
    opens_.clear();
  }

 private:
  std::mutex mu_;
  std::map<std::string, int> opens_;
};

// A reopen whose WAL holds writes flushes them during recovery, before
// DB::Open writes its new MANIFEST. The seeding that flush makes (within the
// open, not in the first flush after it, whose writes would wait for it) must
// not be undone by the open's own new MANIFEST: each SST is read twice per
// open, by RocksDB's table open and by one seeding, not three times.
TEST(LifecycleTest, ReopenWithAWalReadsEachSstOnce) {
  test::ScratchDir dir("reopen-wal");
  auto fs = std::make_shared<SstOpenCountingFs>();
  std::unique_ptr<Env> env = NewCompositeEnv(fs);
  Options options = MakeOptions();
  options.env = env.get();
  std::vector<std::string> before;
  {
    auto db = Open(options, dir.path());
    for (int v = 0; v < 3; v++) Write(db.get(), 200, v);  // three SSTs
    before = test::FilesWithSuffix(dir.path(), ".sst");
    ASSERT_OK(db->Put(WriteOptions(), Key(0), Medium(0, 9)));  // in the WAL
  }
  ASSERT_EQ(before.size(), 3u);
  fs->Reset();
  auto db = Open(options, dir.path());
  EXPECT_TRUE(DbStateFor(dir.path())->tracker().seeded())
      << "the open's recovery flush did not seed";
  Write(db.get(), 200, 10);  // events after the open
  const auto opens = fs->opens();
  for (const std::string& sst : before) {
    auto it = opens.find(sst);
    const int n = it == opens.end() ? 0 : it->second;
    EXPECT_LE(n, 2) << sst << " opened " << n << " times";
  }
  std::string got;
  ASSERT_OK(db->Get(ReadOptions(), Key(0), &got));
  EXPECT_EQ(got, Medium(0, 10));
}

TEST(LifecycleTest, OpenIteratorKeepsMediumFilesAlive) {
  test::ScratchDir dir("pinned");
  auto db = Open(MakeOptions(), dir.path());
  Write(db.get(), 1000, 1);
  // The iterator pins the current Version: the L0 SST, and so its medium file.
  std::unique_ptr<Iterator> it(db->NewIterator(ReadOptions()));
  Write(db.get(), 1000, 2);
  FullCompaction(db.get());
  // The second flush's file is unreferenced now; the first one is still pinned.
  EXPECT_TRUE(test::Eventually([&] { return MediumFiles(dir.path()) == 1; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  ASSERT_EQ(MediumFiles(dir.path()), 1u);
  int n = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next(), ++n) {
    ASSERT_EQ(it->value().ToString(),
              Medium(n, 1));  // old values, read from the old file
  }
  ASSERT_OK(it->status());
  EXPECT_EQ(n, 1000);
  it.reset();
  EXPECT_TRUE(test::Eventually([&] { return MediumFiles(dir.path()) == 0; }));
}

// Writes `keys` medium values into a DB at `dir`, plants a crash leftover,
// reopens: reconciliation deletes the leftover only, and key `probe` reads.
void CheckReconciliation(const Options& options, const test::ScratchDir& dir,
                         int keys, int probe) {
  {
    auto db = Open(options, dir.path());
    Write(db.get(), keys, 1);  // a live SST and its medium file
    ASSERT_OK(db->Close());
  }
  const auto live = test::FilesWithSuffix(dir.path(), ".medium");
  ASSERT_EQ(live.size(), 1u);
  // A crash leftover: a medium file no SST points into.
  { std::ofstream(dir.Sub("999999.medium")) << "left over by a crash"; }
  auto db = Open(options, dir.path());
  Write(db.get(), 10, 2);  // any event lets the listener reconcile
  EXPECT_TRUE(test::Eventually([&] {
    return MediumFiles(dir.path()) == 2;  // live + new flush
  }));
  auto now = test::FilesWithSuffix(dir.path(), ".medium");
  EXPECT_EQ(std::count(now.begin(), now.end(), "999999.medium"), 0);
  EXPECT_EQ(std::count(now.begin(), now.end(), live[0]), 1);
  std::string v;
  ASSERT_OK(db->Get(ReadOptions(), Key(probe), &v));
  EXPECT_EQ(v, Medium(probe, 1));
}

TEST(LifecycleTest, ReconciliationDeletesLeftoversOnly) {
  test::ScratchDir dir("reconcile");
  CheckReconciliation(MakeOptions(), dir, 1000, 500);
}

TEST(LifecycleTest, TwoDbsInOneProcessKeepTheirOwnState) {
  test::ScratchDir a("two-a"), b("two-b");
  auto db_a = Open(MakeOptions(), a.path());
  auto db_b = Open(MakeOptions(), b.path());
  Write(db_a.get(), 500, 1);
  Write(db_b.get(), 500, 1);
  FullCompaction(db_a.get());
  EXPECT_TRUE(test::Eventually([&] { return MediumFiles(a.path()) == 0; }));
  EXPECT_EQ(MediumFiles(b.path()), 1u);  // untouched
  std::string v;
  ASSERT_OK(db_b->Get(ReadOptions(), Key(3), &v));
  EXPECT_EQ(v, Medium(3, 1));
}

TEST(LifecycleTest, CheckpointHoldsMediumFilesAndSecret) {
  test::ScratchDir dir("ckpt-src"), out("ckpt-out");
  const std::string checkpoint = out.Sub("checkpoint");
  Options options = MakeOptions();
  auto db = Open(options, dir.path());
  Write(db.get(), 1000, 1);
  Write(db.get(), 500, 2);
  ASSERT_OK(CreateCheckpoint(db.get(), checkpoint));
  // The source goes on: compacting it deletes its medium files, not the
  // checkpoint's.
  FullCompaction(db.get());
  EXPECT_TRUE(test::Eventually([&] { return MediumFiles(dir.path()) == 0; }));
  EXPECT_EQ(MediumFiles(checkpoint), 2u);
  auto copy = Open(options, checkpoint);
  for (int i = 0; i < 1000; ++i) {
    std::string v;
    ASSERT_OK(copy->Get(ReadOptions(), Key(i), &v)) << i;
    ASSERT_EQ(v, Medium(i, i < 500 ? 2 : 1));
  }
  // Compactions of the copy verify pointers with the copied secret.
  FullCompaction(copy.get());
  std::string v;
  ASSERT_OK(copy->Get(ReadOptions(), Key(700), &v));
  EXPECT_EQ(v, Medium(700, 1));
  EXPECT_TRUE(test::Eventually([&] { return MediumFiles(checkpoint) == 0; }));
}

TEST(LifecycleTest, DestroyDbRemovesMediumFilesAndSecret) {
  test::ScratchDir dir("destroy");
  const std::string path = dir.Sub("db");
  Options options = MakeOptions();
  auto db = Open(options, path);
  Write(db.get(), 100, 1);
  ASSERT_GT(MediumFiles(path), 0u);
  Status s = hybridkv::DestroyDB(path, options);  // refused while open
  EXPECT_FALSE(s.ok());
  EXPECT_GT(MediumFiles(path), 0u);
  ASSERT_OK(db->Close());
  db.reset();
  ASSERT_OK(hybridkv::DestroyDB(path, options));
  EXPECT_TRUE(options.env->FileExists(path).IsNotFound());
}

// Pointer entries found by raw scans of the SSTs of `db`'s default column
// family at `min_level` and below.
uint64_t PointersAtOrBelow(DB* db, int min_level) {
  ColumnFamilyMetaData meta;
  db->GetColumnFamilyMetaData(&meta);
  uint64_t pointers = 0;
  for (const LevelMetaData& level : meta.levels) {
    if (level.level < min_level) continue;
    for (const SstFileMetaData& f : level.files) {
      test::RawSstScan scan =
          test::ScanSstRaw(f.directory + "/" + f.relative_filename);
      EXPECT_OK(scan.status);
      pointers += scan.pointer_entries;
    }
  }
  return pointers;
}

// A DB with auto compactions and small levels: level sizing as RocksDB 9
// defaults (dynamic), so L0 files move straight into the last level while the
// DB is small.
Options SmallLevelsOptions() {
  return test::SmallLsmOptions(64 << 10, 64 << 10);
}

// Sequential keys never overlap, so RocksDB trivially moves every SST, and
// moves into the last level are beyond the partitioner's veto: pointers may
// rest there until a compaction rewrites their SST. Nothing of theirs is dead
// (each record has its one pointer), every value reads back, and a full
// compaction leaves no pointer and no medium file.
TEST(LifecycleTest, SequentialLoadReadsBackAndCompactsInline) {
  test::ScratchDir dir("sequential");
  Options options = SmallLevelsOptions();
  auto db = Open(options, dir.path());
  const int kKeys = 20000;
  for (int i = 0; i < kKeys; ++i) {
    ASSERT_OK(db->Put(WriteOptions(), Key(i), Medium(i, 1)));
  }
  ASSERT_OK(db->Flush(FlushOptions()));
  ASSERT_OK(db->WaitForCompact(WaitForCompactOptions()));
  HybridStatistics stats;
  ASSERT_OK(GetStatistics(db.get(), &stats));
  // Each file's last block is partly empty: up to 4 KiB over a 64 KiB flush.
  EXPECT_LT(stats.medium_space_amplification(), 1.1) << stats.ToString();
  for (int i = 0; i < kKeys; i += 97) {
    std::string v;
    ASSERT_OK(db->Get(ReadOptions(), Key(i), &v));
    ASSERT_EQ(v, Medium(i, 1));
  }
  FullCompaction(db.get());
  EXPECT_EQ(PointersAtOrBelow(db.get(), 0), 0u);
  EXPECT_TRUE(test::Eventually([&] { return MediumFiles(dir.path()) == 0; }))
      << MediumFiles(dir.path()) << " medium files left";
  for (int i = 0; i < kKeys; i += 97) {
    std::string v;
    ASSERT_OK(db->Get(ReadOptions(), Key(i), &v));
    ASSERT_EQ(v, Medium(i, 1));
  }
}

// Zipfian overwrites leave most of each medium file dead while a few hot-key
// pointers still point into it. Dead records are freed in place, in whole
// file-system blocks, as the compactions that drop their pointers finish; a
// file system that cannot punch holes keeps the files whole. Either way every
// value reads back. The test prints the dead share over time for both: with
// zipfian overwrites the dead records are scattered, one here and there among
// live neighbours, so few whole blocks die before their key range merges
// (measured: settled 0.65 dead with punching, 0.73 without).
TEST(LifecycleTest, SkewedOverwritesFreeDeadRecordsInPlace) {
  for (bool punch : {false, true}) {
    test::ScratchDir dir("skewed");
    std::unique_ptr<Env> no_punch_env =
        NewCompositeEnv(std::make_shared<test::PlainWrapperFs>());
    Options options = SmallLevelsOptions();
    options.level0_file_num_compaction_trigger = 4;  // RocksDB's default
    options.env = punch ? Env::Default() : no_punch_env.get();
    auto db = Open(options, dir.path());
    const int kKeys = 60000;  // enough for levels above the merge level
    for (int i = 0; i < kKeys; ++i) {
      ASSERT_OK(db->Put(WriteOptions(), Key(i), Medium(i, 0)));
    }
    // Zipf(0.99) over the keys, by inverse-CDF over precomputed weights.
    std::vector<double> cdf(kKeys);
    double sum = 0;
    for (int i = 0; i < kKeys; ++i) cdf[i] = sum += 1.0 / std::pow(i + 1, 0.99);
    std::mt19937_64 rng(301);
    std::uniform_real_distribution<double> u(0, sum);
    std::map<int, int> model;
    std::printf("%s: dead/held medium bytes:",
                punch ? "hole punching" : "no punching");
    for (int round = 0; round < 6; ++round) {
      for (int n = 0; n < 15000; ++n) {
        const int i = static_cast<int>(
            std::lower_bound(cdf.begin(), cdf.end(), u(rng)) - cdf.begin());
        const int version = round * 100000 + n;
        ASSERT_OK(db->Put(WriteOptions(), Key(i), Medium(i, version)));
        model[i] = version;
      }
      HybridStatistics stats;
      ASSERT_OK(GetStatistics(db.get(), &stats));
      std::printf(" %.2f", 1.0 - 1.0 / stats.medium_space_amplification());
    }
    ASSERT_OK(db->Flush(FlushOptions()));
    ASSERT_OK(db->WaitForCompact(WaitForCompactOptions()));
    HybridStatistics stats;
    ASSERT_OK(GetStatistics(db.get(), &stats));
    const double dead = static_cast<double>(stats.referenced_medium_file_bytes -
                                            stats.referenced_medium_live_bytes);
    std::printf(" | settled: %.2f (space amplification %.2f, %" PRIu64
                " medium bytes held, %" PRIu64 " freed in place)\n",
                dead / std::max<double>(1, stats.referenced_medium_file_bytes),
                stats.medium_space_amplification(),
                stats.referenced_medium_file_bytes, stats.medium_bytes_punched);
    if (punch) {
      EXPECT_GT(stats.medium_bytes_punched, 0u) << stats.ToString();
    } else {
      EXPECT_EQ(stats.medium_bytes_punched, 0u) << stats.ToString();
    }
    for (const auto& [i, version] : model) {
      std::string v;
      ASSERT_OK(db->Get(ReadOptions(), Key(i), &v));
      ASSERT_EQ(v, Medium(i, version)) << i;
    }
    ASSERT_OK(db->VerifyChecksum());
    ASSERT_OK(db->Close());
  }
}

// A DB that opens without HybridKVListener (require_listener=false, for tools
// such as db_stress that replace the listeners) reads and compacts normally and
// keeps its medium files; the next open with the listener deletes the
// unreferenced ones.
TEST(LifecycleTest, WithoutListenerFilesWaitForTheNextOpen) {
  test::ScratchDir dir("nolistener");
  Options options = MakeOptions();
  options.listeners.clear();
  auto db_or = [&](const Options& o) {
    DB* raw = nullptr;
    Status s = hybridkv::OpenDB(o, dir.path(), &raw);
    delete raw;
    return s;
  };
  Status s = db_or(options);
  ASSERT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("require_listener=false"), std::string::npos);
  HybridTableOptions table;
  table.require_listener = false;
  options.table_factory = NewHybridTableFactory(table);
  {
    auto db = Open(options, dir.path());
    Write(db.get(), 1000, 1);
    Write(db.get(), 1000, 2);
    FullCompaction(db.get());
    EXPECT_EQ(MediumFiles(dir.path()), 2u);  // nothing deletes them
    std::string v;
    ASSERT_OK(db->Get(ReadOptions(), Key(9), &v));
    EXPECT_EQ(v, Medium(9, 2));
  }
  auto db = Open(MakeOptions(), dir.path());
  Write(db.get(), 10, 3);  // the listener's first event reconciles
  EXPECT_TRUE(test::Eventually([&] { return MediumFiles(dir.path()) == 1; }));
  std::string v;
  ASSERT_OK(db->Get(ReadOptions(), Key(900), &v));
  EXPECT_EQ(v, Medium(900, 2));
}

// Kills the writer (SIGKILL, in a child process) after a flush has written its
// medium file and SST but before the flush commits. The reopened DB replays
// the WAL, deletes the leftovers, and reads every acknowledged synced write.
class KillOnTableFileCreated : public EventListener {
 public:
  void OnTableFileCreated(const TableFileCreationInfo&) override {
    kill(getpid(), SIGKILL);
  }
};

constexpr int kCrashKeys = 2000;
constexpr char kCrashChildDir[] = "HYBRIDKV_CRASH_CHILD_DIR";

// The child's side: a fresh exec of this binary with kCrashChildDir set. Not a
// bare fork, because a forked copy of a process whose RocksDB thread pools
// already run would have no threads to flush with. It runs as a gtest
// environment, after static initialization and before any test.
class CrashChild : public testing::Environment {
 public:
  void SetUp() override {
    const char* dir = std::getenv(kCrashChildDir);
    if (dir == nullptr) return;
    Options options = MakeOptions();
    options.listeners.push_back(std::make_shared<KillOnTableFileCreated>());
    DB* raw = nullptr;
    if (!hybridkv::OpenDB(options, dir, &raw).ok()) _exit(2);
    WriteOptions synced;
    synced.sync = true;
    for (int i = 0; i < kCrashKeys; ++i) {
      if (!raw->Put(synced, Key(i), Medium(i, 1)).ok()) _exit(3);
    }
    raw->Flush(FlushOptions()).PermitUncheckedError();
    _exit(4);  // not reached: the listener kills the process first
  }
};
testing::Environment* const crash_child =
    testing::AddGlobalTestEnvironment(new CrashChild);

TEST(LifecycleTest, CrashBetweenMediumWriteAndFlushCommit) {
  test::ScratchDir dir("crash");
  const int kKeys = kCrashKeys;
  std::string how;
  ASSERT_TRUE(test::RunSelfUntilKilled({{kCrashChildDir, dir.path()}}, &how))
      << how;
  const auto leftovers = test::FilesWithSuffix(dir.path(), ".medium");
  ASSERT_EQ(leftovers.size(), 1u);  // written, never committed

  auto db = Open(MakeOptions(), dir.path());
  ASSERT_OK(db->Flush(FlushOptions()));  // the recovered writes
  EXPECT_TRUE(test::Eventually([&] {
    auto now = test::FilesWithSuffix(dir.path(), ".medium");
    return std::count(now.begin(), now.end(), leftovers[0]) == 0;
  })) << leftovers[0]
      << " was not deleted";
  for (int i = 0; i < kKeys; ++i) {
    std::string v;
    ASSERT_OK(db->Get(ReadOptions(), Key(i), &v)) << i;
    ASSERT_EQ(v, Medium(i, 1));
  }
  ASSERT_OK(db->VerifyChecksum());
}

// Two DBs with two column families each, interleaved writes, flushes and
// compactions over 20+ tables per DB, checked against a model; medium files
// exist exactly while SSTs reference them.
TEST(LifecycleTest, TwoDbsTwoColumnFamiliesAgainstAModel) {
  test::ScratchDir dir_a("scale-a"), dir_b("scale-b");
  struct Instance {
    std::string path;
    std::unique_ptr<DB> db;
    std::vector<ColumnFamilyHandle*> cfs;
    std::map<std::string, std::string> model[2];
  };
  Instance dbs[2];
  dbs[0].path = dir_a.path();
  dbs[1].path = dir_b.path();
  Options options = MakeOptions();
  options.disable_auto_compactions = false;
  options.level0_file_num_compaction_trigger = 3;
  options.target_file_size_base = 64 << 10;
  for (Instance& in : dbs) {
    in.db = Open(options, in.path);
    ColumnFamilyHandle* other = nullptr;
    ASSERT_OK(in.db->CreateColumnFamily(options, "other", &other));
    in.cfs = {in.db->DefaultColumnFamily(), other};
  }
  std::mt19937 rng(7);
  int tables = 0;
  for (int round = 0; round < 24; ++round) {
    for (int d = 0; d < 2; ++d) {
      Instance& in = dbs[(round + d) % 2];
      const int c = static_cast<int>(rng() % 2);
      for (int n = 0; n < 300; ++n) {
        const std::string key = Key(static_cast<int>(rng() % 3000));
        const int kind = static_cast<int>(rng() % 10);
        if (kind == 0) {
          ASSERT_OK(in.db->Delete(WriteOptions(), in.cfs[c], key));
          in.model[c].erase(key);
        } else {
          // small, medium and large values
          const size_t size = kind < 3 ? 20 : (kind < 9 ? 300 : 1500);
          std::string value(size, static_cast<char>('a' + rng() % 26));
          ASSERT_OK(in.db->Put(WriteOptions(), in.cfs[c], key, value));
          in.model[c][key] = value;
        }
      }
      ASSERT_OK(in.db->Flush(FlushOptions(), in.cfs[c]));
      ++tables;
      if (round % 6 == 5) {
        CompactRangeOptions cro;
        ASSERT_OK(in.db->CompactRange(cro, in.cfs[c], nullptr, nullptr));
      }
    }
  }
  EXPECT_GE(tables, 40);
  for (Instance& in : dbs) {
    ASSERT_OK(in.db->WaitForCompact(WaitForCompactOptions()));
    for (int c = 0; c < 2; ++c) {
      auto scanned = test::ScanAll(in.db.get(), in.cfs[c]);
      ASSERT_EQ(scanned.size(), in.model[c].size());
      auto it = in.model[c].begin();
      for (const auto& [k, v] : scanned) {
        ASSERT_EQ(k, it->first);
        ASSERT_EQ(v, it->second) << k;
        ++it;
      }
    }
  }
  // Full compactions write every value back inline: all medium files go.
  for (Instance& in : dbs) {
    for (auto* cf : in.cfs) {
      CompactRangeOptions cro;
      cro.bottommost_level_compaction = BottommostLevelCompaction::kForce;
      ASSERT_OK(in.db->CompactRange(cro, cf, nullptr, nullptr));
    }
    EXPECT_TRUE(test::Eventually([&] { return MediumFiles(in.path) == 0; }))
        << in.path;
    ASSERT_OK(in.db->DestroyColumnFamilyHandle(in.cfs[1]));
  }
}

// A user compaction filter that drops keys by value content, and an appending
// merge operator, give the same results as on stock RocksDB.
class DropByValue : public CompactionFilter {
 public:
  bool Filter(int, const Slice&, const Slice& value, std::string*,
              bool*) const override {
    return !value.empty() && value[0] == 'x';  // decided on the real value
  }
  const char* Name() const override { return "DropByValue"; }
};

class Append : public AssociativeMergeOperator {
 public:
  bool Merge(const Slice&, const Slice* existing, const Slice& value,
             std::string* result, Logger*) const override {
    *result = existing ? existing->ToString() + "," : "";
    result->append(value.data(), value.size());
    return true;
  }
  const char* Name() const override { return "Append"; }
};

TEST(LifecycleTest, UserFilterAndMergeOperatorMatchStock) {
  DropByValue filter;
  std::map<std::string, std::string> results[2];
  for (int hybrid = 0; hybrid < 2; ++hybrid) {
    test::ScratchDir dir(hybrid ? "compat-hybrid" : "compat-stock");
    Options options;
    options.create_if_missing = true;
    options.compaction_filter = &filter;
    options.merge_operator = std::make_shared<Append>();
    if (hybrid) {
      ASSERT_OK(ConfigureOptions(&options));
    }
    auto db = Open(options, dir.path());
    std::mt19937 rng(11);
    for (int round = 0; round < 6; ++round) {
      for (int n = 0; n < 500; ++n) {
        const std::string key = Key(static_cast<int>(rng() % 400));
        const char first = (rng() % 4 == 0) ? 'x' : 'v';
        const size_t size = rng() % 3 == 0 ? 10 : 150;  // small or medium
        std::string value = first + std::string(size, 'a' + round);
        if (rng() % 3 == 0) {
          ASSERT_OK(db->Merge(WriteOptions(), key, value));
        } else {
          ASSERT_OK(db->Put(WriteOptions(), key, value));
        }
      }
      ASSERT_OK(db->Flush(FlushOptions()));
      if (round % 2 == 1) FullCompaction(db.get());
    }
    FullCompaction(db.get());
    for (const auto& [k, v] : test::ScanAll(db.get())) results[hybrid][k] = v;
  }
  EXPECT_GT(results[0].size(), 100u);
  EXPECT_EQ(results[0], results[1]);
}

// A checkpoint opened elsewhere reads every value after its source DB has been
// destroyed.
TEST(LifecycleTest, CheckpointOutlivesDestroyedSource) {
  test::ScratchDir dir("ckpt2-src"), out("ckpt2-out");
  const std::string source = dir.Sub("db"), checkpoint = out.Sub("copy");
  Options options = MakeOptions();
  {
    auto db = Open(options, source);
    Write(db.get(), 1000, 1);
    Write(db.get(), 300, 2);
    ASSERT_OK(CreateCheckpoint(db.get(), checkpoint));
    // Built in a staging directory and renamed into place whole.
    EXPECT_TRUE(
        options.env->FileExists(checkpoint + ".hybridkv-staging").IsNotFound());
    Status again = CreateCheckpoint(db.get(), checkpoint);
    EXPECT_TRUE(again.IsInvalidArgument()) << again.ToString();
  }
  ASSERT_OK(hybridkv::DestroyDB(source, options));
  ASSERT_TRUE(options.env->FileExists(source).IsNotFound());
  auto copy = Open(options, checkpoint);
  for (int i = 0; i < 1000; ++i) {
    std::string v;
    ASSERT_OK(copy->Get(ReadOptions(), Key(i), &v)) << i;
    ASSERT_EQ(v, Medium(i, i < 300 ? 2 : 1));
  }
}

// A checkpoint has its source's secret and DB id. With both open in one
// process, each one's compactions resolve its own pointers for the wrapped
// merge operator, though the other's file of the same number is gone.
void MergeOntoEveryFifthAndCheck(DB* db, int version) {
  for (int i = 0; i < 500; i += 5) {
    ASSERT_OK(db->Merge(WriteOptions(), Key(i), "tail"));
  }
  ASSERT_OK(db->Flush(FlushOptions()));
  // Merges onto pointed-to base values, above the merge level: the pointer
  // reaches the merge operator, whose wrapper resolves it.
  ColumnFamilyMetaData meta;
  db->GetColumnFamilyMetaData(&meta);
  std::vector<std::string> l0;
  for (const SstFileMetaData& f : meta.levels[0].files) l0.push_back(f.name);
  ASSERT_OK(db->CompactFiles(CompactionOptions(), l0, /*output_level=*/1));
  // Merged by the compaction, not left as operands for every read to redo
  // (what a merge operator that fails with kMustMerge would leave).
  for (int i = 0; i < 500; i += 5) {
    std::vector<PinnableSlice> operands(4);
    GetMergeOperandsOptions opts;
    opts.expected_max_number_of_operands = 4;
    int count = 0;
    ASSERT_OK(db->GetMergeOperands(ReadOptions(), db->DefaultColumnFamily(),
                                   Key(i), operands.data(), &opts, &count));
    ASSERT_EQ(count, 1) << Key(i) << " still has unmerged operands";
  }
  for (int i = 0; i < 500; ++i) {
    std::string v;
    ASSERT_OK(db->Get(ReadOptions(), Key(i), &v)) << i;
    ASSERT_EQ(v, Medium(i, version) + (i % 5 == 0 ? ",tail" : "")) << i;
  }
}

TEST(LifecycleTest, CheckpointAndSourceOpenTogether) {
  test::ScratchDir dir("both-src"), out("both-out");
  Options options;
  options.create_if_missing = true;
  options.disable_auto_compactions = true;
  options.merge_operator = std::make_shared<Append>();
  ASSERT_OK(ConfigureOptions(&options));
  auto source = Open(options, dir.path());

  // The copy's file goes; the source resolves its own.
  Write(source.get(), 500, 1);
  ASSERT_OK(CreateCheckpoint(source.get(), out.Sub("first")));
  auto first = Open(options, out.Sub("first"));
  FullCompaction(first.get());
  EXPECT_TRUE(test::Eventually([&] { return MediumFiles(out.Sub("first")) == 0; }));
  MergeOntoEveryFifthAndCheck(source.get(), 1);

  // The source's file goes; the copy resolves its own.
  Write(source.get(), 500, 2);
  ASSERT_OK(CreateCheckpoint(source.get(), out.Sub("second")));
  auto second = Open(options, out.Sub("second"));
  FullCompaction(source.get());
  EXPECT_TRUE(test::Eventually([&] { return MediumFiles(dir.path()) == 0; }));
  MergeOntoEveryFifthAndCheck(second.get(), 2);
}

// A snapshot keeps an overwritten version's pointer in the compaction output,
// and so its medium file; once released, the next compaction drops the
// version and the file goes.
TEST(LifecycleTest, SnapshotKeepsOverwrittenValuesFile) {
  test::ScratchDir dir("snapshot");
  auto db = Open(MakeOptions(), dir.path());
  Write(db.get(), 300, 1);
  const auto first = test::FilesWithSuffix(dir.path(), ".medium");
  ASSERT_EQ(first.size(), 1u);
  const Snapshot* snapshot = db->GetSnapshot();
  Write(db.get(), 300, 2);
  // Above the merge level: pointers move, both versions stay for the snapshot.
  ASSERT_OK(
      db->CompactFiles(CompactionOptions(), test::FilesAt(db.get(), 0), 1));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(MediumFiles(dir.path()), 2u);
  ReadOptions at_snapshot;
  at_snapshot.snapshot = snapshot;
  std::string v;
  ASSERT_OK(db->Get(at_snapshot, Key(17), &v));
  EXPECT_EQ(v, Medium(17, 1));
  db->ReleaseSnapshot(snapshot);
  ASSERT_OK(
      db->CompactFiles(CompactionOptions(), test::FilesAt(db.get(), 1), 2));
  EXPECT_TRUE(test::Eventually([&] {
    auto now = test::FilesWithSuffix(dir.path(), ".medium");
    return now.size() == 1 && now[0] != first[0];
  }));
  ASSERT_OK(db->Get(ReadOptions(), Key(17), &v));
  EXPECT_EQ(v, Medium(17, 2));
}

// Switching a column family's table factory away from HybridTable while its
// companions stay (an edited OPTIONS file) is refused by name; the documented
// way back works.
TEST(LifecycleTest, SwitchingAwayFromHybridTableIsRefused) {
  test::ScratchDir dir("switch");
  Options hybrid = MakeOptions();
  {
    auto db = Open(hybrid, dir.path());
    Write(db.get(), 200, 1);  // pointers in the SST
  }
  Options switched = hybrid;
  switched.table_factory.reset(NewBlockBasedTableFactory());
  DB* raw = nullptr;
  Status s = hybridkv::OpenDB(switched, dir.path(), &raw);
  ASSERT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("bottommost_level_compaction=kForce"),
            std::string::npos)
      << s.ToString();
  delete raw;
  {
    auto db = Open(hybrid, dir.path());
    FullCompaction(db.get());
  }
  Options stock;  // plain RocksDB, no HybridKV component
  auto db = Open(stock, dir.path());
  std::string v;
  ASSERT_OK(db->Get(ReadOptions(), Key(150), &v));
  EXPECT_EQ(v, Medium(150, 1));
}

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
