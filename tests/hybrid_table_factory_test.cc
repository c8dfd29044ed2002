// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// HybridTableFactory (table/hybrid_table_factory.h), without a DB, for what
// options_test.cc and rocksdb_defaults_test.cc do not cover: the builders of
// a column family whose options fail DB::Open's check are refused (and
// SstFileWriter's are not); NewTableReader refuses an SST with pointers
// outside the column family's directory, and notes the level of what it
// opens; clones share what builders learned of table tails; merge levels and
// value classes at their edges.
#include "plugin/hybridkv/table/hybrid_table_factory.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "hybrid_table_harness.h"
#include "rocksdb/compaction_filter.h"
#include "test_util.h"
#include "utilities/merge_operators.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

using test::HybridTableHarness;

std::string Key(int i) { return "key" + std::to_string(100000 + i); }
std::string Medium(int i) {
  return std::string(300, static_cast<char>('a' + i % 26));
}

bool Exists(const std::string& path) {
  return FileSystem::Default()->FileExists(path, IOOptions(), nullptr).ok();
}

using test::KeepAll;
using test::KeepAllFactory;

// Options CreateColumnFamily or SetOptions may leave, which DB::Open would
// have refused: the builders of flushes and compactions refuse to write,
// naming the option; SstFileWriter's (kMisc) write, having no pointers to
// hand anyone.
TEST(HybridTableFactoryTest, BuildersOfOptionsOpenWouldRefuseAreRefused) {
  static KeepAll filter;
  struct Case {
    const char* mentions;
    std::function<void(Options*)> adjust;
  };
  const std::vector<Case> cases = {
      {"HybridKVMergeOperator",
       [](Options* o) {
         o->merge_operator = MergeOperators::CreateStringAppendOperator();
       }},
      {"compaction filter KeepAll",
       [](Options* o) { o->compaction_filter = &filter; }},
      {"compaction filter factory KeepAllFactory",
       [](Options* o) {
         o->compaction_filter_factory = std::make_shared<KeepAllFactory>();
       }},
      {"HybridKVPartitioner",
       [](Options* o) { o->sst_partitioner_factory = nullptr; }},
      {"HybridKVListener", [](Options* o) { o->listeners.clear(); }},
      {"paranoid_file_checks",
       [](Options* o) { o->paranoid_file_checks = true; }},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.mentions);
    test::ScratchDir dir("factory");
    HybridTableHarness h(dir.path(), HybridOptions(), c.adjust);
    for (TableFileCreationReason reason :
         {TableFileCreationReason::kFlush,
          TableFileCreationReason::kCompaction}) {
      const uint64_t number =
          reason == TableFileCreationReason::kFlush ? 10 : 11;
      auto b = h.NewBuild(number, reason, 1);
      EXPECT_FALSE(b->builder->IsEmpty());  // a flush asks its status
      b->Add(Key(0), 1, kTypeValue, Medium(0));
      EXPECT_EQ(b->builder->NumEntries(), 0u);
      Status s = b->builder->Finish();
      EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
      EXPECT_NE(s.ToString().find(
                    "refuses to write an SST of column family 'default'"),
                std::string::npos)
          << s.ToString();
      EXPECT_NE(s.ToString().find(c.mentions), std::string::npos)
          << s.ToString();
      b->file->Close(IOOptions()).PermitUncheckedError();
      EXPECT_FALSE(Exists(MediumFileName(dir.path(), number)));
    }
    auto misc = h.NewBuild(12, TableFileCreationReason::kMisc, -1);
    misc->Add(Key(0), 0, kTypeValue, Medium(0));
    EXPECT_OK(misc->Finish());
  }
  // The harness's own options pass.
  test::ScratchDir dir("factory");
  HybridTableHarness h(dir.path());
  auto b = h.NewBuild(10, TableFileCreationReason::kFlush, 0);
  b->Add(Key(0), 1, kTypeValue, Medium(0));
  EXPECT_OK(b->Finish());
}

// An SST with pointers read from outside the column family's directory is
// an import or an ingestion: refused, since no reference would count it
// among its medium files' readers. The same directory spelled through a
// symlink is the column family's own; an SST without pointers goes anywhere.
TEST(HybridTableFactoryTest, SstsWithPointersOpenOnlyInTheirDirectory) {
  test::ScratchDir source_dir("factory-source"), cf_dir("factory-cf");
  HybridTableHarness source(source_dir.path());
  auto b = source.NewBuild(20, TableFileCreationReason::kFlush, 0);
  for (int i = 0; i < 10; i++) b->Add(Key(i), 1 + i, kTypeValue, Medium(i));
  ASSERT_OK(b->Finish());
  auto plain = source.NewBuild(21, TableFileCreationReason::kFlush, 0);
  plain->Add(Key(0), 1, kTypeValue, "small");
  ASSERT_OK(plain->Finish());

  HybridTableHarness cf(cf_dir.path());
  std::unique_ptr<TableReader> reader;
  Status s = cf.Open(b->path, &reader);
  EXPECT_TRUE(s.IsNotSupported()) << s.ToString();
  EXPECT_NE(s.ToString().find(b->path), std::string::npos) << s.ToString();
  EXPECT_NE(s.ToString().find("outside the column family's paths"),
            std::string::npos)
      << s.ToString();
  EXPECT_EQ(reader, nullptr);
  EXPECT_OK(cf.Open(plain->path, &reader));
  EXPECT_NE(reader, nullptr);

  reader.reset();
  EXPECT_OK(source.Open(b->path, &reader));
  reader.reset();
  const std::string link = cf_dir.Sub("link");
  ASSERT_EQ(symlink(source_dir.path().c_str(), link.c_str()), 0);
  HybridTableHarness through_link(link);
  EXPECT_OK(through_link.Open(b->path, &reader));
}

// A table opened at a known level tells the DB's counters how deep the LSM
// goes, for negative merge levels; one of unknown level (-1) does not.
TEST(HybridTableFactoryTest, OpenNotesTheLevelOfTheTable) {
  test::ScratchDir dir("factory");
  HybridTableHarness h(dir.path());
  auto b = h.NewBuild(30, TableFileCreationReason::kFlush, 0);
  b->Add(Key(0), 1, kTypeValue, Medium(0));
  ASSERT_OK(b->Finish());
  std::unique_ptr<TableReader> reader;
  ASSERT_OK(h.Open(b->path, &reader, /*level=*/-1));
  EXPECT_EQ(h.state()->counters.DeepestLevel(0), 0);
  reader.reset();
  ASSERT_OK(h.Open(b->path, &reader, /*level=*/4));
  EXPECT_EQ(h.state()->counters.DeepestLevel(0), 4);
}

TEST(HybridTableFactoryTest, MergeLevelsParseAtTheirEdges) {
  int level = 0;
  ASSERT_OK(ParseMergeLevel("auto", &level));
  EXPECT_EQ(level, kAutoMergeLevel);
  EXPECT_EQ(MergeLevelToString(level), "auto");
  for (int want : {0, 3, -1, -7, std::numeric_limits<int>::max(),
                   std::numeric_limits<int>::min() + 1}) {
    ASSERT_OK(ParseMergeLevel(std::to_string(want), &level)) << want;
    EXPECT_EQ(level, want);
    EXPECT_EQ(MergeLevelToString(level), std::to_string(want));
  }
  level = 5;
  for (const char* bad :
       {"", "x", "3x", "1.5", "AUTO", "99999999999999999999", "2147483648",
        "-2147483648"}) {  // the last is kAutoMergeLevel's value
    Status s = ParseMergeLevel(bad, &level);
    EXPECT_TRUE(s.IsInvalidArgument()) << bad;
    EXPECT_NE(s.ToString().find("merge_level"), std::string::npos) << bad;
    EXPECT_EQ(level, 5) << bad;
  }
}

TEST(HybridTableFactoryTest, ValueClassesAtTheirEdges) {
  HybridTableOptions by_size;
  EXPECT_EQ(by_size.Classify(10, 0), ValueClass::kSmall);
  EXPECT_EQ(by_size.Classify(10, 95), ValueClass::kSmall);
  EXPECT_EQ(by_size.Classify(10, 96), ValueClass::kMedium);
  EXPECT_EQ(by_size.Classify(10000, 999), ValueClass::kMedium);
  EXPECT_EQ(by_size.Classify(0, 1000), ValueClass::kLarge);

  HybridTableOptions by_ratio;
  by_ratio.classify_by = ClassifyBy::kRatio;
  by_ratio.small_medium_ratio = 0.25;
  by_ratio.medium_large_ratio = 0.125;
  EXPECT_EQ(by_ratio.Classify(26, 74), ValueClass::kSmall);   // 0.26
  EXPECT_EQ(by_ratio.Classify(25, 75), ValueClass::kMedium);  // 0.25
  EXPECT_EQ(by_ratio.Classify(13, 87), ValueClass::kMedium);  // 0.13
  EXPECT_EQ(by_ratio.Classify(1, 7), ValueClass::kLarge);     // 0.125
  EXPECT_EQ(by_ratio.Classify(0, 100), ValueClass::kLarge);
  EXPECT_EQ(by_ratio.Classify(100, 0), ValueClass::kSmall);
  EXPECT_EQ(by_ratio.Classify(0, 0), ValueClass::kLarge);  // no division by 0
}

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
