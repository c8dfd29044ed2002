// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// Several db_paths and cf_paths, as RocksDB users set them: flushes write SSTs
// and medium files in a column family's first path, compactions may write
// SSTs in any. A medium file lives as long as an SST in any of the paths
// points into it, across reopens, and goes with DestroyDB.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "plugin/hybridkv/blob/io/rocksdb_compat.h"
#include "plugin/hybridkv/include/hybridkv/hybridkv.h"
#include "plugin/hybridkv/tests/test_util.h"
#include "rocksdb/db.h"
#include "rocksdb/utilities/checkpoint.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

std::string Key(int i) { return "key" + std::to_string(100000 + i); }
std::string Medium(int i) {
  return std::string(200, static_cast<char>('a' + i % 26));
}

size_t MediumFiles(const std::string& dir) {
  return test::MediumFileNumbers(dir).size();
}

class SeveralPathsTest : public testing::Test {
 protected:
  SeveralPathsTest()
      : db_dir_(dir_.Sub("db")), first_(dir_.Sub("fast")),
        second_(dir_.Sub("slow")) {}

  Options MakeOptions() {
    Options options;
    options.create_if_missing = true;
    HybridOptions hybrid;
    hybrid.table.merge_level = 6;  // L1 keeps pointers
    EXPECT_OK(ConfigureOptions(&options, hybrid));
    options.disable_auto_compactions = true;  // the test places the SSTs
    options.db_paths = {DbPath(first_, 1 << 20), DbPath(second_, 1 << 30)};
    return options;
  }

  void Open() {
    db_.reset();
    DB* raw = nullptr;
    ASSERT_OK(hybridkv::OpenDB(MakeOptions(), db_dir_, &raw));
    db_.reset(raw);
  }

  // An SST of medium pointers in the second path: flushed into the first,
  // then compacted to L1 (above the merge level) into path 1.
  void WritePointersIntoSecondPath() {
    for (int i = 0; i < 1000; ++i) {
      ASSERT_OK(db_->Put(WriteOptions(), Key(i), Medium(i)));
    }
    ASSERT_OK(db_->Flush(FlushOptions()));
    ASSERT_EQ(test::FilesWithSuffix(first_, ".sst").size(), 1u);
    ASSERT_EQ(MediumFiles(first_), 1u);
    ASSERT_OK(db_->CompactFiles(CompactionOptions(),
                                test::FilesAt(db_.get(), 0),
                                /*output_level=*/1, /*output_path_id=*/1));
    ASSERT_TRUE(test::Eventually(
        [&] { return test::FilesWithSuffix(first_, ".sst").empty(); }));
    ASSERT_EQ(test::FilesWithSuffix(second_, ".sst").size(), 1u);
  }

  void ExpectAllValues() {
    for (int i = 0; i < 1000; ++i) {
      std::string v;
      ASSERT_OK(db_->Get(ReadOptions(), Key(i), &v)) << i;
      ASSERT_EQ(v, Medium(i)) << i;
    }
  }

  test::ScratchDir dir_{"several-paths"};
  const std::string db_dir_;
  const std::string first_;
  const std::string second_;
  std::unique_ptr<DB> db_;
};

// The medium file stays while an SST in the second path points into it, in
// this session and after reopens (whose seeding reads the second path too),
// and goes once a compaction into the merge level writes the values back.
TEST_F(SeveralPathsTest, MediumFilesLiveWhileAnSstInAnyPathPointsIntoThem) {
  ASSERT_NO_FATAL_FAILURE(Open());
  ASSERT_NO_FATAL_FAILURE(WritePointersIntoSecondPath());
  HybridStatistics stats;
  ASSERT_OK(GetStatistics(db_.get(), &stats));
  EXPECT_EQ(stats.medium_pointers, 1000u);
  EXPECT_EQ(stats.live_medium_files, 1u);
  ASSERT_NO_FATAL_FAILURE(ExpectAllValues());
  for (int reopen = 0; reopen < 2; ++reopen) {
    ASSERT_NO_FATAL_FAILURE(Open());
    // A flush makes the tracker seed: it must count the second path's SST.
    ASSERT_OK(db_->Put(WriteOptions(), "other", "small"));
    ASSERT_OK(db_->Flush(FlushOptions()));
    ASSERT_OK(db_->WaitForCompact(WaitForCompactOptions()));
    EXPECT_EQ(MediumFiles(first_), 1u) << "reopen " << reopen;
    ASSERT_NO_FATAL_FAILURE(ExpectAllValues());
  }
  EXPECT_EQ(MediumFiles(second_), 0u);  // flushes write medium files first
  ASSERT_OK(db_->CompactFiles(CompactionOptions(), test::FilesAt(db_.get(), 1),
                              /*output_level=*/6, /*output_path_id=*/1));
  EXPECT_TRUE(test::Eventually([&] { return MediumFiles(first_) == 0; }));
  ASSERT_NO_FATAL_FAILURE(ExpectAllValues());
  ASSERT_OK(GetStatistics(db_.get(), &stats));
  EXPECT_EQ(stats.medium_pointers, 0u);
}

// GetLiveFilesStorageInfo, through HybridKV's handle, lists the medium files
// the second path's SST needs, in the first path; Checkpoint is refused by
// RocksDB itself, with its own message, as for stock BlobDB.
TEST_F(SeveralPathsTest, LiveFilesNameMediumFilesInTheFirstPath) {
  ASSERT_NO_FATAL_FAILURE(Open());
  ASSERT_NO_FATAL_FAILURE(WritePointersIntoSecondPath());
  std::unique_ptr<StackableDB> handle = NewHandle(db_.get());
  std::vector<LiveFileStorageInfo> files;
  ASSERT_OK(handle->GetLiveFilesStorageInfo(LiveFilesStorageInfoOptions(),
                                            &files));
  int mediums = 0;
  for (const LiveFileStorageInfo& f : files) {
    if (f.relative_filename.find(".medium") != std::string::npos) {
      ++mediums;
      EXPECT_EQ(f.directory, first_);
    }
  }
  EXPECT_EQ(mediums, 1);
  std::vector<std::string> names;
  uint64_t manifest_size = 0;
  ASSERT_OK(handle->GetLiveFiles(names, &manifest_size, false));
  int medium_names = 0;
  for (const std::string& n : names) {
    medium_names += n.find(".medium") != std::string::npos;
  }
  EXPECT_EQ(medium_names, 1);
  Status s = CreateCheckpoint(db_.get(), dir_.Sub("checkpoint"));
  EXPECT_TRUE(s.IsNotSupported()) << s.ToString();
  EXPECT_NE(s.ToString().find("db_paths / cf_paths not supported"),
            std::string::npos)
      << s.ToString();
}

// DestroyDB removes HybridKV's files from every path, not only the DB's
// directory.
TEST_F(SeveralPathsTest, DestroyDBRemovesMediumFilesAndSecretFromEveryPath) {
  ASSERT_NO_FATAL_FAILURE(Open());
  ASSERT_NO_FATAL_FAILURE(WritePointersIntoSecondPath());
  db_.reset();
  ASSERT_EQ(MediumFiles(first_), 1u);
  ASSERT_OK(hybridkv::DestroyDB(db_dir_, MakeOptions()));
  for (const std::string& dir : {db_dir_, first_, second_}) {
    EXPECT_FALSE(Env::Default()->FileExists(dir).ok()) << dir << " is left";
  }
}

// A column family of its own paths, the first of which another column family
// lists later: each directory belongs to one home, so its SSTs are refused
// with the reason.
TEST_F(SeveralPathsTest, ADirectoryOfTwoHomesIsRefused) {
  ASSERT_NO_FATAL_FAILURE(Open());
  ColumnFamilyOptions cf_options(MakeOptions());
  cf_options.cf_paths = {DbPath(second_, 1 << 30)};
  ColumnFamilyHandle* handle = nullptr;
  ASSERT_OK(db_->CreateColumnFamily(cf_options, "other", &handle));
  ASSERT_OK(db_->Put(WriteOptions(), handle, Key(1), Medium(1)));
  // The default column family's SSTs register the second path first.
  ASSERT_NO_FATAL_FAILURE(WritePointersIntoSecondPath());
  Status s = db_->Flush(FlushOptions(), handle);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.ToString().find("is the first path of one column family and a "
                              "later path of another"),
            std::string::npos)
      << s.ToString();
  ASSERT_NO_FATAL_FAILURE(ExpectAllValues());
  ASSERT_OK(db_->DestroyColumnFamilyHandle(handle));
}

// Universal compaction with two cf_paths on a column family of its own: the
// same lifecycle as leveled, and values read from both paths.
TEST(SeveralCfPathsTest, UniversalColumnFamilyOverTwoPaths) {
  test::ScratchDir dir("several-cf-paths");
  Options options;
  options.create_if_missing = true;
  options.create_missing_column_families = true;
  HybridOptions hybrid;
  hybrid.table.merge_level = 3;  // the last level: L1 keeps pointers
  ASSERT_OK(ConfigureOptions(&options, hybrid));
  ColumnFamilyOptions cf_options(options);
  cf_options.compaction_style = kCompactionStyleUniversal;
  cf_options.num_levels = 4;
  cf_options.disable_auto_compactions = true;
  const std::string first = dir.Sub("cf-first");
  const std::string second = dir.Sub("cf-second");
  cf_options.cf_paths = {DbPath(first, 1 << 20), DbPath(second, 1 << 30)};
  std::vector<ColumnFamilyDescriptor> families = {
      {kDefaultColumnFamilyName, ColumnFamilyOptions(options)},
      {"universal", cf_options}};
  std::vector<ColumnFamilyHandle*> handles;
  DB* raw = nullptr;
  ASSERT_OK(hybridkv::OpenDB(DBOptions(options), dir.Sub("db"), families,
                             &handles, &raw));
  std::unique_ptr<DB> db(raw);
  for (int i = 0; i < 1000; ++i) {
    ASSERT_OK(db->Put(WriteOptions(), handles[1], Key(i), Medium(i)));
  }
  ASSERT_OK(db->Flush(FlushOptions(), handles[1]));
  ASSERT_EQ(MediumFiles(first), 1u);
  ColumnFamilyMetaData meta;
  db->GetColumnFamilyMetaData(handles[1], &meta);
  std::vector<std::string> flushed;
  for (const SstFileMetaData& f : meta.levels[0].files) {
    flushed.push_back(f.name);
  }
  ASSERT_EQ(flushed.size(), 1u);
  ASSERT_OK(db->CompactFiles(CompactionOptions(), handles[1], flushed,
                             /*output_level=*/1, /*output_path_id=*/1));
  EXPECT_EQ(test::FilesWithSuffix(second, ".sst").size(), 1u);
  EXPECT_EQ(MediumFiles(first), 1u);
  for (int i = 0; i < 1000; i += 7) {
    std::string v;
    ASSERT_OK(db->Get(ReadOptions(), handles[1], Key(i), &v)) << i;
    ASSERT_EQ(v, Medium(i)) << i;
  }
  CompactRangeOptions cro;
  cro.bottommost_level_compaction = BottommostLevelCompaction::kForce;
  ASSERT_OK(db->CompactRange(cro, handles[1], nullptr, nullptr));
  EXPECT_TRUE(test::Eventually([&] { return MediumFiles(first) == 0; }));
  for (int i = 0; i < 1000; i += 7) {
    std::string v;
    ASSERT_OK(db->Get(ReadOptions(), handles[1], Key(i), &v)) << i;
    ASSERT_EQ(v, Medium(i)) << i;
  }
  for (ColumnFamilyHandle* h : handles) {
    ASSERT_OK(db->DestroyColumnFamilyHandle(h));
  }
}

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
