// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// RocksDB's defaults and its age-based compactions hold for HybridTable: what
// RocksDB gives only a BlockBasedTable (the 30-day ttl and
// periodic_compaction_seconds, explicit TTL and periodic compaction, FIFO's
// TTL) it gives a HybridTable, which is one. Old SSTs are rewritten or dropped
// as with BlockBasedTable, and the medium files they pointed into go with them.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <set>
#include <string>
#include <thread>

#include "hybridkv/hybridkv.h"
#include "plugin/hybridkv/blob/io/rocksdb_compat.h"
#include "rocksdb/db.h"
#include "rocksdb/listener.h"
#include "rocksdb/table.h"
#include "test_util.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

constexpr uint64_t kThirtyDays = 30 * 24 * 60 * 60;

std::string Key(int i) { return "key" + std::to_string(100000 + i); }
std::string Medium(int i) { return std::string(200, 'a' + i % 26); }

// HybridKV's options for `style`, and the same with BlockBasedTable in place
// of HybridTable (and without the partitioner, which refuses other tables;
// neither changes the options compared).
void BothArms(CompactionStyle style, Options* hybrid, Options* stock) {
  Options base;
  base.create_if_missing = true;
  base.compaction_style = style;
  if (style == kCompactionStyleFIFO) {
    base.max_open_files = -1;  // FIFO's TTL needs it
  }
  *hybrid = base;
  ASSERT_OK(ConfigureOptions(hybrid, HybridOptions()));
  *stock = *hybrid;
  stock->table_factory.reset(NewBlockBasedTableFactory());
  stock->sst_partitioner_factory.reset();  // refuses a stock table
}

ColumnFamilyOptions EffectiveOptions(const Options& options,
                                     const std::string& path) {
  DB* raw = nullptr;
  Status s = hybridkv::OpenDB(options, path, &raw);
  EXPECT_OK(s);
  if (!s.ok()) return ColumnFamilyOptions();
  std::unique_ptr<DB> db(raw);
  return ColumnFamilyOptions(db->GetOptions());
}

// The effective options after open are the same as with BlockBasedTable, for
// every compaction style: RocksDB's sanitizing sees a BlockBasedTable.
TEST(RocksDBDefaultsTest, EffectiveOptionsMatchBlockBasedTable) {
  for (CompactionStyle style :
       {kCompactionStyleLevel, kCompactionStyleUniversal,
        kCompactionStyleFIFO}) {
    SCOPED_TRACE(static_cast<int>(style));
    Options hybrid, stock;
    BothArms(style, &hybrid, &stock);
    test::ScratchDir hybrid_dir("defaults-hybrid"), stock_dir("defaults-stock");
    ColumnFamilyOptions h = EffectiveOptions(hybrid, hybrid_dir.path());
    ColumnFamilyOptions b = EffectiveOptions(stock, stock_dir.path());
    EXPECT_STREQ(h.table_factory->Name(), "HybridTable");
    EXPECT_EQ(h.ttl, b.ttl);
    EXPECT_EQ(h.periodic_compaction_seconds, b.periodic_compaction_seconds);
    EXPECT_EQ(h.compaction_options_fifo.max_table_files_size,
              b.compaction_options_fifo.max_table_files_size);
    if (style != kCompactionStyleFIFO) {
      // Not 0, as RocksDB makes it for other table formats.
      EXPECT_EQ(h.ttl, kThirtyDays);
    }
    if (style == kCompactionStyleUniversal) {
      EXPECT_EQ(h.periodic_compaction_seconds, kThirtyDays);
    }
  }
}

// Explicit TTL and periodic compaction are accepted and rewrite (or, under
// FIFO, drop) SSTs older than the setting. A rewrite into the merge level
// writes their medium values back inline and frees the medium file; one above
// it carries the pointers, and the file stays while they point into it.
struct AgeCase {
  const char* name;
  CompactionStyle style;
  uint64_t ttl;
  uint64_t periodic;
  int park_level;  // leveled: where the SST waits (0: where the flush left it)
  bool frees;      // whether the age compaction frees the old medium file
};

// Counts the compactions that age started.
class AgeCompactions : public EventListener {
 public:
  void OnCompactionCompleted(DB*, const CompactionJobInfo& info) override {
    if (info.status.ok() &&
        (info.compaction_reason == CompactionReason::kTtl ||
         info.compaction_reason == CompactionReason::kPeriodicCompaction ||
         info.compaction_reason == CompactionReason::kFIFOTtl)) {
      count++;
    }
  }
  std::atomic<int> count{0};
};

class AgeCompactionTest : public testing::TestWithParam<AgeCase> {};

TEST_P(AgeCompactionTest, OldSstsAreCompactedAndTheirMediumFilesFreed) {
  const AgeCase& c = GetParam();
  Options options, unused;
  BothArms(c.style, &options, &unused);
  options.ttl = c.ttl;
  options.periodic_compaction_seconds = c.periodic;
  // Nothing else compacts: only age can.
  options.level0_file_num_compaction_trigger = 100;
  options.level0_slowdown_writes_trigger = 200;
  options.level0_stop_writes_trigger = 300;
  options.compaction_options_universal.min_merge_width = 100;
  options.compaction_options_fifo.max_table_files_size = uint64_t{1} << 40;
  options.level_compaction_dynamic_level_bytes = false;  // L5 is never "full"
  options.max_bytes_for_level_base = uint64_t{1} << 30;
  auto age = std::make_shared<AgeCompactions>();
  options.listeners.push_back(age);
  test::ScratchDir dir(std::string("age-") + c.name);
  DB* raw = nullptr;
  ASSERT_OK(hybridkv::OpenDB(options, dir.path(), &raw));
  std::unique_ptr<DB> db(raw);
  if (c.park_level > 0) {
    // Leveled TTL leaves the last non-empty level alone: put data in L6
    // first, within the SST's key range (a trivial move into the last level
    // would carry the pointers there).
    ASSERT_OK(db->Put(WriteOptions(), Key(50), "bottom"));
    ASSERT_OK(db->Flush(FlushOptions()));
    ASSERT_OK(db->CompactFiles(CompactionOptions(), test::FilesAt(db.get(), 0),
                               options.num_levels - 1));
  }
  for (int i = 0; i < 200; i++) {
    ASSERT_OK(db->Put(WriteOptions(), Key(i), Medium(i)));
  }
  ASSERT_OK(db->Flush(FlushOptions()));
  const std::set<uint64_t> old_medium = test::MediumFileNumbers(dir.path());
  ASSERT_EQ(old_medium.size(), 1u) << "the flush separates medium values";
  if (c.park_level > 0) {  // its pointers kept: the merge level is L6
    ASSERT_OK(db->CompactFiles(CompactionOptions(), test::FilesAt(db.get(), 0),
                               c.park_level));
    ASSERT_EQ(test::FilesAt(db.get(), c.park_level).size(), 1u);
  }

  // Older than the setting (file times have a resolution of one second), a
  // new flush makes RocksDB look at the files' ages.
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  ASSERT_OK(db->Put(WriteOptions(), Key(1000), "small"));
  ASSERT_OK(db->Flush(FlushOptions()));
  ASSERT_OK(db->WaitForCompact(WaitForCompactOptions()));
  EXPECT_GE(age->count.load(), 1) << "no compaction for age";

  auto old_medium_gone = [&] {
    for (uint64_t n : test::MediumFileNumbers(dir.path())) {
      if (old_medium.count(n) != 0) return false;
    }
    return true;
  };
  if (c.frees) {
    EXPECT_TRUE(test::Eventually(old_medium_gone))
        << "the old SST's medium file was not freed";
  } else {
    EXPECT_FALSE(old_medium_gone()) << "freed while pointers remain";
  }
  std::string v;
  if (c.style == kCompactionStyleFIFO) {
    // FIFO drops expired files: their keys are gone, not wrong.
    EXPECT_TRUE(db->Get(ReadOptions(), Key(7), &v).IsNotFound());
  } else {
    for (int i = 0; i < 200; i++) {
      ASSERT_OK(db->Get(ReadOptions(), Key(i), &v));
      ASSERT_EQ(v, Medium(i));
    }
  }
  ASSERT_OK(db->Get(ReadOptions(), Key(1000), &v));
  EXPECT_EQ(v, "small");
  if (!c.frees) {  // carried pointers: freed once they reach the merge level
    CompactRangeOptions full;
    full.bottommost_level_compaction = BottommostLevelCompaction::kForce;
    ASSERT_OK(db->CompactRange(full, nullptr, nullptr));
    EXPECT_TRUE(test::Eventually(old_medium_gone));
  }
}

INSTANTIATE_TEST_CASE_P(
    Styles, AgeCompactionTest,
    testing::Values(
        AgeCase{"LeveledTtl", kCompactionStyleLevel, 1, 0, 5, true},
        // Rewritten within L5 (without dynamic level sizing): the pointers
        // are carried, and the medium file stays theirs.
        AgeCase{"LeveledPeriodic", kCompactionStyleLevel, 0, 1, 5, false},
        AgeCase{"UniversalPeriodic", kCompactionStyleUniversal, 0, 1, 0, true},
        AgeCase{"FifoTtl", kCompactionStyleFIFO, 1, 0, 0, true}),
    [](const testing::TestParamInfo<AgeCase>& p) {
      return std::string(p.param.name);
    });

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
