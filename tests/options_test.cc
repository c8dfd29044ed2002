// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// HybridTable through options strings, the ObjectRegistry and OPTIONS files,
// with no code calls beyond linking the library.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "hybridkv/hybridkv.h"
#include "plugin/hybridkv/blob/io/rocksdb_compat.h"
#include "plugin/hybridkv/compaction_filter/wrappers.h"
#include "plugin/hybridkv/table/hybridkv_partitioner.h"
#include "rocksdb/comparator.h"
#include "rocksdb/convenience.h"
#include "rocksdb/db.h"
#include "rocksdb/file_checksum.h"
#include "rocksdb/metadata.h"
#include "rocksdb/table.h"
#include "rocksdb/utilities/options_util.h"
#include "table/block_based/block_based_table_factory.h"
#include "test_util.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

const char* kHybridString =
    "table_factory={id=HybridTable;inner={id=BlockBasedTable;block_size=8192}}";

// Only there to be set: ValidateOptions must refuse any compaction service.
class UnusedCompactionService : public CompactionService {
 public:
  const char* Name() const override { return "HybridKVTestUnusedService"; }
};

Status ParseCf(const std::string& opts, ColumnFamilyOptions* out) {
  ConfigOptions config;
  config.ignore_unknown_options = false;
  return GetColumnFamilyOptionsFromString(config, ColumnFamilyOptions(), opts,
                                          out);
}

// HybridTable is a BlockBasedTable: its table options are BlockBasedTable's,
// spelled directly or, as OPTIONS files of earlier versions do, inside `inner`.
TEST(OptionsTest, OptionsStringCreatesHybridTableThatIsABlockBasedTable) {
  for (const char* opts :
       {"table_factory={id=HybridTable;block_size=8192}", kHybridString}) {
    SCOPED_TRACE(opts);
    ColumnFamilyOptions cf;
    ASSERT_OK(ParseCf(opts, &cf));
    ASSERT_NE(cf.table_factory, nullptr);
    EXPECT_STREQ(cf.table_factory->Name(), "HybridTable");
    EXPECT_TRUE(cf.table_factory->IsInstanceOf("BlockBasedTable"));
    EXPECT_NE(cf.table_factory->CheckedCast<BlockBasedTableFactory>(), nullptr);
    const auto* bbto = cf.table_factory->GetOptions<BlockBasedTableOptions>();
    ASSERT_NE(bbto, nullptr);
    EXPECT_EQ(bbto->block_size, 8192u);
  }
}

TEST(OptionsTest, DefaultTableOptionsAreBlockBasedTables) {
  ColumnFamilyOptions cf;
  ASSERT_OK(ParseCf("table_factory=HybridTable", &cf));
  EXPECT_STREQ(cf.table_factory->Name(), "HybridTable");
  const auto* bbto = cf.table_factory->GetOptions<BlockBasedTableOptions>();
  ASSERT_NE(bbto, nullptr);
  EXPECT_EQ(bbto->block_size, BlockBasedTableOptions().block_size);
}

// Another table format cannot be the inner one: refused when parsed, and at
// open when given through the C++ API.
TEST(OptionsTest, OtherInnerFormatsAreRefused) {
  ColumnFamilyOptions cf;
  Status s =
      ParseCf("table_factory={id=HybridTable;inner={id=PlainTable}}", &cf);
  ASSERT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("cannot wrap PlainTable"), std::string::npos)
      << s.ToString();
  HybridOptions hybrid;
  hybrid.table.inner.reset(NewPlainTableFactory());
  Options options;
  s = ConfigureOptions(&options, hybrid);
  ASSERT_TRUE(s.IsNotSupported()) << s.ToString();
  EXPECT_NE(s.ToString().find("cannot wrap PlainTable"), std::string::npos)
      << s.ToString();
  // Set on the options without ConfigureOptions, DB::Open refuses it.
  options.create_if_missing = true;
  options.table_factory = NewHybridTableFactory(hybrid.table);
  test::ScratchDir dir("plain");
  DB* raw = nullptr;
  s = hybridkv::OpenDB(options, dir.path(), &raw);
  ASSERT_TRUE(s.IsNotSupported()) << s.ToString();
  EXPECT_NE(s.ToString().find("cannot wrap PlainTable"), std::string::npos)
      << s.ToString();
  delete raw;
}

TEST(OptionsTest, SerializeParseRoundTripIsEquivalent) {
  ColumnFamilyOptions cf;
  ASSERT_OK(ParseCf(kHybridString, &cf));
  ConfigOptions config;
  std::string serialized;
  ASSERT_OK(cf.table_factory->GetOptionString(config, &serialized));
  EXPECT_EQ(serialized.find("inner="), std::string::npos) << serialized;
  EXPECT_NE(serialized.find("block_size=8192"), std::string::npos)
      << serialized;

  std::shared_ptr<TableFactory> reparsed;
  ASSERT_OK(TableFactory::CreateFromString(
      config, "id=HybridTable;" + serialized, &reparsed));
  std::string mismatch;
  EXPECT_TRUE(
      cf.table_factory->AreEquivalent(config, reparsed.get(), &mismatch))
      << mismatch;

  // A different block size is a real difference.
  ColumnFamilyOptions other;
  ASSERT_OK(ParseCf("table_factory={id=HybridTable;block_size=4096}", &other));
  EXPECT_FALSE(cf.table_factory->AreEquivalent(
      config, other.table_factory.get(), &mismatch));
}

TEST(OptionsTest, CloneIsDeep) {
  ColumnFamilyOptions cf;
  ASSERT_OK(ParseCf(kHybridString, &cf));
  std::unique_ptr<TableFactory> clone = cf.table_factory->Clone();
  ASSERT_NE(clone, nullptr);
  EXPECT_STREQ(clone->Name(), "HybridTable");
  ConfigOptions config;
  ASSERT_OK(clone->ConfigureFromString(config, "block_size=2048"));
  EXPECT_EQ(clone->GetOptions<BlockBasedTableOptions>()->block_size, 2048u);
  ASSERT_OK(clone->ConfigureFromString(
      config, "inner={id=BlockBasedTable;block_size=1024}"));
  EXPECT_EQ(clone->GetOptions<BlockBasedTableOptions>()->block_size, 1024u);
  EXPECT_EQ(cf.table_factory->GetOptions<BlockBasedTableOptions>()->block_size,
            8192u);
}

TEST(OptionsTest, BadStringsFailWithInvalidArgument) {
  const char* bad[] = {
      // unknown inner factory id
      "table_factory={id=HybridTable;inner={id=NoSuchTable}}",
      // malformed value inside the inner factory
      "table_factory={id=HybridTable;inner={id=BlockBasedTable;block_size="
      "eight}}",
      // unknown option of HybridTable itself
      "table_factory={id=HybridTable;no_such_option=1}",
      // explicitly empty inner: never a silent null factory
      "table_factory={id=HybridTable;inner=}",
      // unbalanced braces
      "table_factory={id=HybridTable;inner={id=BlockBasedTable}",
      // a HybridTable inside a HybridTable
      "table_factory={id=HybridTable;inner={id=HybridTable}}",
  };
  for (const char* opts : bad) {
    SCOPED_TRACE(opts);
    ColumnFamilyOptions cf;
    Status s = ParseCf(opts, &cf);
    EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
    EXPECT_FALSE(s.ToString().empty());
  }
  // The message names what is wrong.
  ColumnFamilyOptions cf;
  Status s = ParseCf("table_factory={id=HybridTable;inner=}", &cf);
  EXPECT_NE(s.ToString().find("inner"), std::string::npos) << s.ToString();
  s = ParseCf("table_factory={id=HybridTable;inner={id=NoSuchTable}}", &cf);
  EXPECT_NE(s.ToString().find("NoSuchTable"), std::string::npos)
      << s.ToString();
}

// DB::Open writes an OPTIONS file naming HybridTable, re-reads it and compares
// (PersistRocksDBOptions); loading it back yields an equivalent HybridTable.
TEST(OptionsTest, OptionsFileRoundTrip) {
  test::ScratchDir dir("optfile");
  Options options;
  options.create_if_missing = true;
  ConfigOptions config;
  ASSERT_OK(GetColumnFamilyOptionsFromString(
      config, ColumnFamilyOptions(),
      std::string(kHybridString) +
          ";sst_partitioner_factory=HybridKVPartitioner",
      static_cast<ColumnFamilyOptions*>(&options)));
  ASSERT_OK(GetDBOptionsFromString(config, DBOptions(options),
                                   "listeners=HybridKVListener",
                                   static_cast<DBOptions*>(&options)));
  {
    DB* raw = nullptr;
    ASSERT_OK(hybridkv::OpenDB(options, dir.path(), &raw));
    std::unique_ptr<DB> db(raw);
    ASSERT_OK(db->Put(WriteOptions(), "key", "value"));
    ASSERT_OK(db->Flush(FlushOptions()));
    ASSERT_OK(db->Close());
  }
  std::string options_file;
  ASSERT_OK(
      GetLatestOptionsFileName(dir.path(), Env::Default(), &options_file));
  std::string text;
  ASSERT_OK(ReadFileToString(Env::Default(), dir.Sub(options_file), &text));
  EXPECT_NE(text.find("[TableOptions/HybridTable \"default\"]"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("block_size=8192"), std::string::npos);
  EXPECT_NE(text.find("HybridKVListener"), std::string::npos) << text;

  DBOptions db_opts;
  std::vector<ColumnFamilyDescriptor> cfs;
  ASSERT_OK(LoadLatestOptions(config, dir.path(), &db_opts, &cfs));
  ASSERT_EQ(cfs.size(), 1u);
  const auto& loaded = cfs[0].options.table_factory;
  EXPECT_STREQ(loaded->Name(), "HybridTable");
  EXPECT_EQ(loaded->GetOptions<BlockBasedTableOptions>()->block_size, 8192u);
  std::string mismatch;
  EXPECT_TRUE(
      options.table_factory->AreEquivalent(config, loaded.get(), &mismatch))
      << mismatch;

  // Open again with only what the OPTIONS file says, as `db_bench
  // --options_file` does.
  std::vector<ColumnFamilyHandle*> handles;
  DB* raw = nullptr;
  ASSERT_OK(hybridkv::OpenDB(db_opts, dir.path(), cfs, &handles, &raw));
  std::unique_ptr<DB> db(raw);
  std::string v;
  ASSERT_OK(db->Get(ReadOptions(), "key", &v));
  EXPECT_EQ(v, "value");
  ASSERT_OK(CheckOptionsCompatibility(config, dir.path(), db_opts, cfs));
  for (auto* h : handles) ASSERT_OK(db->DestroyColumnFamilyHandle(h));
}

// Options strings need only component ids; a missing companion fails DB::Open
// by name.
TEST(OptionsTest, MissingCompanionFailsOpenNamingIt) {
  test::ScratchDir dir("companion");
  Options options;
  options.create_if_missing = true;
  ConfigOptions config;
  ASSERT_OK(GetColumnFamilyOptionsFromString(
      config, ColumnFamilyOptions(), kHybridString,
      static_cast<ColumnFamilyOptions*>(&options)));
  DB* raw = nullptr;
  Status s = hybridkv::OpenDB(options, dir.path(), &raw);
  ASSERT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("HybridKVListener"), std::string::npos)
      << s.ToString();
  delete raw;
  ASSERT_OK(GetDBOptionsFromString(config, DBOptions(options),
                                   "listeners=HybridKVListener",
                                   static_cast<DBOptions*>(&options)));
  s = hybridkv::OpenDB(options, dir.path(), &raw);
  ASSERT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("HybridKVPartitioner"), std::string::npos)
      << s.ToString();
  delete raw;
  ASSERT_OK(GetColumnFamilyOptionsFromString(
      config, ColumnFamilyOptions(options),
      "sst_partitioner_factory=HybridKVPartitioner",
      static_cast<ColumnFamilyOptions*>(&options)));
  ASSERT_OK(hybridkv::OpenDB(options, dir.path(), &raw));
  delete raw;
}

// Removed options: max_medium_garbage_ratio drove SST rewrites that hole
// punching replaced; prepopulate_medium_cache saved almost no reads. OPTIONS
// files that set them still load, and they are not written.
TEST(OptionsTest, DeprecatedOptionsStillParse) {
  ColumnFamilyOptions cf;
  ASSERT_OK(
      ParseCf("table_factory={id=HybridTable;max_medium_garbage_ratio=0.5;"
              "prepopulate_medium_cache=true;merge_level=1}",
              &cf));
  const auto* o = cf.table_factory->GetOptions<HybridTableOptions>();
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(o->merge_level, 1);
  std::string serialized;
  ASSERT_OK(cf.table_factory->GetOptionString(ConfigOptions(), &serialized));
  EXPECT_EQ(serialized.find("max_medium_garbage_ratio"), std::string::npos)
      << serialized;
  EXPECT_EQ(serialized.find("prepopulate_medium_cache"), std::string::npos)
      << serialized;
}

// merge_level=auto is the default, and options strings spell it "auto", not
// the sentinel integer that stands for it.
TEST(OptionsTest, MergeLevelAutoRoundTrips) {
  EXPECT_EQ(HybridTableOptions().merge_level, kAutoMergeLevel);
  for (const char* spelled : {"auto", "-2", "3"}) {
    SCOPED_TRACE(spelled);
    ColumnFamilyOptions cf;
    ASSERT_OK(
        ParseCf(std::string("table_factory={id=HybridTable;merge_level=") +
                    spelled + "}",
                &cf));
    const auto* o = cf.table_factory->GetOptions<HybridTableOptions>();
    ASSERT_NE(o, nullptr);
    std::string serialized;
    ASSERT_OK(cf.table_factory->GetOptionString(ConfigOptions(), &serialized));
    EXPECT_NE(serialized.find(std::string("merge_level=") + spelled + ";"),
              std::string::npos)
        << serialized;
    int parsed = 0;
    ASSERT_OK(ParseMergeLevel(spelled, &parsed));
    EXPECT_EQ(o->merge_level, parsed);
  }
  int level = 0;
  for (const char* bad : {"", "deep", "2x", "-", "99999999999"}) {
    Status s = ParseMergeLevel(bad, &level);
    EXPECT_TRUE(s.IsInvalidArgument()) << bad;
    EXPECT_NE(s.ToString().find("auto"), std::string::npos) << s.ToString();
  }
}

// The rule merge_level=auto follows, level by level (7 levels: the deepest
// is L6, the penultimate L5).
TEST(OptionsTest, AutoMergeLevelFollowsTheBaseLevel) {
  EXPECT_EQ(ResolveMergeLevel(kAutoMergeLevel, 6, /*base_level=*/0), 6);
  EXPECT_EQ(ResolveMergeLevel(kAutoMergeLevel, 6, 6), 6);
  EXPECT_EQ(ResolveMergeLevel(kAutoMergeLevel, 6, 5), 6);
  // Base level right above the penultimate level: -1.
  EXPECT_EQ(ResolveMergeLevel(kAutoMergeLevel, 6, 4), 6);
  // One level or more between them: -2.
  EXPECT_EQ(ResolveMergeLevel(kAutoMergeLevel, 6, 3), 5);
  EXPECT_EQ(ResolveMergeLevel(kAutoMergeLevel, 6, 1), 5);
  EXPECT_EQ(ResolveMergeLevel(kAutoMergeLevel, 2, 1), 2);
  // Explicit levels do not follow it.
  EXPECT_EQ(ResolveMergeLevel(-1, 6, 1), 6);
  EXPECT_EQ(ResolveMergeLevel(-2, 6, 5), 5);
  EXPECT_EQ(ResolveMergeLevel(3, 6, 1), 3);
}

TEST(OptionsTest, BlobGcMinGarbageRatioIsATableOption) {
  ColumnFamilyOptions cf;
  ASSERT_OK(ParseCf(
      "table_factory={id=HybridTable;blob_garbage_collection_min_garbage_"
      "ratio=0.3}",
      &cf));
  const auto* table = cf.table_factory->GetOptions<HybridTableOptions>();
  ASSERT_NE(table, nullptr);
  EXPECT_DOUBLE_EQ(table->blob_garbage_collection_min_garbage_ratio, 0.3);
  std::string serialized;
  ASSERT_OK(cf.table_factory->GetOptionString(ConfigOptions(), &serialized));
  EXPECT_NE(serialized.find("blob_garbage_collection_min_garbage_ratio=0.3"),
            std::string::npos)
      << serialized;
}

TEST(OptionsTest, HybridOptionsRoundTripAndValidate) {
  ColumnFamilyOptions cf;
  ASSERT_OK(
      ParseCf("table_factory={id=HybridTable;classify_by=ratio;medium_min_"
              "value_size=64;"
              "medium_max_value_size=2000;small_medium_ratio=0.25;medium_large_"
              "ratio=0.01;"
              "merge_level=1}",
              &cf));
  const auto* o = cf.table_factory->GetOptions<HybridTableOptions>();
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(o->classify_by, ClassifyBy::kRatio);
  EXPECT_EQ(o->medium_min_value_size, 64u);
  EXPECT_EQ(o->medium_max_value_size, 2000u);
  EXPECT_DOUBLE_EQ(o->small_medium_ratio, 0.25);
  EXPECT_DOUBLE_EQ(o->medium_large_ratio, 0.01);
  EXPECT_EQ(o->merge_level, 1);
  ConfigOptions config;
  std::string serialized;
  ASSERT_OK(cf.table_factory->GetOptionString(config, &serialized));
  std::shared_ptr<TableFactory> reparsed;
  ASSERT_OK(TableFactory::CreateFromString(
      config, "id=HybridTable;" + serialized, &reparsed));
  std::string mismatch;
  EXPECT_TRUE(
      cf.table_factory->AreEquivalent(config, reparsed.get(), &mismatch))
      << mismatch;

  // ConfigureOptions rejects inconsistent settings with a message that says how
  // to fix them.
  struct Bad {
    HybridOptions h;
    const char* mentions;
  };
  std::vector<Bad> bad(5);
  bad[0].h.table.medium_min_value_size = 2000;  // empty band
  bad[0].mentions = "medium_min_value_size";
  bad[1].h.table.medium_min_value_size = 20;  // not larger than a pointer
  bad[1].mentions = "pointer";
  bad[2].h.table.classify_by = ClassifyBy::kRatio;
  bad[2].h.table.small_medium_ratio = 0.01;  // T_SM below T_ML
  bad[2].mentions = "ratio";
  bad[3].h.table.merge_level = 40;
  bad[3].mentions = "merge_level";
  bad[4].h.table.scan_prefetch_max = 0;
  bad[4].mentions = "scan_prefetch_max";
  for (const Bad& b : bad) {
    Options options;
    Status s = ConfigureOptions(&options, b.h);
    EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
    EXPECT_NE(s.ToString().find(b.mentions), std::string::npos) << s.ToString();
    EXPECT_EQ(options.table_factory->Name(),
              std::string("BlockBasedTable"));  // unchanged
  }
  // No medium class (HybridTable for scan prefetch only): the band just
  // below min_blob_size is empty.
  {
    Options options;
    HybridOptions h;
    h.table.medium_min_value_size = 1000;
    h.table.medium_max_value_size = 999;
    ASSERT_OK(ConfigureOptions(&options, h));
    EXPECT_EQ(options.min_blob_size, 1000u);
    EXPECT_EQ(h.table.Classify(8, 999), ValueClass::kSmall);
    EXPECT_EQ(h.table.Classify(8, 1000), ValueClass::kLarge);
  }
  // Unsupported combinations say so.
  {
    Options udt;
    ASSERT_OK(ConfigureOptions(&udt));
    udt.comparator = BytewiseComparatorWithU64Ts();
    EXPECT_OK(udt.table_factory->ValidateOptions(DBOptions(udt),
                                                 ColumnFamilyOptions(udt)));
    udt.persist_user_defined_timestamps = false;
    Status st = udt.table_factory->ValidateOptions(DBOptions(udt),
                                                   ColumnFamilyOptions(udt));
    EXPECT_TRUE(st.IsNotSupported()) << st.ToString();
    EXPECT_NE(st.ToString().find("persist_user_defined_timestamps"),
              std::string::npos);
    Options paranoid;
    ASSERT_OK(ConfigureOptions(&paranoid));
    paranoid.paranoid_file_checks = true;
    st = paranoid.table_factory->ValidateOptions(DBOptions(paranoid),
                                                 ColumnFamilyOptions(paranoid));
    EXPECT_TRUE(st.IsNotSupported()) << st.ToString();
    EXPECT_NE(st.ToString().find("paranoid_file_checks"), std::string::npos);
    Options remote;
    ASSERT_OK(ConfigureOptions(&remote));
    remote.compaction_service = std::make_shared<UnusedCompactionService>();
    st = remote.table_factory->ValidateOptions(DBOptions(remote),
                                               ColumnFamilyOptions(remote));
    EXPECT_TRUE(st.IsNotSupported()) << st.ToString();
    EXPECT_NE(st.ToString().find("compaction_service"), std::string::npos);
    EXPECT_NE(st.ToString().find("enable_blob_files"), std::string::npos);
    remote.enable_blob_files = false;  // the large class off: supported
    EXPECT_OK(remote.table_factory->ValidateOptions(
        DBOptions(remote), ColumnFamilyOptions(remote)));
  }
  // A min_blob_size that overlaps the medium band, set by hand.
  Options options;
  ASSERT_OK(ConfigureOptions(&options));
  EXPECT_EQ(options.min_blob_size, 1000u);
  EXPECT_TRUE(options.enable_blob_files);
  options.min_blob_size = 500;
  Status s = options.table_factory->ValidateOptions(
      DBOptions(options), ColumnFamilyOptions(options));
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("min_blob_size"), std::string::npos)
      << s.ToString();
  // Under classify_by=ratio the medium band has no fixed edge, but BlobDB
  // must still never take the pointers compactions carry: DB::Open refuses a
  // min_blob_size at or below their size, and takes one above it.
  HybridOptions ratio;
  ratio.table.classify_by = ClassifyBy::kRatio;
  Options by_ratio;
  ASSERT_OK(ConfigureOptions(&by_ratio, ratio));
  for (uint64_t min_blob_size : {uint64_t{0}, uint64_t{12}, uint64_t{51}}) {
    by_ratio.min_blob_size = min_blob_size;
    s = by_ratio.table_factory->ValidateOptions(DBOptions(by_ratio),
                                                ColumnFamilyOptions(by_ratio));
    EXPECT_TRUE(s.IsInvalidArgument()) << min_blob_size << ": " << s.ToString();
    EXPECT_NE(s.ToString().find("Set min_blob_size=52 or more"),
              std::string::npos)
        << s.ToString();
  }
  by_ratio.min_blob_size = 52;
  EXPECT_OK(by_ratio.table_factory->ValidateOptions(
      DBOptions(by_ratio), ColumnFamilyOptions(by_ratio)));
}

// The garbage share HybridKV waits for before it turns BlobDB's GC on.
double MinGarbageRatio(const Options& options) {
  const auto* table = options.table_factory->GetOptions<HybridTableOptions>();
  return table == nullptr ? -1
                          : table->blob_garbage_collection_min_garbage_ratio;
}

// The large class's policy is HybridKV's: ConfigureOptions sets BlobDB's
// garbage collection and its readahead, by default and as asked.
TEST(OptionsTest, ConfigureOptionsSetsTheLargeClassPolicy) {
  Options options;
  ASSERT_EQ(options.blob_compaction_readahead_size, 0u);  // RocksDB's default
  ASSERT_OK(ConfigureOptions(&options));
  // GC is HybridKV's to switch, by garbage (blob/blobdb/blob_gc_policy.h): it
  // starts off, and the table carries the threshold.
  EXPECT_FALSE(options.enable_blob_garbage_collection);
  EXPECT_DOUBLE_EQ(MinGarbageRatio(options), 0.2);
  EXPECT_DOUBLE_EQ(options.blob_garbage_collection_age_cutoff, 0.25);
  EXPECT_EQ(options.blob_compaction_readahead_size, uint64_t{2} << 20);

  // Ratio 0: stock GC, on from the start and never switched.
  HybridOptions stock_gc;
  stock_gc.blob_garbage_collection_min_garbage_ratio = 0;
  Options stock;
  ASSERT_OK(ConfigureOptions(&stock, stock_gc));
  EXPECT_TRUE(stock.enable_blob_garbage_collection);
  EXPECT_EQ(MinGarbageRatio(stock), 0);

  HybridOptions hybrid;
  hybrid.enable_blob_garbage_collection = false;
  hybrid.blob_garbage_collection_age_cutoff = 0.5;
  hybrid.blob_compaction_readahead_size = 0;
  Options custom;
  ASSERT_OK(ConfigureOptions(&custom, hybrid));
  EXPECT_FALSE(custom.enable_blob_garbage_collection);
  // GC disabled: nothing for HybridKV to switch on.
  EXPECT_EQ(MinGarbageRatio(custom), 0);
  EXPECT_DOUBLE_EQ(custom.blob_garbage_collection_age_cutoff, 0.5);
  EXPECT_EQ(custom.blob_compaction_readahead_size, 0u);
}

// RocksDB validates a table factory's column family only at DB::Open. A
// column family created later with a merge operator HybridKV did not wrap
// would have compactions hand it pointer bytes as the base value, and write
// what it makes of them. Its SSTs are refused instead, naming the option, and
// no read returns a wrong value.
// A new DB at `path` with hybridkv::ConfigureOptions' defaults, which it
// leaves in `*options`.
std::unique_ptr<DB> OpenConfigured(const std::string& path, Options* options) {
  options->create_if_missing = true;
  EXPECT_OK(ConfigureOptions(options));
  DB* raw = nullptr;
  EXPECT_OK(hybridkv::OpenDB(*options, path, &raw));
  return std::unique_ptr<DB>(raw);
}

TEST(OptionsTest, ColumnFamilyCreatedAfterOpenIsCheckedWhenItWrites) {
  test::ScratchDir dir("late-cf");
  Options options;
  auto db = OpenConfigured(dir.path(), &options);
  ASSERT_NE(db, nullptr);
  ColumnFamilyOptions unwrapped(options);
  ASSERT_OK(GetColumnFamilyOptionsFromString(
      ConfigOptions(), unwrapped, "merge_operator=stringappend", &unwrapped));
  ColumnFamilyHandle* cf = nullptr;
  ASSERT_OK(db->CreateColumnFamily(unwrapped, "late", &cf));
  const std::string value(300, 'v');  // a medium value
  ASSERT_OK(db->Put(WriteOptions(), cf, "key", value));
  Status s = db->Flush(FlushOptions(), cf);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("HybridKVMergeOperator"), std::string::npos)
      << s.ToString();
  // Whatever was written, a merge over the value reads as the value with
  // the operand, or as the value alone where the write was refused. The
  // merge happens in a compaction above the merge level, which hands the
  // operator the base value as it is stored.
  db->Merge(WriteOptions(), cf, "key", "x").PermitUncheckedError();
  db->Flush(FlushOptions(), cf).PermitUncheckedError();
  ColumnFamilyMetaData meta;
  db->GetColumnFamilyMetaData(cf, &meta);
  std::vector<std::string> l0;
  for (const auto& file : meta.levels[0].files) l0.push_back(file.name);
  if (!l0.empty()) {
    db->CompactFiles(CompactionOptions(), cf, l0, /*output_level=*/1)
        .PermitUncheckedError();
  }
  std::string got;
  Status g = db->Get(ReadOptions(), cf, "key", &got);
  if (g.ok()) {
    EXPECT_TRUE(got == value || got == value + ",x")
        << "read " << got.size() << " bytes: " << Slice(got).ToString(true);
  }
  ASSERT_OK(db->DestroyColumnFamilyHandle(cf));
}

// paranoid_file_checks is refused at open, and mutable: set later, the next
// flush is refused with the reason (a compaction would otherwise fail with
// "Paranoid checksums do not match" for every SST with pointers).
TEST(OptionsTest, ParanoidChecksSetAfterOpenFailTheNextFlushNamingThem) {
  test::ScratchDir dir("late-paranoid");
  Options options;
  auto db = OpenConfigured(dir.path(), &options);
  ASSERT_NE(db, nullptr);
  ASSERT_OK(db->SetOptions({{"paranoid_file_checks", "true"}}));
  ASSERT_OK(db->Put(WriteOptions(), "key", std::string(300, 'v')));
  Status s = db->Flush(FlushOptions());
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("paranoid_file_checks"), std::string::npos)
      << s.ToString();
}

// SetOptions of the inner BlockBasedTable's mutable options, spelled as for a
// BlockBasedTable DB (table_factory.<option>), reaches the wrapped table; an
// immutable one is refused as the inner refuses it; the OPTIONS file RocksDB
// writes then reopens with the new value. What HybridTable's builders
// learned survives the clone SetOptions makes.
TEST(OptionsTest, SetOptionsOfTheInnerTableReachIt) {
  test::ScratchDir dir("set-inner");
  Options options;
  auto db = OpenConfigured(dir.path(), &options);
  ASSERT_NE(db, nullptr);
  auto block_size = [](DB* d) {
    const auto* bbto =
        d->GetOptions().table_factory->GetOptions<BlockBasedTableOptions>();
    return bbto == nullptr ? 0 : bbto->block_size;
  };
  ASSERT_NE(block_size(db.get()), 16384u);
  ASSERT_OK(db->SetOptions({{"table_factory.block_size", "16384"}}));
  EXPECT_EQ(block_size(db.get()), 16384u);
  EXPECT_TRUE(db->GetOptions().table_factory->IsInstanceOf("HybridTable"));
  Status s = db->SetOptions({{"table_factory.no_such_option", "1"}});
  EXPECT_FALSE(s.ok());
  // Writes go on through the changed table.
  for (int i = 0; i < 100; i++) {
    ASSERT_OK(db->Put(WriteOptions(), "key" + std::to_string(i),
                      std::string(300, 'v')));
  }
  ASSERT_OK(db->Flush(FlushOptions()));
  std::string got;
  ASSERT_OK(db->Get(ReadOptions(), "key7", &got));
  EXPECT_EQ(got, std::string(300, 'v'));
  db.reset();
  // The OPTIONS file RocksDB wrote after SetOptions holds the new value.
  DBOptions db_options;
  std::vector<ColumnFamilyDescriptor> families;
  ConfigOptions config;
  ASSERT_OK(LoadLatestOptions(config, dir.path(), &db_options, &families));
  ASSERT_EQ(families.size(), 1u);
  const auto* bbto =
      families[0].options.table_factory->GetOptions<BlockBasedTableOptions>();
  ASSERT_NE(bbto, nullptr);
  EXPECT_EQ(bbto->block_size, 16384u);
}

// verify_output_flags (RocksDB 11): `flags` set on `o`; false where RocksDB
// has no such option.
template <typename O>
auto SetVerifyOutputFlags(O* o, bool iteration, int)
    -> decltype(o->verify_output_flags, bool()) {
  using Flags = decltype(o->verify_output_flags);
  o->verify_output_flags =
      (iteration ? Flags::kVerifyIteration : Flags::kVerifyBlockChecksum) |
      Flags::kVerifyFileChecksum | Flags::kEnableForLocalCompaction;
  return true;
}
template <typename O>
bool SetVerifyOutputFlags(O*, bool, long) {
  return false;
}

// Compactions that hash what they write and compare it with what they read
// back (kVerifyIteration) are refused at open, as paranoid_file_checks is:
// they would fail every compaction of pointers. Block and file checksum
// verification work, through compactions that inline values.
TEST(OptionsTest, VerifyOutputIterationIsRefusedAtOpenChecksumsWork) {
  Options options;
  options.create_if_missing = true;
  options.file_checksum_gen_factory = GetFileChecksumGenCrc32cFactory();
  ASSERT_OK(ConfigureOptions(&options));
  if (!SetVerifyOutputFlags(&options, /*iteration=*/true, 0)) {
    GTEST_SKIP() << "this RocksDB has no verify_output_flags";
  }
  test::ScratchDir dir("verify-output");
  DB* raw = nullptr;
  Status s = hybridkv::OpenDB(options, dir.path(), &raw);
  delete raw;
  EXPECT_TRUE(s.IsNotSupported()) << s.ToString();
  EXPECT_NE(s.ToString().find("kVerifyIteration"), std::string::npos)
      << s.ToString();

  SetVerifyOutputFlags(&options, /*iteration=*/false, 0);
  ASSERT_OK(hybridkv::OpenDB(options, dir.path(), &raw));
  std::unique_ptr<DB> db(raw);
  for (int round = 0; round < 3; round++) {
    for (int i = 0; i < 100; i++) {
      ASSERT_OK(db->Put(WriteOptions(), "key" + std::to_string(i),
                        std::string(300, static_cast<char>('a' + round))));
    }
    ASSERT_OK(db->Flush(FlushOptions()));
  }
  CompactRangeOptions cro;
  cro.bottommost_level_compaction = BottommostLevelCompaction::kForce;
  ASSERT_OK(db->CompactRange(cro, nullptr, nullptr));
  std::string got;
  ASSERT_OK(db->Get(ReadOptions(), "key7", &got));
  EXPECT_EQ(got, std::string(300, 'c'));
}

// An OPTIONS file may name, inside HybridKVMergeOperator, a merge operator
// this process cannot create (RocksDB then loads it as null by default).
// Every flush asks the operator AllowSingleOperand: the process must not
// crash; merges fail instead.
TEST(OptionsTest, MergeOperatorWithoutItsInnerFailsMergesNotTheProcess) {
  HybridKVMergeOperator empty(nullptr);
  std::string out;
  EXPECT_FALSE(empty.AllowSingleOperand());
  EXPECT_FALSE(empty.ShouldMerge({Slice("a")}));
  EXPECT_FALSE(empty.PartialMerge("k", "a", "b", &out, nullptr));
  EXPECT_FALSE(
      empty.PartialMergeMulti("k", {Slice("a"), Slice("b")}, &out, nullptr));
  test::ScratchDir dir("empty-merge");
  Options options;
  options.create_if_missing = true;
  ASSERT_OK(ConfigureOptions(&options));
  options.merge_operator = std::make_shared<HybridKVMergeOperator>(nullptr);
  DB* raw = nullptr;
  ASSERT_OK(hybridkv::OpenDB(options, dir.path(), &raw));
  std::unique_ptr<DB> db(raw);
  ASSERT_OK(db->Put(WriteOptions(), "key", std::string(300, 'v')));
  ASSERT_OK(db->Flush(FlushOptions()));
  ASSERT_OK(db->Merge(WriteOptions(), "key", "x"));
  std::string got;
  EXPECT_FALSE(db->Get(ReadOptions(), "key", &got).ok());
}

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
