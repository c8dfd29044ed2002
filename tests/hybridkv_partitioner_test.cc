// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// HybridKVPartitionerFactory and ResolveMergeLevel
// (table/hybridkv_partitioner.h), without a DB: which trivial moves are
// vetoed as merge levels are reported, that files are never split, and that
// the partitioner is refused beside any table factory but HybridTable.
// hybrid_placement_test.cc has the shared-factory scenario and the moves of a
// real DB; options_test.cc the merge_level=auto cases.
#include "plugin/hybridkv/table/hybridkv_partitioner.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "rocksdb/options.h"
#include "rocksdb/table.h"
#include "test_util.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

std::unique_ptr<SstPartitioner> Create(const HybridKVPartitionerFactory& f,
                                       int output_level) {
  SstPartitioner::Context context;
  context.is_full_compaction = false;
  context.is_manual_compaction = false;
  context.output_level = output_level;
  context.smallest_user_key = "a";
  context.largest_user_key = "z";
  return f.CreatePartitioner(context);
}

bool Vetoed(const HybridKVPartitionerFactory& f, int output_level) {
  return !Create(f, output_level)->CanDoTrivialMove("a", "z");
}

TEST(HybridKVPartitionerTest, NegativeMergeLevelsCountFromTheDeepestLevel) {
  EXPECT_EQ(ResolveMergeLevel(0, 6, 1), 0);
  EXPECT_EQ(ResolveMergeLevel(9, 6, 1), 9);  // as given, even past the LSM
  EXPECT_EQ(ResolveMergeLevel(-1, 4, 0), 4);
  EXPECT_EQ(ResolveMergeLevel(-3, 6, 0), 4);
  EXPECT_EQ(ResolveMergeLevel(-7, 6, 0), 0);
  EXPECT_EQ(ResolveMergeLevel(-100, 6, 0), 0);  // never above L0
  EXPECT_EQ(ResolveMergeLevel(-1, 0, 0), 0);    // an empty LSM
  // auto: -2 only with a level between the base level and the penultimate.
  EXPECT_EQ(ResolveMergeLevel(kAutoMergeLevel, 3, 0), 3);
  EXPECT_EQ(ResolveMergeLevel(kAutoMergeLevel, 4, 1), 3);
  EXPECT_EQ(ResolveMergeLevel(kAutoMergeLevel, 4, 2), 4);
}

// Until anything is configured every move below L0 is vetoed; L0 output is
// never a trivial move into a merge level.
TEST(HybridKVPartitionerTest, UnconfiguredVetoesEveryMoveBelowL0) {
  HybridKVPartitionerFactory factory;
  EXPECT_STREQ(factory.Name(), kPartitionerId);
  EXPECT_FALSE(Vetoed(factory, 0));
  for (int level = 1; level < 10; ++level) {
    EXPECT_TRUE(Vetoed(factory, level)) << level;
  }
}

TEST(HybridKVPartitionerTest, NeverSplitsFiles) {
  HybridKVPartitionerFactory factory;
  factory.SetMergeLevelAtOpen(3);
  for (int level : {0, 2, 3, 6}) {
    std::unique_ptr<SstPartitioner> partitioner = Create(factory, level);
    EXPECT_STREQ(partitioner->Name(), kPartitionerId);
    const Slice prev("a"), current("b");
    PartitionerRequest request(prev, current, 1 << 30);
    EXPECT_EQ(partitioner->ShouldPartition(request), kNotRequired) << level;
  }
}

TEST(HybridKVPartitionerTest, VetoesFromTheLowestReportedMergeLevel) {
  HybridKVPartitionerFactory factory;
  factory.SetMergeLevelAtOpen(4);
  EXPECT_FALSE(Vetoed(factory, 3));
  EXPECT_TRUE(Vetoed(factory, 4));
  EXPECT_TRUE(Vetoed(factory, 5));

  int db = 0;
  EXPECT_TRUE(factory.SetMergeLevel(&db, 0, 6));  // replaces the open's level
  EXPECT_FALSE(Vetoed(factory, 5));
  EXPECT_TRUE(Vetoed(factory, 6));
  EXPECT_FALSE(factory.SetMergeLevel(&db, 0, 6)) << "not new";
  EXPECT_TRUE(factory.SetMergeLevel(&db, 2, 3));
  EXPECT_TRUE(Vetoed(factory, 3));
  EXPECT_FALSE(Vetoed(factory, 2));
  EXPECT_TRUE(factory.SetMergeLevel(&db, 2, 7));  // raised: 6 is lowest now
  EXPECT_FALSE(Vetoed(factory, 5));
  EXPECT_TRUE(Vetoed(factory, 6));
  factory.SetMergeLevelAtOpen(1);  // reports win over any open
  EXPECT_FALSE(Vetoed(factory, 5));

  // Merge level 0 (everything inline from L0 on) vetoes every move below L0.
  EXPECT_TRUE(factory.SetMergeLevel(&db, 3, 0));
  EXPECT_FALSE(Vetoed(factory, 0));
  EXPECT_TRUE(Vetoed(factory, 1));
}

// A partitioner decides when its compaction starts: a later report changes
// only moves that start later.
TEST(HybridKVPartitionerTest, APartitionerKeepsItsDecision) {
  HybridKVPartitionerFactory factory;
  factory.SetMergeLevelAtOpen(5);
  std::unique_ptr<SstPartitioner> before = Create(factory, 4);
  int db = 0;
  factory.SetMergeLevel(&db, 0, 2);
  EXPECT_TRUE(before->CanDoTrivialMove("a", "z"));
  EXPECT_TRUE(Vetoed(factory, 4));
}

TEST(HybridKVPartitionerTest, RefusedBesideAnyTableFactoryButHybridTable) {
  HybridKVPartitionerFactory factory;
  const DBOptions db_options;
  ColumnFamilyOptions cf_options;
  cf_options.table_factory.reset(NewBlockBasedTableFactory());
  Status s = factory.ValidateOptions(db_options, cf_options);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("BlockBasedTable, not HybridTable"),
            std::string::npos)
      << s.ToString();
  EXPECT_NE(s.ToString().find("bottommost_level_compaction=kForce"),
            std::string::npos)
      << s.ToString();

  cf_options.table_factory.reset();
  s = factory.ValidateOptions(db_options, cf_options);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("is none"), std::string::npos) << s.ToString();

  cf_options.table_factory = NewHybridTableFactory();
  EXPECT_OK(factory.ValidateOptions(db_options, cf_options));
}

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
