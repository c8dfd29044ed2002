// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// Remote compaction (compaction_service + DB::OpenAndCompact) with the large
// class off: the worker writes pointer and inline outputs in its own
// directory; the primary installs them with no table-file event, and counts
// their references before the inputs go. The worker runs in this process,
// as RocksDB's own tests run it, sharing HybridKV's per-DB state with the
// primary: the hostile case.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "plugin/hybridkv/blob/io/rocksdb_compat.h"
#include "plugin/hybridkv/include/hybridkv/hybridkv.h"
#include "plugin/hybridkv/tests/test_util.h"
#include "rocksdb/db.h"

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

HybridOptions Hybrid() {
  HybridOptions hybrid;
  hybrid.enable_blob_files = false;  // RocksDB installs no remote blob file
  hybrid.table.merge_level = 6;      // L1 keeps pointers, L6 inlines
  return hybrid;
}

// Runs each compaction with DB::OpenAndCompact, on the waiting thread, in a
// directory of its own, with the options HybridKV configures.
class InProcessCompactionService : public CompactionService {
 public:
  InProcessCompactionService(std::string db, std::string outputs)
      : db_(std::move(db)), outputs_(std::move(outputs)) {}
  const char* Name() const override { return "HybridKVTestRemoteService"; }

  CompactionServiceScheduleResponse Schedule(
      const CompactionServiceJobInfo& /*info*/,
      const std::string& input) override {
    std::lock_guard<std::mutex> lock(mu_);
    const std::string id = std::to_string(++next_id_);
    inputs_[id] = input;
    return CompactionServiceScheduleResponse(id,
                                             CompactionServiceJobStatus::kSuccess);
  }

  CompactionServiceJobStatus Wait(const std::string& id,
                                  std::string* result) override {
    std::string input;
    {
      std::lock_guard<std::mutex> lock(mu_);
      input = inputs_.at(id);
      inputs_.erase(id);
    }
    Options worker;
    EXPECT_OK(hybridkv::ConfigureOptions(&worker, Hybrid()));
    CompactionServiceOptionsOverride o;
    o.env = Env::Default();
    o.table_factory = worker.table_factory;
    o.sst_partitioner_factory = worker.sst_partitioner_factory;
    o.merge_operator = worker.merge_operator;
    o.compaction_filter = worker.compaction_filter;
    o.compaction_filter_factory = worker.compaction_filter_factory;
    o.listeners = worker.listeners;
    Status s = Env::Default()->CreateDirIfMissing(outputs_);
    if (s.ok()) {
      s = DB::OpenAndCompact(db_, outputs_ + "/" + id, input, result, o);
    }
    EXPECT_OK(s);
    if (!s.ok()) return CompactionServiceJobStatus::kFailure;
    completed_++;
    return CompactionServiceJobStatus::kSuccess;
  }

  int completed() const { return completed_.load(); }

 private:
  const std::string db_;
  const std::string outputs_;
  std::mutex mu_;
  int next_id_ = 0;
  std::map<std::string, std::string> inputs_;
  std::atomic<int> completed_{0};
};

class RemoteCompactionTest : public testing::Test {
 protected:
  void Open(bool auto_compactions = false) {
    db_.reset();
    Options options;
    options.create_if_missing = true;
    ASSERT_OK(ConfigureOptions(&options, Hybrid()));
    options.disable_auto_compactions = !auto_compactions;
    if (auto_compactions) {
      // L1, L2, ... from a few thousand keys, all above the merge level (L6):
      // RocksDB's compactions carry pointers.
      options.level_compaction_dynamic_level_bytes = false;
      options.write_buffer_size = 64 << 10;
      options.target_file_size_base = 64 << 10;
      options.max_bytes_for_level_base = 128 << 10;
      options.max_bytes_for_level_multiplier = 2;
    }
    options.compaction_service = service_;
    DB* raw = nullptr;
    ASSERT_OK(hybridkv::OpenDB(options, db_dir_, &raw));
    db_.reset(raw);
  }

  void ExpectAllValues() {
    for (int i = 0; i < 2000; ++i) {
      std::string v;
      ASSERT_OK(db_->Get(ReadOptions(), Key(i), &v)) << i;
      ASSERT_EQ(v, Medium(i)) << i;
    }
  }

  // Compacts every SST of `from` into `to`, remotely.
  void CompactLevel(int from, int to) {
    const int before = service_->completed();
    ASSERT_OK(db_->CompactFiles(CompactionOptions(),
                                test::FilesAt(db_.get(), from), to));
    ASSERT_OK(db_->WaitForCompact(WaitForCompactOptions()));
    ASSERT_GT(service_->completed(), before) << "the compaction ran locally";
    ASSERT_TRUE(test::FilesAt(db_.get(), from).empty());
  }

  test::ScratchDir dir_{"remote-compaction"};
  const std::string db_dir_ = dir_.Sub("db");
  std::shared_ptr<InProcessCompactionService> service_ =
      std::make_shared<InProcessCompactionService>(db_dir_,
                                                   dir_.Sub("outputs"));
  std::unique_ptr<DB> db_;
};

TEST_F(RemoteCompactionTest, OutputsAreCountedBeforeTheInputsGo) {
  ASSERT_NO_FATAL_FAILURE(Open());
  for (int half = 0; half < 2; ++half) {
    for (int i = half * 1000; i < half * 1000 + 1000; ++i) {
      ASSERT_OK(db_->Put(WriteOptions(), Key(i), Medium(i)));
    }
    ASSERT_OK(db_->Flush(FlushOptions()));
  }
  ASSERT_EQ(MediumFiles(db_dir_), 2u);

  // Pointers carried into L1 by the worker: the inputs are deleted, and the
  // outputs' references keep both medium files.
  ASSERT_NO_FATAL_FAILURE(CompactLevel(0, 1));
  EXPECT_EQ(MediumFiles(db_dir_), 2u);
  HybridStatistics stats;
  ASSERT_OK(GetStatistics(db_.get(), &stats));
  EXPECT_EQ(stats.medium_pointers, 2000u);
  ASSERT_NO_FATAL_FAILURE(ExpectAllValues());

  // A reopened primary learns the outputs from disk, as any SST.
  ASSERT_NO_FATAL_FAILURE(Open());
  ASSERT_OK(db_->Put(WriteOptions(), "small", "value"));
  ASSERT_OK(db_->Flush(FlushOptions()));  // the tracker seeds
  ASSERT_OK(db_->WaitForCompact(WaitForCompactOptions()));
  EXPECT_EQ(MediumFiles(db_dir_), 2u);
  ASSERT_NO_FATAL_FAILURE(ExpectAllValues());

  // The worker writes the values back inline at the merge level: the medium
  // files go once the inputs do.
  ASSERT_NO_FATAL_FAILURE(CompactLevel(1, 6));
  EXPECT_EQ(MediumFiles(db_dir_), 0u);
  ASSERT_OK(GetStatistics(db_.get(), &stats));
  EXPECT_EQ(stats.medium_pointers, 0u);
  ASSERT_NO_FATAL_FAILURE(ExpectAllValues());
}

// RocksDB's own compactions, picked as a DB fills, run remotely too and carry
// pointers down; every value reads back, before and after a reopen, and a
// compaction of everything into the merge level leaves no medium file.
TEST_F(RemoteCompactionTest, AutomaticCompactionsKeepEveryValue) {
  ASSERT_NO_FATAL_FAILURE(Open(/*auto_compactions=*/true));
  for (int round = 0; round < 4; ++round) {
    for (int i = 0; i < 2000; ++i) {
      ASSERT_OK(db_->Put(WriteOptions(), Key(i), Medium(i + round)));
    }
  }
  ASSERT_OK(db_->Flush(FlushOptions()));
  ASSERT_OK(db_->WaitForCompact(WaitForCompactOptions()));
  EXPECT_GT(service_->completed(), 0);
  HybridStatistics stats;
  ASSERT_OK(GetStatistics(db_.get(), &stats));
  EXPECT_GT(stats.pointers_kept, 0u);
  ASSERT_FALSE(test::FilesAt(db_.get(), 1).empty());
  for (int reopen = 0; reopen < 2; ++reopen) {
    for (int i = 0; i < 2000; ++i) {
      std::string v;
      ASSERT_OK(db_->Get(ReadOptions(), Key(i), &v)) << i;
      ASSERT_EQ(v, Medium(i + 3)) << i;
    }
    ASSERT_NO_FATAL_FAILURE(Open(/*auto_compactions=*/true));
  }
  std::vector<std::string> all;
  for (int level = 0; level < 7; ++level) {
    for (const std::string& f : test::FilesAt(db_.get(), level)) {
      all.push_back(f);
    }
  }
  ASSERT_OK(db_->CompactFiles(CompactionOptions(), all, /*output_level=*/6));
  ASSERT_OK(db_->WaitForCompact(WaitForCompactOptions()));
  EXPECT_EQ(MediumFiles(db_dir_), 0u);
  ASSERT_OK(GetStatistics(db_.get(), &stats));
  EXPECT_EQ(stats.medium_pointers, 0u);
}

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
