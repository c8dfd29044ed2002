// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// The registrar (plugin/hybridkv_registrar.cc), without a DB: every id it
// registers creates its component through the ObjectRegistry, as options
// strings and OPTIONS files name them; NewHybridTableFactory takes the table
// options given; ConfigureOptions sets the companions once, wrapping the
// user's merge operator and compaction filter (or factory) and keeping
// what is already HybridKV's. options_test.cc covers the values
// ConfigureOptions derives and what it rejects.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "plugin/hybridkv/compaction_filter/wrappers.h"
#include "plugin/hybridkv/plugin/hybridkv_listener.h"
#include "plugin/hybridkv/table/hybrid_table_factory.h"
#include "plugin/hybridkv/table/hybridkv_partitioner.h"
#include "rocksdb/compaction_filter.h"
#include "rocksdb/convenience.h"
#include "rocksdb/listener.h"
#include "rocksdb/merge_operator.h"
#include "rocksdb/sst_partitioner.h"
#include "rocksdb/table.h"
#include "rocksdb/utilities/object_registry.h"
#include "test_util.h"
#include "utilities/merge_operators.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

ConfigOptions Strict() {
  ConfigOptions config;
  config.ignore_unsupported_options = false;
  config.ignore_unknown_options = false;
  return config;
}

TEST(HybridKVRegistrarTest, EveryIdCreatesItsComponent) {
  std::shared_ptr<TableFactory> table;
  ASSERT_OK(TableFactory::CreateFromString(Strict(), kHybridTableId, &table));
  ASSERT_NE(table, nullptr);
  EXPECT_STREQ(table->Name(), kHybridTableId);
  EXPECT_NE(table->CheckedCast<HybridTableFactory>(), nullptr);
  const auto* options = table->GetOptions<HybridTableOptions>();
  ASSERT_NE(options, nullptr);
  EXPECT_EQ(options->medium_min_value_size,
            HybridTableOptions().medium_min_value_size);

  std::shared_ptr<SstPartitionerFactory> partitioner;
  ASSERT_OK(SstPartitionerFactory::CreateFromString(Strict(), kPartitionerId,
                                                    &partitioner));
  ASSERT_NE(partitioner, nullptr);
  EXPECT_STREQ(partitioner->Name(), kPartitionerId);
  EXPECT_NE(partitioner->CheckedCast<HybridKVPartitionerFactory>(), nullptr);

  std::shared_ptr<EventListener> listener;
  ASSERT_OK(EventListener::CreateFromString(Strict(), kListenerId, &listener));
  ASSERT_NE(listener, nullptr);
  EXPECT_STREQ(listener->Name(), kListenerId);
  EXPECT_TRUE(listener->IsInstanceOf(kListenerId));

  // The wrappers are created too; strict parsing wants their inner
  // component named, lenient parsing (a reloaded OPTIONS file) leaves it null.
  ConfigOptions lenient = Strict();
  lenient.ignore_unsupported_options = true;
  std::shared_ptr<CompactionFilterFactory> filter;
  Status s = CompactionFilterFactory::CreateFromString(
      Strict(), kCompactionFilterId, &filter);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("inner"), std::string::npos) << s.ToString();
  ASSERT_OK(CompactionFilterFactory::CreateFromString(
      lenient, kCompactionFilterId, &filter));
  ASSERT_NE(filter, nullptr);
  EXPECT_STREQ(filter->Name(), kCompactionFilterId);
  EXPECT_EQ(filter->Inner(), nullptr);

  std::shared_ptr<MergeOperator> merge;
  s = MergeOperator::CreateFromString(Strict(), kMergeOperatorId, &merge);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("inner"), std::string::npos) << s.ToString();
  ASSERT_OK(MergeOperator::CreateFromString(lenient, kMergeOperatorId, &merge));
  ASSERT_NE(merge, nullptr);
  EXPECT_STREQ(merge->Name(), kMergeOperatorId);
  EXPECT_EQ(merge->Inner(), nullptr);

  // A new registry finds the ids too: they are in RocksDB's default library.
  std::shared_ptr<ObjectRegistry> registry = ObjectRegistry::NewInstance();
  std::unique_ptr<TableFactory> fresh;
  ASSERT_OK(registry->NewUniqueObject<TableFactory>(kHybridTableId, &fresh));
  ASSERT_NE(fresh, nullptr);
  EXPECT_STREQ(fresh->Name(), kHybridTableId);
  std::unique_ptr<MergeOperator> fresh_merge;
  ASSERT_OK(
      registry->NewUniqueObject<MergeOperator>(kMergeOperatorId, &fresh_merge));
  EXPECT_STREQ(fresh_merge->Name(), kMergeOperatorId);
}

// Options strings create the wrappers with their inner components.
TEST(HybridKVRegistrarTest, WrappersTakeTheirInnerFromOptionsStrings) {
  std::shared_ptr<MergeOperator> merge;
  ASSERT_OK(MergeOperator::CreateFromString(
      Strict(), "id=HybridKVMergeOperator;inner=stringappend", &merge));
  ASSERT_NE(merge, nullptr);
  ASSERT_NE(merge->Inner(), nullptr);
  EXPECT_TRUE(merge->Inner()->IsInstanceOf("stringappend") ||
              merge->Inner()->IsInstanceOf("StringAppendOperator"))
      << merge->Inner()->Name();

  std::shared_ptr<TableFactory> table;
  ASSERT_OK(TableFactory::CreateFromString(
      Strict(), "id=HybridTable;medium_min_value_size=200;block_size=2048",
      &table));
  EXPECT_EQ(table->GetOptions<HybridTableOptions>()->medium_min_value_size,
            200u);
  EXPECT_EQ(table->GetOptions<BlockBasedTableOptions>()->block_size, 2048u);
}

TEST(HybridKVRegistrarTest, NewHybridTableFactoryTakesTheOptionsGiven) {
  BlockBasedTableOptions bbto;
  bbto.block_size = 16 << 10;
  auto from_inner = NewHybridTableFactory(
      std::shared_ptr<TableFactory>(NewBlockBasedTableFactory(bbto)));
  EXPECT_STREQ(from_inner->Name(), kHybridTableId);
  EXPECT_EQ(from_inner->GetOptions<BlockBasedTableOptions>()->block_size,
            16u << 10);
  const std::shared_ptr<TableFactory> defaults = NewHybridTableFactory();
  EXPECT_EQ(defaults->GetOptions<BlockBasedTableOptions>()->block_size,
            BlockBasedTableOptions().block_size);

  HybridTableOptions o;
  o.medium_min_value_size = 128;
  o.medium_max_value_size = 4000;
  o.merge_level = 2;
  o.scan_prefetch = false;
  auto from_options = NewHybridTableFactory(o);
  const auto* got = from_options->GetOptions<HybridTableOptions>();
  ASSERT_NE(got, nullptr);
  EXPECT_EQ(got->medium_min_value_size, 128u);
  EXPECT_EQ(got->medium_max_value_size, 4000u);
  EXPECT_EQ(got->merge_level, 2);
  EXPECT_FALSE(got->scan_prefetch);
  // The inner's options were taken; the factory keeps none aside.
  EXPECT_EQ(got->inner, nullptr);
}

class UserListener : public EventListener {
 public:
  const char* Name() const override { return "UserListener"; }
};

using test::KeepAll;
using test::KeepAllFactory;

TEST(HybridKVRegistrarTest, ConfigureOptionsSetsEachCompanionOnce) {
  Options options;
  std::shared_ptr<MergeOperator> append =
      MergeOperators::CreateStringAppendOperator();
  options.merge_operator = append;
  auto user_listener = std::make_shared<UserListener>();
  options.listeners = {user_listener};
  ASSERT_OK(ConfigureOptions(&options));

  EXPECT_STREQ(options.table_factory->Name(), kHybridTableId);
  ASSERT_NE(options.sst_partitioner_factory, nullptr);
  EXPECT_STREQ(options.sst_partitioner_factory->Name(), kPartitionerId);
  ASSERT_NE(options.merge_operator, nullptr);
  EXPECT_STREQ(options.merge_operator->Name(), kMergeOperatorId);
  EXPECT_EQ(options.merge_operator->Inner(), append.get());
  ASSERT_EQ(options.listeners.size(), 2u);
  EXPECT_EQ(options.listeners[0], user_listener);
  EXPECT_TRUE(options.listeners[1]->IsInstanceOf(kListenerId));
  EXPECT_EQ(options.compaction_filter_factory, nullptr);

  // Again: nothing is wrapped twice, no second listener.
  const auto merge = options.merge_operator;
  ASSERT_OK(ConfigureOptions(&options));
  EXPECT_EQ(options.merge_operator, merge);
  EXPECT_EQ(options.listeners.size(), 2u);

  // A user's compaction filter factory is wrapped.
  auto factory = std::make_shared<KeepAllFactory>();
  options.compaction_filter_factory = factory;
  ASSERT_OK(ConfigureOptions(&options));
  ASSERT_NE(options.compaction_filter_factory, nullptr);
  EXPECT_STREQ(options.compaction_filter_factory->Name(), kCompactionFilterId);
  EXPECT_EQ(options.compaction_filter_factory->Inner(), factory.get());
  const auto wrapped = options.compaction_filter_factory;
  ASSERT_OK(ConfigureOptions(&options));
  EXPECT_EQ(options.compaction_filter_factory, wrapped);

  // A single compaction filter takes precedence over a factory, as in RocksDB:
  // it becomes the wrapped factory's, and the option is cleared.
  KeepAll filter;
  options.compaction_filter = &filter;
  ASSERT_OK(ConfigureOptions(&options));
  EXPECT_EQ(options.compaction_filter, nullptr);
  ASSERT_NE(options.compaction_filter_factory, nullptr);
  EXPECT_STREQ(options.compaction_filter_factory->Name(), kCompactionFilterId);
  EXPECT_NE(options.compaction_filter_factory, wrapped);
  CompactionFilter::Context context;
  context.is_full_compaction = false;
  context.is_manual_compaction = false;
  context.column_family_id = 0;
  context.reason = TableFileCreationReason::kCompaction;
  EXPECT_NE(options.compaction_filter_factory->CreateCompactionFilter(context),
            nullptr);

  // The result passes the table's own check, as DB::Open makes it.
  EXPECT_OK(options.table_factory->ValidateOptions(
      DBOptions(options), ColumnFamilyOptions(options)));
}

// A failed configuration leaves the options as they were, companions too.
TEST(HybridKVRegistrarTest, FailedConfigurationChangesNothing) {
  Options options;
  auto append = MergeOperators::CreateStringAppendOperator();
  options.merge_operator = append;
  HybridOptions bad;
  bad.table.medium_min_value_size = 10;
  EXPECT_TRUE(ConfigureOptions(&options, bad).IsInvalidArgument());
  EXPECT_EQ(options.merge_operator, append);
  EXPECT_TRUE(options.listeners.empty());
  EXPECT_EQ(options.sst_partitioner_factory, nullptr);
  EXPECT_STREQ(options.table_factory->Name(), "BlockBasedTable");
}

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
