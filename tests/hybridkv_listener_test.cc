// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// HybridKVListener (plugin/hybridkv_listener.h), its callbacks called
// directly: table files created and deleted reach the medium-file tracker
// (a file goes with its last referencing SST, a failed build's at once);
// events of other files and failed deletions are ignored; a compaction's
// start notes the base level, reseeds for temperature changes and decides
// whether its column family's compactions must resolve pointers (on a DB
// whose options SetOptions changed); finished flushes and compactions apply
// the blob GC policy and note the output level. The events need a DB only
// where the listener reads its options. medium_lifecycle_test.cc covers the
// tracker, blob_gc_policy_test.cc the policy through real jobs.
#include "plugin/hybridkv/plugin/hybridkv_listener.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "db/dbformat.h"
#include "plugin/hybridkv/blob/format/medium_refs.h"
#include "plugin/hybridkv/blob/io/rocksdb_compat.h"
#include "plugin/hybridkv/blob/lifecycle/db_state.h"
#include "plugin/hybridkv/blob/medium/medium_file.h"
#include "rocksdb/db.h"
#include "test_util.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

constexpr int kRecords = 32;

bool Exists(const std::string& path) {
  return FileSystem::Default()->FileExists(path, IOOptions(), nullptr).ok();
}

std::string SstPath(const std::string& dir, uint64_t number) {
  char name[32];
  snprintf(name, sizeof(name), "/%06llu.sst",
           static_cast<unsigned long long>(number));
  return dir + name;
}

std::vector<MediumRecordHandle> WriteMediumFile(const std::string& dir,
                                                uint64_t number) {
  return test::WriteMediumRecords(
      MediumFileName(dir, number), kRecords,
      [](int i) { return "key" + std::to_string(100 + i); },
      [](int) { return std::string(1000, 'v'); });
}

// What RocksDB reports of an SST that points to handles [first, last) of
// medium file `number`.
TableFileCreationInfo Created(const std::string& dir, uint64_t sst,
                              uint64_t number,
                              const std::vector<MediumRecordHandle>& handles,
                              int first, int last) {
  MediumRefs refs;
  for (int i = first; i < last; i++) {
    refs[number].AddRecord(handles[i].offset, handles[i].size);
  }
  MediumRefsCollectorFactory factory(&refs);
  std::unique_ptr<InternalTblPropColl> collector(
      factory.CreateInternalTblPropColl(0, 1, 7, kMaxSequenceNumber));
  TableProperties props;
  props.db_id = "listener-test";
  EXPECT_OK(collector->Finish(&props.user_collected_properties));
  TableFileCreationInfo info(std::move(props));
  info.db_name = dir;
  info.cf_name = kDefaultColumnFamilyName;
  info.file_path = SstPath(dir, sst);
  info.reason = TableFileCreationReason::kFlush;
  info.status = Status::OK();
  return info;
}

TableFileDeletionInfo Deleted(const std::string& dir, uint64_t sst,
                              Status status = Status::OK()) {
  TableFileDeletionInfo info;
  info.db_name = dir;
  info.file_path = SstPath(dir, sst);
  info.status = status;
  return info;
}

TEST(HybridKVListenerTest, MediumFilesGoWithTheirLastReferencingSst) {
  test::ScratchDir dir("listener");
  const auto handles = WriteMediumFile(dir.path(), 7);
  const std::string medium = MediumFileName(dir.path(), 7);
  HybridKVListener listener;
  listener.OnTableFileCreated(
      Created(dir.path(), 100, 7, handles, 0, kRecords / 2));
  listener.OnTableFileCreated(
      Created(dir.path(), 101, 7, handles, kRecords / 2, kRecords));
  EXPECT_TRUE(DbStateFor(dir.path())->tracker().seeded());

  listener.OnTableFileDeleted(Deleted(dir.path(), 101));
  EXPECT_TRUE(Exists(medium));  // SST 100 still points into it
  // A failed deletion, and files that are not SSTs, change nothing.
  listener.OnTableFileDeleted(
      Deleted(dir.path(), 100, Status::IOError("not deleted")));
  TableFileDeletionInfo not_sst = Deleted(dir.path(), 100);
  not_sst.file_path = dir.Sub("000100.blob");
  listener.OnTableFileDeleted(not_sst);
  EXPECT_TRUE(Exists(medium));

  listener.OnTableFileDeleted(Deleted(dir.path(), 100));
  EXPECT_FALSE(Exists(medium));
}

// Medium files nothing references, and which this process did not write,
// are leftovers: the first event seeds the tracker, which deletes them.
TEST(HybridKVListenerTest, FirstEventSeedsAndRemovesLeftovers) {
  test::ScratchDir dir("listener");
  const auto handles = WriteMediumFile(dir.path(), 7);
  WriteMediumFile(dir.path(), 8);  // referenced by no SST
  HybridKVListener listener;
  EXPECT_FALSE(DbStateFor(dir.path())->tracker().seeded());
  listener.OnTableFileCreated(Created(dir.path(), 100, 7, handles, 0, 4));
  EXPECT_TRUE(DbStateFor(dir.path())->tracker().seeded());
  EXPECT_TRUE(Exists(MediumFileName(dir.path(), 7)));
  EXPECT_FALSE(Exists(MediumFileName(dir.path(), 8)));
}

// A build RocksDB reports failed leaves a medium file nothing can point
// into: it goes at once.
TEST(HybridKVListenerTest, FailedBuildsMediumFileIsDeleted) {
  test::ScratchDir dir("listener");
  const auto handles = WriteMediumFile(dir.path(), 7);
  // A flush of this process writes medium file 102, then its SST fails.
  MediumFileTracker& tracker = DbStateFor(dir.path())->tracker();
  tracker.BuildStarted(102, "LISTENERTESTSESSION1");
  WriteMediumFile(dir.path(), 102);
  HybridKVListener listener;
  listener.OnTableFileCreated(Created(dir.path(), 100, 7, handles, 0, 4));
  tracker.BuildFinished(102);
  EXPECT_TRUE(Exists(MediumFileName(dir.path(), 102)));  // not a leftover
  TableFileCreationInfo failed = Created(dir.path(), 102, 102, handles, 0, 0);
  failed.status = Status::IOError("sync failed");
  listener.OnTableFileCreated(failed);
  EXPECT_FALSE(Exists(MediumFileName(dir.path(), 102)));
  EXPECT_TRUE(Exists(MediumFileName(dir.path(), 7)));
}

// L0's compactions note where L0 goes (the base level, for merge_level=auto);
// a compaction that changes temperatures makes the tracker read the SSTs
// again before it frees anything.
TEST(HybridKVListenerTest, CompactionBeginNotesBaseLevelAndReseeds) {
  test::ScratchDir dir("listener");
  const auto handles = WriteMediumFile(dir.path(), 7);
  HybridKVListener listener;
  listener.OnTableFileCreated(Created(dir.path(), 100, 7, handles, 0, 4));
  DbState* state = DbStateFor(dir.path());
  ASSERT_TRUE(state->tracker().seeded());

  CompactionJobInfo info;
  info.cf_id = 3;
  info.input_files = {SstPath(dir.path(), 100)};
  info.base_input_level = 0;
  info.output_level = 4;
  info.compaction_reason = CompactionReason::kLevelL0FilesNum;
  listener.OnCompactionBegin(nullptr, info);
  EXPECT_EQ(state->counters.BaseLevel(3), 4);
  EXPECT_TRUE(state->tracker().seeded());
  EXPECT_FALSE(state->CompactionsResolvePointers(3));

  info.base_input_level = 2;  // not L0's
  info.output_level = 5;
  listener.OnCompactionBegin(nullptr, info);
  info.base_input_level = 0;  // L0 into L0
  info.output_level = 0;
  listener.OnCompactionBegin(nullptr, info);
  EXPECT_EQ(state->counters.BaseLevel(3), 4);
  EXPECT_EQ(state->counters.BaseLevel(0), 0);

  info.compaction_reason = CompactionReason::kChangeTemperature;
  listener.OnCompactionBegin(nullptr, info);
  EXPECT_FALSE(state->tracker().seeded());

  // No inputs: nothing to do, and nothing read.
  CompactionJobInfo empty;
  empty.cf_id = 5;
  empty.base_input_level = 0;
  empty.output_level = 2;
  listener.OnCompactionBegin(nullptr, empty);
  EXPECT_EQ(state->counters.BaseLevel(5), 0);
}

// A DB opened with HybridKV's options, no auto compactions; closed at the
// end of the test.
class HybridKVListenerDbTest : public testing::Test {
 protected:
  void Open(double min_garbage_ratio) {
    Options options;
    options.create_if_missing = true;
    options.disable_auto_compactions = true;
    HybridOptions hybrid;
    hybrid.blob_garbage_collection_min_garbage_ratio = min_garbage_ratio;
    ASSERT_OK(ConfigureOptions(&options, hybrid));
    DB* raw = nullptr;
    ASSERT_OK(OpenDB(options, dir_.path(), &raw));
    db_.reset(raw);
  }
  void TearDown() override {
    for (ColumnFamilyHandle* cf : handles_) {
      EXPECT_OK(db_->DestroyColumnFamilyHandle(cf));
    }
    db_.reset();
  }
  CompactionJobInfo Begin(uint32_t cf_id) {
    CompactionJobInfo info;
    info.cf_id = cf_id;
    info.input_files = {dir_.Sub("000010.sst")};
    info.base_input_level = 1;
    info.output_level = 2;
    info.compaction_reason = CompactionReason::kManualCompaction;
    return info;
  }
  bool GcOn() { return db_->GetOptions().enable_blob_garbage_collection; }
  DbState* state() { return DbStateFor(dir_.path()); }

  test::ScratchDir dir_{"listener-db"};
  std::unique_ptr<DB> db_;
  std::vector<ColumnFamilyHandle*> handles_;
  HybridKVListener listener_;
};

// A compaction begins after SetOptions made its options lose pointers:
// min_blob_size at which BlobDB would take them, or another table factory.
// Its column family's compactions then resolve pointers.
TEST_F(HybridKVListenerDbTest, CompactionBeginNotesWhenPointersWouldBeLost) {
  ASSERT_NO_FATAL_FAILURE(Open(0));
  listener_.OnCompactionBegin(db_.get(), Begin(0));
  EXPECT_FALSE(state()->CompactionsResolvePointers(0));

  // Below a compaction pointer's size, but BlobDB off: nothing to lose.
  ASSERT_OK(db_->SetOptions(
      {{"enable_blob_files", "false"}, {"min_blob_size", "20"}}));
  listener_.OnCompactionBegin(db_.get(), Begin(0));
  EXPECT_FALSE(state()->CompactionsResolvePointers(0));

  ASSERT_OK(db_->SetOptions({{"enable_blob_files", "true"}}));
  listener_.OnCompactionBegin(db_.get(), Begin(0));
  EXPECT_TRUE(state()->CompactionsResolvePointers(0));

  // A column family of another table format, and one that does not exist.
  ColumnFamilyHandle* stock = nullptr;
  ASSERT_OK(db_->CreateColumnFamily(ColumnFamilyOptions(), "stock", &stock));
  handles_.push_back(stock);
  EXPECT_FALSE(state()->CompactionsResolvePointers(stock->GetID()));
  listener_.OnCompactionBegin(db_.get(), Begin(stock->GetID()));
  EXPECT_TRUE(state()->CompactionsResolvePointers(stock->GetID()));
  listener_.OnCompactionBegin(db_.get(), Begin(99));
  EXPECT_FALSE(state()->CompactionsResolvePointers(99));
}

// With the GC policy on, a finished flush or compaction switches GC off when
// the blob files it would relocate hold no garbage (here: there are none).
TEST_F(HybridKVListenerDbTest, FinishedJobsApplyTheGcPolicy) {
  ASSERT_NO_FATAL_FAILURE(Open(0.2));
  EXPECT_FALSE(GcOn());  // ConfigureOptions starts it off under the policy
  ASSERT_OK(db_->SetOptions({{"enable_blob_garbage_collection", "true"}}));
  ASSERT_TRUE(GcOn());
  FlushJobInfo flush;
  flush.cf_id = 0;
  flush.cf_name = kDefaultColumnFamilyName;
  flush.file_path = dir_.Sub("000010.sst");
  listener_.OnFlushCompleted(db_.get(), flush);
  EXPECT_FALSE(GcOn());

  ASSERT_OK(db_->SetOptions({{"enable_blob_garbage_collection", "true"}}));
  CompactionJobInfo compaction = Begin(0);
  compaction.output_files = {dir_.Sub("000011.sst")};
  compaction.output_level = 5;
  listener_.OnCompactionCompleted(db_.get(), compaction);
  EXPECT_FALSE(GcOn());
  // Trivial moves run no builder: the output level is noted here.
  EXPECT_EQ(state()->counters.DeepestLevel(0), 5);
}

// Without the policy (ratio 0) GC stays as the user set it.
TEST_F(HybridKVListenerDbTest, WithoutThePolicyGcStaysAsSet) {
  ASSERT_NO_FATAL_FAILURE(Open(0));
  ASSERT_TRUE(GcOn());
  FlushJobInfo flush;
  flush.cf_id = 0;
  flush.cf_name = kDefaultColumnFamilyName;
  flush.file_path = dir_.Sub("000010.sst");
  listener_.OnFlushCompleted(db_.get(), flush);
  EXPECT_TRUE(GcOn());
  CompactionJobInfo compaction = Begin(0);
  compaction.output_files = {dir_.Sub("000011.sst")};
  listener_.OnCompactionCompleted(db_.get(), compaction);
  EXPECT_TRUE(GcOn());
}

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
