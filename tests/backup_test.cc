// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// Backups (plugin/backup.cc) on a small DB, for what backup.cc itself does:
// the app metadata it writes (its documented format: the secret, the medium
// files, a crc), medium files held as "<n>.blob" through links that go when
// the backup ends, file deletions enabled again whatever happens, the
// flush_before_backup choice, a medium file that cannot be linked failing
// the backup, the restore putting the secret and medium files back under
// their names, and damaged, unknown or non-hex metadata refused before
// anything is restored. deployability_test.cc covers backups while writing,
// concurrent backups and stock backups.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "file/filename.h"
#include "plugin/hybridkv/blob/io/rocksdb_compat.h"
#include "plugin/hybridkv/blob/lifecycle/db_secret.h"
#include "plugin/hybridkv/blob/medium/medium_file.h"
#include "rocksdb/utilities/backup_engine.h"
#include "test_util.h"
#include "util/crc32c.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

constexpr int kKeys = 60;

std::string Key(int i) { return "key" + std::to_string(1000 + i); }
std::string Value(int i) {
  return std::string(300, static_cast<char>('a' + i % 26));
}

bool Exists(const std::string& path) {
  return FileSystem::Default()->FileExists(path, IOOptions(), nullptr).ok();
}

std::unique_ptr<BackupEngine> OpenEngine(const std::string& dir) {
  BackupEngine* raw = nullptr;
  EXPECT_OK(BackupEngine::Open(Env::Default(), BackupEngineOptions(dir), &raw));
  return std::unique_ptr<BackupEngine>(raw);
}

// The metadata format plugin/backup.cc documents, with a correct crc.
std::string Metadata(const std::string& first_line,
                     const std::string& secret_hex,
                     const std::string& medium_line) {
  const std::string body =
      first_line + "\nsecret " + secret_hex + "\n" + medium_line + "\n";
  char crc[16];
  snprintf(crc, sizeof(crc), "%08x",
           crc32c::Mask(crc32c::Value(body.data(), body.size())));
  return body + "crc " + crc + "\n";
}

// A DB with two flushes of medium values, and a BackupEngine beside it.
class BackupTest : public testing::Test {
 protected:
  void SetUp() override {
    options_.create_if_missing = true;
    options_.disable_auto_compactions = true;
    ASSERT_OK(ConfigureOptions(&options_));
    DB* raw = nullptr;
    ASSERT_OK(OpenDB(options_, db_dir_, &raw));
    db_.reset(raw);
    for (int flush = 0; flush < 2; flush++) {
      for (int i = flush; i < kKeys; i += 2) {
        ASSERT_OK(db_->Put(WriteOptions(), Key(i), Value(i)));
      }
      ASSERT_OK(db_->Flush(FlushOptions()));
    }
    mediums_ = test::MediumFileNumbers(db_dir_);
    ASSERT_EQ(mediums_.size(), 2u);
    engine_ = OpenEngine(backup_dir_);
  }
  void TearDown() override {
    engine_.reset();
    db_.reset();
  }

  void ExpectRestoredDb(const std::string& dir) {
    DB* raw = nullptr;
    Options options = options_;
    options.create_if_missing = false;
    ASSERT_OK(OpenDB(options, dir, &raw));
    std::unique_ptr<DB> db(raw);
    for (int i = 0; i < kKeys; i++) {
      std::string value;
      ASSERT_OK(db->Get(ReadOptions(), Key(i), &value)) << i;
      EXPECT_EQ(value, Value(i)) << i;
    }
  }
  bool FileDeletionsEnabled() {
    uint64_t enabled = 0;
    EXPECT_TRUE(
        db_->GetIntProperty("rocksdb.is-file-deletions-enabled", &enabled));
    return enabled == 1;
  }
  // The meta file of backup `id`, with its app metadata replaced.
  void ReplaceMetadata(BackupID id, const std::string& metadata) {
    engine_.reset();
    const std::string meta = backup_dir_ + "/meta/" + std::to_string(id);
    std::istringstream in(test::ReadWholeFile(meta));
    std::string out, line;
    bool replaced = false;
    while (std::getline(in, line)) {
      if (line.rfind("metadata ", 0) == 0) {
        line = "metadata " + Slice(metadata).ToString(/*hex=*/true);
        replaced = true;
      }
      out += line + "\n";
    }
    ASSERT_TRUE(replaced);
    test::WriteWholeFile(meta, out);
    engine_ = OpenEngine(backup_dir_);
  }

  test::ScratchDir dir_{"backup"};
  const std::string db_dir_ = dir_.Sub("db");
  const std::string backup_dir_ = dir_.Sub("backups");
  Options options_;
  std::unique_ptr<DB> db_;
  std::unique_ptr<BackupEngine> engine_;
  std::set<uint64_t> mediums_;
};

TEST_F(BackupTest, MetadataHoldsTheSecretAndTheMediumFiles) {
  ASSERT_OK(hybridkv::CreateNewBackup(engine_.get(), db_.get()));
  BackupInfo info;
  ASSERT_OK(engine_->GetBackupInfo(1, &info, /*include_file_details=*/true));
  std::string medium_line = "medium";
  for (uint64_t n : mediums_) medium_line += " " + std::to_string(n);
  const std::string secret =
      test::ReadWholeFile(db_dir_ + "/" + kSecretFileName);
  ASSERT_FALSE(secret.empty());
  EXPECT_EQ(
      info.app_metadata,
      Metadata("hybridkv-backup 1", Slice(secret).ToString(true), medium_line));

  // Each medium file is in the backup under its alias, a blob file's name.
  std::set<uint64_t> held;
  for (const BackupFileInfo& f : info.file_details) {
    EXPECT_EQ(f.relative_filename.find(".medium"), std::string::npos)
        << f.relative_filename;
    const std::string name =
        f.relative_filename.substr(f.relative_filename.rfind('/') + 1);
    for (uint64_t n : mediums_) {
      char prefix[32];
      snprintf(prefix, sizeof(prefix), "%06llu",
               static_cast<unsigned long long>(n));
      if (name.rfind(prefix, 0) == 0 && name.size() > 5 &&
          name.substr(name.size() - 5) == ".blob") {
        held.insert(n);
        uint64_t size = 0;
        ASSERT_OK(FileSystem::Default()->GetFileSize(
            MediumFileName(db_dir_, n), IOOptions(), &size, nullptr));
        EXPECT_EQ(f.size, size) << f.relative_filename;
      }
    }
  }
  EXPECT_EQ(held, mediums_);
}

// The alias links live only while the backup runs; file deletions are
// enabled again after it.
TEST_F(BackupTest, LinksGoAndFileDeletionsResumeAfterTheBackup) {
  ASSERT_TRUE(FileDeletionsEnabled());
  ASSERT_OK(hybridkv::CreateNewBackup(engine_.get(), db_.get()));
  EXPECT_TRUE(FileDeletionsEnabled());
  for (uint64_t n : mediums_) {
    EXPECT_FALSE(Exists(BlobFileName(db_dir_, n))) << n;
    EXPECT_TRUE(Exists(MediumFileName(db_dir_, n))) << n;
    EXPECT_GT(test::AllocatedBytes(MediumFileName(db_dir_, n)), 0u);
  }
  EXPECT_TRUE(test::FilesWithSuffix(db_dir_, ".blob").empty());
}

// A medium file that cannot be linked under its alias fails the backup:
// nothing is backed up, and file deletions are enabled again.
TEST_F(BackupTest, AMediumFileThatCannotBeLinkedFailsTheBackup) {
  const uint64_t lost = *mediums_.begin();
  const std::string path = MediumFileName(db_dir_, lost);
  const std::string aside = dir_.Sub("aside");
  ASSERT_EQ(std::rename(path.c_str(), aside.c_str()), 0);
  BackupID id = 0;
  Status s = hybridkv::CreateNewBackup(engine_.get(), db_.get(), {}, &id);
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(FileDeletionsEnabled());
  std::vector<BackupInfo> infos;
  engine_->GetBackupInfo(&infos);
  EXPECT_TRUE(infos.empty());
  ASSERT_EQ(std::rename(aside.c_str(), path.c_str()), 0);
  for (uint64_t n : mediums_) EXPECT_FALSE(Exists(BlobFileName(db_dir_, n)));
  ASSERT_OK(hybridkv::CreateNewBackup(engine_.get(), db_.get(), {}, &id));
  EXPECT_EQ(id, 1u);
}

// The restore puts the secret and the medium files back under their own
// names, and the DB reads every value.
TEST_F(BackupTest, RestorePutsTheSecretAndMediumFilesBack) {
  ASSERT_OK(hybridkv::CreateNewBackup(engine_.get(), db_.get()));
  ASSERT_OK(hybridkv::VerifyBackup(engine_.get(), 1));
  const std::string restored = dir_.Sub("restored");
  ASSERT_OK(
      hybridkv::RestoreDBFromBackup(engine_.get(), 1, restored, restored));
  EXPECT_EQ(test::ReadWholeFile(restored + "/" + kSecretFileName),
            test::ReadWholeFile(db_dir_ + "/" + kSecretFileName));
  EXPECT_EQ(test::MediumFileNumbers(restored), mediums_);
  for (uint64_t n : mediums_) {
    EXPECT_FALSE(Exists(BlobFileName(restored, n))) << n;
    EXPECT_EQ(test::ReadWholeFile(MediumFileName(restored, n)),
              test::ReadWholeFile(MediumFileName(db_dir_, n)));
  }
  ASSERT_NO_FATAL_FAILURE(ExpectRestoredDb(restored));
}

// Without flush_before_backup the memtable is not flushed: its values reach
// the restored DB through the WAL, and no new medium file is backed up.
// With it, they are flushed first and the new medium file is backed up.
TEST_F(BackupTest, FlushBeforeBackupDecidesWhereUnflushedValuesGo) {
  ASSERT_OK(db_->Put(WriteOptions(), Key(kKeys), Value(kKeys)));
  CreateBackupOptions no_flush;
  no_flush.flush_before_backup = false;
  ASSERT_OK(hybridkv::CreateNewBackup(engine_.get(), db_.get(), no_flush));
  EXPECT_EQ(test::MediumFileNumbers(db_dir_), mediums_);

  CreateBackupOptions flush;
  flush.flush_before_backup = true;
  ASSERT_OK(hybridkv::CreateNewBackup(engine_.get(), db_.get(), flush));
  const std::set<uint64_t> after = test::MediumFileNumbers(db_dir_);
  ASSERT_EQ(after.size(), 3u);

  for (BackupID id : {1u, 2u}) {
    SCOPED_TRACE(id);
    const std::string restored = dir_.Sub("restored" + std::to_string(id));
    ASSERT_OK(
        hybridkv::RestoreDBFromBackup(engine_.get(), id, restored, restored));
    EXPECT_EQ(test::MediumFileNumbers(restored), id == 1 ? mediums_ : after);
    DB* raw = nullptr;
    Options options = options_;
    options.create_if_missing = false;
    ASSERT_OK(OpenDB(options, restored, &raw));
    std::unique_ptr<DB> db(raw);
    std::string value;
    ASSERT_OK(db->Get(ReadOptions(), Key(kKeys), &value));
    EXPECT_EQ(value, Value(kKeys));
  }
}

// Metadata is checked before anything is restored: a damaged crc, an
// unknown version, a secret that is not hex.
TEST_F(BackupTest, BadMetadataIsRefusedBeforeRestoring) {
  ASSERT_OK(hybridkv::CreateNewBackup(engine_.get(), db_.get()));
  BackupInfo info;
  ASSERT_OK(engine_->GetBackupInfo(1, &info));
  std::string medium_line = "medium";
  for (uint64_t n : mediums_) medium_line += " " + std::to_string(n);
  struct Case {
    std::string metadata;
    bool not_supported;
    const char* mentions;
  };
  std::string damaged = info.app_metadata;
  damaged[damaged.find("medium") + 7] ^= 1;  // a digit of a file number
  const std::vector<Case> cases = {
      {damaged, false, "fails its checksum"},
      {info.app_metadata.substr(0, info.app_metadata.find("crc ")), false,
       "has no checksum"},
      {Metadata("hybridkv-backup 2", "00", medium_line), true,
       "metadata version 2"},
      {Metadata("hybridkv-backup 1", "not-hex", medium_line), false, "not hex"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.mentions);
    ASSERT_NO_FATAL_FAILURE(ReplaceMetadata(1, c.metadata));
    Status s = hybridkv::VerifyBackup(engine_.get(), 1);
    EXPECT_EQ(s.IsNotSupported(), c.not_supported) << s.ToString();
    EXPECT_EQ(s.IsCorruption(), !c.not_supported) << s.ToString();
    EXPECT_NE(s.ToString().find(c.mentions), std::string::npos) << s.ToString();
    const std::string restored = dir_.Sub("refused");
    s = hybridkv::RestoreDBFromBackup(engine_.get(), 1, restored, restored);
    EXPECT_FALSE(s.ok());
    EXPECT_FALSE(Exists(restored + "/CURRENT"));
  }
  // The original metadata restores.
  ASSERT_NO_FATAL_FAILURE(ReplaceMetadata(1, info.app_metadata));
  const std::string restored = dir_.Sub("restored");
  ASSERT_OK(
      hybridkv::RestoreDBFromLatestBackup(engine_.get(), restored, restored));
  ASSERT_NO_FATAL_FAILURE(ExpectRestoredDb(restored));
}

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
