// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// The live-file list every copy of a DB uses (plugin/live_files.h), on a small
// DB: which medium files a list of SSTs needs, and the secret; the errors
// that keep a copy from being made incomplete (an SST that cannot be read,
// pointers without the secret, a referenced medium file missing); the
// entries added to RocksDB's list; the references of the live SSTs, in this
// session and after a reopen. deployability_test.cc copies DBs with them.
#include "plugin/hybridkv/plugin/live_files.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "file/filename.h"
#include "plugin/hybridkv/blob/io/rocksdb_compat.h"
#include "plugin/hybridkv/blob/lifecycle/db_secret.h"
#include "plugin/hybridkv/blob/medium/medium_file.h"
#include "rocksdb/file_checksum.h"
#include "test_util.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

constexpr int kMediumKeys = 50;

uint64_t FileSize(const std::string& path) {
  uint64_t size = 0;
  EXPECT_OK(
      FileSystem::Default()->GetFileSize(path, IOOptions(), &size, nullptr));
  return size;
}

// A DB of two SSTs: medium_sst_, whose kMediumKeys values are medium, and
// small_sst_, which points nowhere.
class LiveFilesTest : public testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(Open());
    for (int i = 0; i < kMediumKeys; i++) {
      ASSERT_OK(db_->Put(WriteOptions(), "m" + std::to_string(1000 + i),
                         std::string(300, 'm')));
    }
    ASSERT_OK(db_->Flush(FlushOptions()));
    ASSERT_OK(db_->Put(WriteOptions(), "s", "small"));
    ASSERT_OK(db_->Flush(FlushOptions()));
    std::vector<LiveFileMetaData> files;
    db_->GetLiveFilesMetaData(&files);
    ASSERT_EQ(files.size(), 2u);
    medium_sst_ = std::min(files[0].file_number, files[1].file_number);
    small_sst_ = std::max(files[0].file_number, files[1].file_number);
    ASSERT_TRUE(Exists(MediumFileName(dir_.path(), medium_sst_)));
    ASSERT_FALSE(Exists(MediumFileName(dir_.path(), small_sst_)));
  }
  void Open() {
    Options options;
    options.create_if_missing = true;
    options.disable_auto_compactions = true;
    ASSERT_OK(ConfigureOptions(&options));
    DB* raw = nullptr;
    ASSERT_OK(OpenDB(options, dir_.path(), &raw));
    db_.reset(raw);
  }
  static bool Exists(const std::string& path) {
    return FileSystem::Default()->FileExists(path, IOOptions(), nullptr).ok();
  }

  test::ScratchDir dir_{"live-files"};
  std::unique_ptr<DB> db_;
  uint64_t medium_sst_ = 0;
  uint64_t small_sst_ = 0;
};

TEST_F(LiveFilesTest, FindsTheMediumFilesOfTheListedSstsAndTheSecret) {
  HybridKVFiles found;
  ASSERT_OK(FindHybridKVFiles(db_.get(), dir_.path(), {medium_sst_, small_sst_},
                              &found));
  EXPECT_EQ(found.dir, dir_.path());
  EXPECT_EQ(found.medium_numbers, std::set<uint64_t>{medium_sst_});
  EXPECT_TRUE(found.has_secret);

  HybridKVFiles small_only;
  ASSERT_OK(
      FindHybridKVFiles(db_.get(), dir_.path(), {small_sst_}, &small_only));
  EXPECT_TRUE(small_only.medium_numbers.empty());
  EXPECT_TRUE(small_only.has_secret);  // the DB has one: copies take it

  // From RocksDB's own list: only its SSTs count.
  std::vector<LiveFileStorageInfo> rocksdb_files;
  ASSERT_OK(db_->GetLiveFilesStorageInfo(LiveFilesStorageInfoOptions(),
                                         &rocksdb_files));
  std::vector<HybridKVFiles> listed;
  ASSERT_OK(FindHybridKVFiles(db_.get(), rocksdb_files, &listed));
  ASSERT_EQ(listed.size(), 1u);  // one home
  EXPECT_EQ(listed[0].dir, dir_.path());
  EXPECT_EQ(listed[0].medium_numbers, std::set<uint64_t>{medium_sst_});
  EXPECT_TRUE(listed[0].has_secret);
  std::vector<LiveFileStorageInfo> no_ssts;
  for (const auto& f : rocksdb_files) {
    if (f.file_type != kTableFile) no_ssts.push_back(f);
  }
  std::vector<HybridKVFiles> none;
  ASSERT_OK(FindHybridKVFiles(db_.get(), no_ssts, &none));
  ASSERT_EQ(none.size(), 1u);  // the default column family's home
  EXPECT_TRUE(none[0].medium_numbers.empty());
  EXPECT_TRUE(none[0].has_secret);
}

// A copy is never made without what its SSTs need: an SST that cannot be
// read, or pointers without the secret, fail the listing.
TEST_F(LiveFilesTest, IncompleteCopiesAreRefused) {
  HybridKVFiles found;
  Status s =
      FindHybridKVFiles(db_.get(), dir_.path(), {medium_sst_, 999999}, &found);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find(MakeTableFileName(dir_.path(), 999999)),
            std::string::npos)
      << s.ToString();

  const std::string secret = dir_.Sub(kSecretFileName);
  const std::string aside = dir_.Sub("secret-aside");
  ASSERT_EQ(std::rename(secret.c_str(), aside.c_str()), 0);
  HybridKVFiles without;
  s = FindHybridKVFiles(db_.get(), dir_.path(), {medium_sst_}, &without);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find(kSecretFileName), std::string::npos);
  // Nothing needs it for an SST without pointers.
  HybridKVFiles small_only;
  EXPECT_OK(
      FindHybridKVFiles(db_.get(), dir_.path(), {small_sst_}, &small_only));
  EXPECT_FALSE(small_only.has_secret);
  ASSERT_EQ(std::rename(aside.c_str(), secret.c_str()), 0);
}

TEST_F(LiveFilesTest, AppendedEntriesNameMediumFilesAndTheSecret) {
  HybridKVFiles found;
  ASSERT_OK(FindHybridKVFiles(db_.get(), dir_.path(), {medium_sst_}, &found));
  for (bool checksums : {true, false}) {
    SCOPED_TRACE(checksums);
    std::vector<LiveFileStorageInfo> files(1);  // appended after what is there
    ASSERT_OK(AppendHybridKVFiles(db_.get(), found, checksums, &files));
    ASSERT_EQ(files.size(), 3u);
    const LiveFileStorageInfo& medium = files[1];
    EXPECT_EQ(medium.relative_filename,
              std::to_string(medium_sst_) + kMediumFileSuffix);
    EXPECT_EQ(medium.directory, dir_.path());
    EXPECT_EQ(medium.file_number, medium_sst_);
    EXPECT_EQ(medium.file_type, kBlobFile);
    EXPECT_EQ(medium.size, FileSize(MediumFileName(dir_.path(), medium_sst_)));
    EXPECT_GT(medium.size, kMediumKeys * 300u);
    EXPECT_EQ(medium.file_checksum_func_name,
              checksums ? kUnknownFileChecksumFuncName : "");
    EXPECT_EQ(medium.file_checksum, "");
    const LiveFileStorageInfo& secret = files[2];
    EXPECT_EQ(secret.relative_filename, kSecretFileName);
    EXPECT_EQ(secret.directory, dir_.path());
    EXPECT_EQ(secret.file_type, kIdentityFile);
    EXPECT_EQ(secret.size, FileSize(dir_.Sub(kSecretFileName)));
  }

  HybridKVFiles missing = found;
  missing.medium_numbers.insert(424242);
  std::vector<LiveFileStorageInfo> files;
  Status s = AppendHybridKVFiles(db_.get(), missing, false, &files);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find(MediumFileName(dir_.path(), 424242)),
            std::string::npos)
      << s.ToString();

  LiveFileStorageInfo entry;
  EXPECT_FALSE(MediumFileEntry(db_.get(), dir_.path(), 424242, "424242.medium",
                               false, &entry)
                   .ok());
}

// Every live SST's references, the same whether the tracker knows the DB
// (this session wrote it) or not yet (just reopened, nothing flushed).
TEST_F(LiveFilesTest, ReadLiveSstRefsListsEveryLiveSst) {
  std::vector<std::string> homes;
  std::map<uint64_t, MediumRefs> refs;
  ASSERT_OK(ReadLiveSstRefs(db_.get(), &homes, &refs));
  EXPECT_EQ(homes, std::vector<std::string>{dir_.path()});
  ASSERT_EQ(refs.size(), 2u);
  ASSERT_EQ(refs.at(medium_sst_).size(), 1u);
  EXPECT_EQ(refs.at(medium_sst_).at(medium_sst_).pointers,
            uint64_t{kMediumKeys});
  EXPECT_TRUE(refs.at(small_sst_).empty());

  db_.reset();
  ASSERT_NO_FATAL_FAILURE(Open());
  for (bool read_unknown : {false, true}) {
    std::map<uint64_t, MediumRefs> reopened;
    ASSERT_OK(ReadLiveSstRefs(db_.get(), &homes, &reopened, read_unknown));
    ASSERT_EQ(reopened.size(), 2u);
    EXPECT_EQ(reopened.at(medium_sst_).at(medium_sst_).pointers,
              uint64_t{kMediumKeys});
    EXPECT_EQ(reopened.at(medium_sst_).at(medium_sst_).runs,
              refs.at(medium_sst_).at(medium_sst_).runs);
    EXPECT_TRUE(reopened.at(small_sst_).empty());
  }

  // An empty DB: no SSTs, its directory.
  db_.reset();
  test::ScratchDir empty_dir("live-files-empty");
  Options options;
  options.create_if_missing = true;
  ASSERT_OK(ConfigureOptions(&options));
  DB* raw = nullptr;
  ASSERT_OK(OpenDB(options, empty_dir.path(), &raw));
  std::unique_ptr<DB> empty(raw);
  refs[1] = {};
  ASSERT_OK(ReadLiveSstRefs(empty.get(), &homes, &refs));
  EXPECT_TRUE(refs.empty());
  EXPECT_EQ(homes, std::vector<std::string>{empty_dir.path()});
}

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
