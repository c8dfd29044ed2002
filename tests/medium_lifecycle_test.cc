// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// MediumFileTracker on its own, without a DB: SSTs are table properties built
// by the refs collector, medium files are written by MediumFileWriter. A run
// that no SST points into any more is punched out; a file goes with its last
// referencing SST; seeding removes leftovers that nothing references and
// keeps what registered SSTs still point to.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <future>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "db/dbformat.h"
#include "plugin/hybridkv/blob/format/medium_pointer.h"
#include "plugin/hybridkv/blob/format/medium_refs.h"
#include "plugin/hybridkv/blob/io/rocksdb_compat.h"
#include "plugin/hybridkv/blob/lifecycle/db_state.h"
#include "plugin/hybridkv/blob/lifecycle/hole_punch.h"
#include "plugin/hybridkv/blob/lifecycle/medium_lifecycle.h"
#include "plugin/hybridkv/blob/medium/medium_file.h"
#include "plugin/hybridkv/blob/medium/medium_file_cache.h"
#include "plugin/hybridkv/plugin/hybridkv_listener.h"
#include "rocksdb/db.h"
#include "rocksdb/sst_file_writer.h"
#include "test_util.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

constexpr int kRecords = 64;

std::string Key(int i) { return "key" + std::to_string(1000 + i); }

// Writes medium file `number` of kRecords 1000-byte values; returns their
// handles.
std::vector<MediumRecordHandle> WriteMediumFile(const std::string& dir,
                                                uint64_t number) {
  return test::WriteMediumRecords(MediumFileName(dir, number), kRecords, Key,
                                  [](int) { return std::string(1000, 'v'); });
}

// The table properties of an SST whose entries point to `handles[first,
// last)` of medium file `number`, as HybridTable's builder and collector
// write them.
TableProperties SstProperties(uint64_t number,
                              const std::vector<MediumRecordHandle>& handles,
                              int first, int last) {
  MediumRefs refs;
  MediumRefsCollectorFactory factory(&refs);
  std::unique_ptr<InternalTblPropColl> collector(
      factory.CreateInternalTblPropColl(0, 1, 7, kMaxSequenceNumber));
  for (int i = first; i < last; i++) {
    refs[number].AddRecord(handles[i].offset, handles[i].size);
  }
  TableProperties props;
  props.db_id = "tracker-test";
  EXPECT_OK(collector->Finish(&props.user_collected_properties));
  return props;
}

bool Exists(const std::string& path) {
  return Env::Default()->FileExists(path).ok();
}

// Registers SST 100, pointing to the first half of `handles` (medium file
// 7), and SST 101, pointing to the second, and seeds.
void RegisterHalves(MediumFileTracker* tracker, const test::ScratchDir& dir,
                    const std::vector<MediumRecordHandle>& handles) {
  tracker->SetFileSystem(FileSystem::Default(), nullptr);
  tracker->AddSst(100, dir.Sub("000100.sst"),
                  SstProperties(7, handles, 0, kRecords / 2));
  tracker->AddSst(101, dir.Sub("000101.sst"),
                  SstProperties(7, handles, kRecords / 2, kRecords));
  tracker->EnsureSeeded(dir.path());
  ASSERT_TRUE(tracker->seeded());
}

TEST(MediumFileTrackerTest, DeadRunsArePunchedAndFilesGoWithTheirLastSst) {
  test::ScratchDir dir("tracker");
  const auto handles = WriteMediumFile(dir.path(), 7);
  const std::string medium = MediumFileName(dir.path(), 7);
  MediumFileCache open_files;
  MediumFileTracker tracker(dir.path(), &open_files);
  RegisterHalves(&tracker, dir, handles);
  ASSERT_TRUE(Exists(medium));
  const uint64_t whole = AllocatedBytes(FileSystem::Default().get(), medium);
  EXPECT_EQ(tracker.GetPunches().bytes, 0u);

  tracker.RemoveSst(101);  // the second half is dead
  ASSERT_TRUE(Exists(medium));
  if (CanPunchHoles(*FileSystem::Default())) {
    // About half the file is freed in place: whole blocks of the dead half.
    const uint64_t after = AllocatedBytes(FileSystem::Default().get(), medium);
    EXPECT_LT(after, whole - uint64_t{kRecords} * 1000 / 2 + 2 * 4096);
    EXPECT_EQ(tracker.GetPunches().bytes, whole - after);
    EXPECT_EQ(tracker.GetPunches().failures, 0u);
  }
  // The live half still reads back.
  std::unique_ptr<MediumFileReader> reader;
  ASSERT_OK(MediumFileReader::Open(FileSystem::Default(), medium, FileOptions(),
                                   &reader));
  std::string value;
  ASSERT_OK(test::ReadRecord(*reader, handles[0], Key(0), &value));
  EXPECT_EQ(value, std::string(1000, 'v'));
  reader.reset();

  tracker.RemoveSst(100);  // the last reference
  EXPECT_FALSE(Exists(medium));
}

// Dead runs of a file shared with another hard link (a checkpoint's) wait,
// and are tried again at most every retry interval, not at every SST
// deletion: a checkpoint may be kept for days, and each try opens the file.
TEST(MediumFileTrackerTest, SharedFilesAreTriedAgainAtMostEveryInterval) {
  if (!CanPunchHoles(*FileSystem::Default())) GTEST_SKIP();
  test::ScratchDir dir("tracker-shared");
  const auto handles = WriteMediumFile(dir.path(), 7);
  const auto others = WriteMediumFile(dir.path(), 8);
  const std::string medium = MediumFileName(dir.path(), 7);
  MediumFileCache open_files;
  MediumFileTracker tracker(dir.path(), &open_files);
  tracker.SetSharedRetryIntervalForTesting(std::chrono::hours(1));
  // SSTs 102-104 point into medium file 8: removing them makes deletions.
  for (uint64_t sst = 102; sst <= 104; sst++) {
    tracker.AddSst(sst, dir.Sub(std::to_string(sst) + ".sst"),
                   SstProperties(8, others, 0, kRecords));
  }
  RegisterHalves(&tracker, dir, handles);
  const uint64_t whole = AllocatedBytes(FileSystem::Default().get(), medium);
  ASSERT_EQ(link(medium.c_str(), dir.Sub("copy.medium").c_str()), 0);
  tracker.RemoveSst(101);  // the second half dies while shared
  tracker.RemoveSst(102);  // tried again: still shared
  ASSERT_EQ(unlink(dir.Sub("copy.medium").c_str()), 0);
  tracker.RemoveSst(103);  // within the interval: not tried
  EXPECT_EQ(AllocatedBytes(FileSystem::Default().get(), medium), whole);
  tracker.SetSharedRetryIntervalForTesting({});
  tracker.RemoveSst(104);
  EXPECT_LT(AllocatedBytes(FileSystem::Default().get(), medium),
            whole - uint64_t{kRecords} * 1000 / 2 + 2 * 4096);
}

// An SST whose refs property this build cannot decode (a newer HybridKV
// wrote it) and whose entries cannot be read either: its references are
// unknown, so nothing is freed on the guess that it has none.
TEST(MediumFileTrackerTest, UnknownReferencesFreeNothing) {
  test::ScratchDir dir("tracker-unknown");
  const auto handles = WriteMediumFile(dir.path(), 7);
  const std::string medium = MediumFileName(dir.path(), 7);
  MediumFileCache open_files;
  MediumFileTracker tracker(dir.path(), &open_files);
  RegisterHalves(&tracker, dir, handles);
  const uint64_t whole = AllocatedBytes(FileSystem::Default().get(), medium);
  TableProperties future = SstProperties(7, handles, 0, kRecords);
  future.user_collected_properties[kMediumRefsProperty] =
      std::string("\x63\x01\x07", 3);  // version 99
  // On disk, and unreadable too: seeding cannot learn its references.
  ASSERT_OK(
      WriteStringToFile(Env::Default(), "not a table", dir.Sub("000102.sst")));
  tracker.AddSst(102, dir.Sub("000102.sst"), future);
  EXPECT_FALSE(tracker.seeded());
  tracker.EnsureSeeded(dir.path());
  EXPECT_FALSE(tracker.seeded());
  tracker.RemoveSst(101);
  tracker.RemoveSst(100);
  ASSERT_TRUE(Exists(medium));
  EXPECT_EQ(AllocatedBytes(FileSystem::Default().get(), medium), whole);
}

// What the tracker knows answers for copies and figures only while it is of
// the DB as it is now: another open (a new MANIFEST in CURRENT) makes the
// callers read the SSTs themselves until the tracker has seeded again.
TEST(MediumFileTrackerTest, KnownRefsOnlyWhileCurrentNamesTheSameManifest) {
  test::ScratchDir dir("tracker-known");
  const auto handles = WriteMediumFile(dir.path(), 7);
  ASSERT_OK(WriteStringToFile(Env::Default(), "MANIFEST-000005\n",
                              dir.Sub("CURRENT")));
  MediumFileCache open_files;
  MediumFileTracker tracker(dir.path(), &open_files);
  RegisterHalves(&tracker, dir, handles);
  std::map<uint64_t, MediumRefs> known;
  ASSERT_TRUE(tracker.KnownRefs(dir.path(), &known));
  EXPECT_EQ(known.size(), 2u);
  ASSERT_OK(WriteStringToFile(Env::Default(), "MANIFEST-000009\n",
                              dir.Sub("CURRENT")));
  EXPECT_FALSE(tracker.KnownRefs(dir.path(), &known));
  tracker.EnsureSeeded(dir.path());  // learns the directory again
  EXPECT_TRUE(tracker.KnownRefs(dir.path(), &known));
}

// A flush whose SST fails after its builder finished: RocksDB deletes the SST
// and reports the failure. The medium file goes, even when a seeding read the
// SST from disk meanwhile.
TEST(MediumFileTrackerTest, FailedBuildDeletesItsMediumFile) {
  test::ScratchDir dir("tracker-failed");
  const auto handles = WriteMediumFile(dir.path(), 7);
  const std::string medium = MediumFileName(dir.path(), 7);
  MediumFileCache open_files;
  MediumFileTracker tracker(dir.path(), &open_files);
  tracker.SetFileSystem(FileSystem::Default(), nullptr);
  tracker.BuildStarted(7, "session");
  tracker.BuildFinished(7);
  // What a seeding does with the SST still on disk.
  tracker.AddSst(7, dir.Sub("000007.sst"),
                 SstProperties(7, handles, 0, kRecords));
  tracker.BuildFailed(7);
  EXPECT_FALSE(Exists(medium));
  tracker.EnsureSeeded(dir.path());
  std::map<uint64_t, MediumRefs> known;
  ASSERT_TRUE(tracker.KnownRefs(dir.path(), &known));
  EXPECT_EQ(known.count(7), 0u);
}

// Adds fixed user properties to the SST it collects for.
class FixedProperties : public TablePropertiesCollector {
 public:
  explicit FixedProperties(UserCollectedProperties props)
      : props_(std::move(props)) {}
  Status AddUserKey(const Slice&, const Slice&, EntryType, SequenceNumber,
                    uint64_t) override {
    return Status::OK();
  }
  Status Finish(UserCollectedProperties* props) override {
    props->insert(props_.begin(), props_.end());
    return Status::OK();
  }
  UserCollectedProperties GetReadableProperties() const override { return {}; }
  const char* Name() const override { return "HybridKVTestFixedProperties"; }

 private:
  const UserCollectedProperties props_;
};

class FixedPropertiesFactory : public TablePropertiesCollectorFactory {
 public:
  explicit FixedPropertiesFactory(UserCollectedProperties props)
      : props_(std::move(props)) {}
  TablePropertiesCollector* CreateTablePropertiesCollector(
      TablePropertiesCollectorFactory::Context) override {
    return new FixedProperties(props_);
  }
  const char* Name() const override { return "HybridKVTestFixedProperties"; }

 private:
  const UserCollectedProperties props_;
};

// Writes SST `path` with the user properties of `props`, as its builder
// would have.
void WriteSst(const std::string& path, const TableProperties& props) {
  Options options;
  options.table_properties_collector_factories = {
      std::make_shared<FixedPropertiesFactory>(
          props.user_collected_properties)};
  SstFileWriter writer(EnvOptions(), options);
  ASSERT_OK(writer.Open(path));
  ASSERT_OK(writer.Put(Key(0), "pointer bytes"));
  ASSERT_OK(writer.Finish());
}

// FIFO's trivial copy of a file whose temperature changes (RocksDB 10+) adds
// an SST, holding the pointers of the one it copies, that no creation event
// reports. The copied SST's deletion must not free their records: the
// compaction's start makes the tracker read the SSTs on disk again.
TEST(MediumFileTrackerTest, TemperatureCopyMakesTheTrackerReadTheSstsAgain) {
  test::ScratchDir dir("tracker-copy");
  const auto handles = WriteMediumFile(dir.path(), 7);
  const std::string medium = MediumFileName(dir.path(), 7);
  const uint64_t whole = AllocatedBytes(FileSystem::Default().get(), medium);
  MediumFileTracker& tracker = DbStateFor(dir.path())->tracker();
  tracker.SetFileSystem(FileSystem::Default(), nullptr);
  tracker.AddSst(7, dir.Sub("000007.sst"),
                 SstProperties(7, handles, 0, kRecords));
  tracker.EnsureSeeded(dir.path());
  ASSERT_TRUE(tracker.seeded());
  HybridKVListener listener;
  CompactionJobInfo compaction;
  compaction.compaction_reason = CompactionReason::kChangeTemperature;
  compaction.input_files = {dir.Sub("000007.sst")};
  listener.OnCompactionBegin(nullptr, compaction);
  // The copy, 000009.sst, with the references of 000007.sst.
  WriteSst(dir.Sub("000009.sst"), SstProperties(7, handles, 0, kRecords));
  TableFileDeletionInfo deleted;
  deleted.db_name = dir.path();
  deleted.file_path = dir.Sub("000007.sst");
  listener.OnTableFileDeleted(deleted);
  ASSERT_TRUE(Exists(medium)) << "freed under the copy";
  EXPECT_EQ(AllocatedBytes(FileSystem::Default().get(), medium), whole);
}

// Holds every open of SST files for reading until Open(): a seeding that
// reads a large DB's properties on a slow volume, caught in the middle.
class GateFs : public FileSystemWrapper {
 public:
  GateFs() : FileSystemWrapper(FileSystem::Default()) {}
  const char* Name() const override { return "HybridKVTestGateFs"; }
  IOStatus NewRandomAccessFile(const std::string& path,
                               const FileOptions& options,
                               std::unique_ptr<FSRandomAccessFile>* file,
                               IODebugContext* dbg) override {
    if (SstNumberOf(path) != 0) {
      std::unique_lock<std::mutex> lock(mu_);
      waiting_ = true;
      changed_.notify_all();
      changed_.wait(lock, [this] { return open_; });
    }
    return target()->NewRandomAccessFile(path, options, file, dbg);
  }
  void WaitUntilAReadWaits() {
    std::unique_lock<std::mutex> lock(mu_);
    changed_.wait(lock, [this] { return waiting_; });
  }
  void Open() {
    std::lock_guard<std::mutex> lock(mu_);
    open_ = true;
    changed_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable changed_;
  bool waiting_ = false;
  bool open_ = false;
};

// True when `f` is done within 10 s: time enough for a call that waits for
// nothing, and far less than the gate holds a seeding.
template <typename T>
bool DoneSoon(const std::future<T>& f) {
  return f.wait_for(std::chrono::seconds(10)) == std::future_status::ready;
}

// A seeding reads every SST's properties, a device read or more each: on a
// large DB on a capped volume, seconds. Builders must not wait for it (a
// flush that cannot start stalls writes), and what events change meanwhile
// must hold when it finishes.
class SeedingInProgressTest : public testing::Test {
 protected:
  void SetUp() override {
    handles_ = WriteMediumFile(dir_.path(), 7);
    WriteSst(dir_.Sub("000009.sst"), SstProperties(7, handles_, 0, kRecords));
    tracker_.SetFileSystem(gate_, nullptr);
    tracker_.BuildStarted(1, "session");
    tracker_.BuildFinished(1);
    seeding_ = std::async(std::launch::async,
                          [this] { tracker_.EnsureSeeded(dir_.path()); });
    gate_->WaitUntilAReadWaits();  // reading 000009.sst's properties
  }
  void TearDown() override {
    gate_->Open();
    if (seeding_.valid()) seeding_.wait();
  }
  // Lets the seeding finish.
  void FinishSeeding() {
    gate_->Open();
    seeding_.get();
  }

  test::ScratchDir dir_{"tracker-seeding"};
  std::vector<MediumRecordHandle> handles_;
  std::shared_ptr<GateFs> gate_ = std::make_shared<GateFs>();
  MediumFileCache open_files_;
  MediumFileTracker tracker_{dir_.path(), &open_files_};
  std::future<void> seeding_;
};

TEST_F(SeedingInProgressTest, BuildersDoNotWaitForIt) {
  auto build = std::async(std::launch::async, [this] {
    tracker_.BuildStarted(11, "session");
    tracker_.BuildFinished(11);
  });
  const bool done = DoneSoon(build);
  FinishSeeding();
  EXPECT_TRUE(done) << "a builder waited for the seeding";
  ASSERT_TRUE(tracker_.seeded());
  std::map<uint64_t, MediumRefs> known;
  ASSERT_TRUE(tracker_.KnownRefs(dir_.path(), &known));
  EXPECT_EQ(known.count(9), 1u);
  EXPECT_TRUE(Exists(MediumFileName(dir_.path(), 7)));
}

// The seeding read 000009.sst from disk before RocksDB deleted it: it must
// not register it, or the records it pointed to would stay for good.
TEST_F(SeedingInProgressTest, AnSstDeletedMeanwhileIsNotLearned) {
  auto removal =
      std::async(std::launch::async, [this] { tracker_.RemoveSst(9); });
  const bool done = DoneSoon(removal);
  FinishSeeding();
  removal.get();
  EXPECT_TRUE(done) << "a deletion event waited for the seeding";
  std::map<uint64_t, MediumRefs> known;
  ASSERT_TRUE(tracker_.KnownRefs(dir_.path(), &known));
  EXPECT_EQ(known.count(9), 0u);
  EXPECT_FALSE(Exists(MediumFileName(dir_.path(), 7)))
      << "medium file 7 kept for an SST that is gone";
}

// An SST created meanwhile whose references cannot be read: the seeding
// cannot know them either (it listed the directory before), so it must not
// declare itself done and free by what it knows.
TEST_F(SeedingInProgressTest, UnknownReferencesMeanwhileUndoIt) {
  TableProperties future = SstProperties(7, handles_, 0, kRecords);
  future.user_collected_properties[kMediumRefsProperty] =
      std::string("\x63\x01\x07", 3);  // version 99
  auto creation = std::async(std::launch::async, [&] {
    tracker_.AddSst(12, dir_.Sub("000012.sst"), future);
  });
  const bool done = DoneSoon(creation);
  FinishSeeding();
  creation.get();
  EXPECT_TRUE(done) << "a creation event waited for the seeding";
  EXPECT_FALSE(tracker_.seeded());
}

// An SST of a column family without HybridTable has no refs property and is
// read entry by entry (it could hold copied pointers): a large one takes a
// while, and builders of HybridKV's column families must not wait for it.
TEST(MediumFileTrackerTest, ReadingAStockSstDoesNotHoldBuildersBack) {
  test::ScratchDir dir("tracker-stock-sst");
  {
    Options stock;
    stock.create_if_missing = true;
    DB* raw = nullptr;
    ASSERT_OK(OpenDB(stock, dir.Sub("stock"), &raw));
    std::unique_ptr<DB> db(raw);
    ASSERT_OK(db->Put(WriteOptions(), "key", "value"));
    ASSERT_OK(db->Flush(FlushOptions()));
  }
  const std::vector<std::string> ssts =
      test::FilesWithSuffix(dir.Sub("stock"), ".sst");
  ASSERT_EQ(ssts.size(), 1u);
  const std::string path = dir.Sub("stock") + "/" + ssts[0];
  std::unique_ptr<TableProperties> props;
  ASSERT_OK(ReadSstProperties(FileSystem::Default(), path, &props));
  auto gate = std::make_shared<GateFs>();
  MediumFileCache open_files;
  MediumFileTracker tracker(dir.Sub("stock"), &open_files);
  tracker.SetFileSystem(gate, nullptr);
  tracker.BuildStarted(1, "session");
  tracker.BuildFinished(1);
  auto creation = std::async(std::launch::async, [&] {
    tracker.AddSst(SstNumberOf(path), path, *props);
  });
  gate->WaitUntilAReadWaits();  // reading the stock SST's entries
  auto build = std::async(std::launch::async, [&] {
    tracker.BuildStarted(11, "session");
    tracker.BuildFinished(11);
  });
  const bool done = DoneSoon(build);
  gate->Open();
  creation.get();
  build.get();
  EXPECT_TRUE(done) << "a builder waited for the read of a stock SST";
}

// Table readers of other instances of the directory (a secondary, a
// read-only DB, an SstFileReader) do not replace the file system and
// SstFileManager that the primary's builders set; the first reader's serve
// until a builder sets its own.
class NamedFs : public FileSystemWrapper {
 public:
  NamedFs() : FileSystemWrapper(FileSystem::Default()) {}
  const char* Name() const override { return "HybridKVTestNamedFs"; }
};

TEST(MediumFileTrackerTest, ReadersDoNotReplaceTheBuildersFileSystem) {
  test::ScratchDir dir("tracker-fs");
  MediumFileCache open_files;
  std::shared_ptr<FileSystem> builders = std::make_shared<NamedFs>();
  std::shared_ptr<FileSystem> readers = std::make_shared<NamedFs>();
  MediumFileTracker tracker(dir.path(), &open_files);
  tracker.SetFileSystem(readers, nullptr, /*replace=*/false);
  EXPECT_EQ(tracker.file_system(), readers);
  tracker.SetFileSystem(builders, nullptr);
  tracker.SetFileSystem(readers, nullptr, /*replace=*/false);
  EXPECT_EQ(tracker.file_system(), builders);
}

TEST(MediumFileTrackerTest, SeedingDeletesOnlyUnreferencedLeftovers) {
  test::ScratchDir dir("tracker-seed");
  const auto kept = WriteMediumFile(dir.path(), 7);
  WriteMediumFile(dir.path(), 8);  // a crash's leftover: nothing points to it
  MediumFileCache open_files;
  MediumFileTracker tracker(dir.path(), &open_files);
  tracker.SetFileSystem(FileSystem::Default(), nullptr);
  tracker.AddSst(100, dir.Sub("000100.sst"),
                 SstProperties(7, kept, 0, kRecords));
  tracker.EnsureSeeded(dir.path());
  EXPECT_TRUE(Exists(MediumFileName(dir.path(), 7)));
  EXPECT_FALSE(Exists(MediumFileName(dir.path(), 8)));
}

TEST(MediumFileTrackerTest, FileBeingWrittenIsNotALeftover) {
  test::ScratchDir dir("tracker-build");
  WriteMediumFile(dir.path(), 9);  // a flush writing SST 9 and its medium file
  MediumFileCache open_files;
  MediumFileTracker tracker(dir.path(), &open_files);
  tracker.SetFileSystem(FileSystem::Default(), nullptr);
  tracker.BuildStarted(9, "session");
  tracker.EnsureSeeded(dir.path());
  EXPECT_TRUE(Exists(MediumFileName(dir.path(), 9)));
  tracker.BuildFinished(9);
}

// Dead runs of a file that a table reader of another DB session holds (a
// secondary or read-only instance in this process, whose older Version may
// still point into them) are not punched until it lets go; the runs then go
// at the next SST deletion. Holds of the tracker's own session do not count.
TEST(MediumFileTrackerTest, RunsHeldByAnotherSessionArePunchedOnceReleased) {
  if (!CanPunchHoles(*FileSystem::Default())) {
    GTEST_SKIP() << "the file system cannot punch holes";
  }
  test::ScratchDir dir("tracker-held");
  const auto handles = WriteMediumFile(dir.path(), 7);
  const auto other = WriteMediumFile(dir.path(), 8);
  const std::string medium = MediumFileName(dir.path(), 7);
  MediumFileCache open_files;
  MediumFileTracker tracker(dir.path(), &open_files);
  tracker.SetFileSystem(FileSystem::Default(), nullptr);
  tracker.BuildStarted(1, "primary");
  tracker.BuildFinished(1);
  tracker.AddSst(100, dir.Sub("000100.sst"),
                 SstProperties(7, handles, 0, kRecords / 2));
  tracker.AddSst(101, dir.Sub("000101.sst"),
                 SstProperties(7, handles, kRecords / 2, kRecords));
  tracker.AddSst(102, dir.Sub("000102.sst"), SstProperties(8, other, 0, 4));
  tracker.AddSst(103, dir.Sub("000103.sst"), SstProperties(8, other, 4, 8));
  tracker.EnsureSeeded(dir.path());
  const uint64_t whole = AllocatedBytes(FileSystem::Default().get(), medium);
  open_files.Hold(7, "primary");  // the tracker's own session: no hold
  open_files.Hold(7, "secondary");
  tracker.RemoveSst(101);
  EXPECT_EQ(AllocatedBytes(FileSystem::Default().get(), medium), whole)
      << "punched under another session's reader";
  open_files.Release(7, "secondary");
  tracker.RemoveSst(103);  // any later deletion retries
  EXPECT_LT(AllocatedBytes(FileSystem::Default().get(), medium),
            whole - uint64_t{kRecords} * 1000 / 2 + 2 * 4096);
  open_files.Release(7, "primary");
}

// A reader in another process holds a medium file (HoldForReading, as every
// MediumFileReader does): PunchHoles leaves it whole and says Busy, until that
// process lets go.
TEST(MediumFileTrackerTest, FileHeldByAnotherProcessIsNotPunched) {
  if (!CanPunchHoles(*FileSystem::Default())) {
    GTEST_SKIP() << "the file system cannot punch holes";
  }
  test::ScratchDir dir("tracker-process");
  WriteMediumFile(dir.path(), 7);
  const std::string medium = MediumFileName(dir.path(), 7);
  const uint64_t whole = AllocatedBytes(FileSystem::Default().get(), medium);
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {  // the other process: hold, say so, wait to be killed
    const int fd = HoldForReading(medium);
    const char c = fd >= 0 ? 'y' : 'n';
    if (write(ready[1], &c, 1) != 1) _exit(1);
    pause();
    _exit(0);
  }
  char held = 0;
  ASSERT_EQ(read(ready[0], &held, 1), 1);
  ASSERT_EQ(held, 'y');
  uint64_t freed = 0;
  // This process's own hold never blocks it.
  const int own = HoldForReading(medium);
  IOStatus s = PunchHoles(medium, {{0, 1 << 20}}, 4096, 4096, &freed);
  EXPECT_TRUE(s.IsBusy()) << s.ToString();
  EXPECT_EQ(freed, 0u);
  EXPECT_EQ(AllocatedBytes(FileSystem::Default().get(), medium), whole);
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  ASSERT_EQ(waitpid(pid, nullptr, 0), pid);
  ASSERT_OK(PunchHoles(medium, {{0, 1 << 20}}, 4096, 4096, &freed));
  EXPECT_GT(freed, 0u);
  ReleaseHold(own);
  close(ready[0]);
  close(ready[1]);
}

// A medium file open through MediumFileCache (as every table reader holds
// its files) is held: PunchHoles in another process says Busy until it is
// released. Also where the reader's file system is a wrapper, which never
// punches itself (a secondary reads through one, SecondaryFileSystem, while
// its primary punches).
TEST(MediumFileTrackerTest, OpenMediumFileIsHeldAgainstOtherProcesses) {
  if (!CanPunchHoles(*FileSystem::Default())) {
    GTEST_SKIP() << "the file system cannot punch holes";
  }
  test::ScratchDir dir("tracker-open");
  WriteMediumFile(dir.path(), 7);
  const std::string medium = MediumFileName(dir.path(), 7);
  // 0 when another process's punch is refused as Busy, 1 when it punches.
  auto punch_elsewhere = [&] {
    const pid_t pid = fork();
    if (pid == 0) {
      uint64_t freed = 0;
      _exit(PunchHoles(medium, {{0, 1 << 20}}, 4096, 4096, &freed).IsBusy()
                ? 0
                : 1);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  };
  const std::shared_ptr<FileSystem> file_systems[] = {
      FileSystem::Default(), std::make_shared<test::PlainWrapperFs>()};
  for (const auto& fs : file_systems) {
    SCOPED_TRACE(fs->Name());
    WriteMediumFile(dir.path(), 7);  // whole again
    MediumFileCache cache;
    std::shared_ptr<MediumFileReader> file;
    ASSERT_OK(
        cache.Get(fs, {dir.path()}, FileOptions(), IOOptions(), 7, &file));
    cache.Hold(7, "secondary");
    EXPECT_EQ(punch_elsewhere(), 0) << "punched while a reader held the file";
    cache.Release(7, "secondary");  // the last holder: the cache closes it
    file.reset();
    EXPECT_EQ(punch_elsewhere(), 1);
  }
}

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
