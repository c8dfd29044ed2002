// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// OPTIONS files that name HybridTable: malformed ones fail to load with a
// clear message, and ones that parse but contradict themselves (a medium band
// that reaches into BlobDB's range, missing companions) fail DB::Open naming
// the option.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hybridkv/hybridkv.h"
#include "plugin/hybridkv/blob/io/rocksdb_compat.h"
#include "rocksdb/convenience.h"
#include "rocksdb/db.h"
#include "rocksdb/utilities/options_util.h"
#include "test_util.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

using test::ReadWholeFile;
using test::WriteWholeFile;

// Writes an OPTIONS file: HybridTable with `table_options` and, in the CF
// section, `cf_extra`.
std::string OptionsFile(
    const std::string& dir, const std::string& cf_extra,
    const std::string& table_options,
    const std::string& db_options = "  listeners=HybridKVListener\n") {
  const std::string path = dir + "/test.ini";
  WriteWholeFile(
      path,
      "[Version]\n  rocksdb_version=9.10.0\n  options_file_version=1.1\n"
      "[DBOptions]\n  create_if_missing=true\n" +
          db_options +
          "[CFOptions \"default\"]\n  table_factory=HybridTable\n"
          "  sst_partitioner_factory=HybridKVPartitioner\n" +
          cf_extra + "[TableOptions/HybridTable \"default\"]\n" +
          table_options);
  return path;
}

TEST(OptionsFileTest, MalformedFilesFailWithAClearMessage) {
  test::ScratchDir dir("badoptions");
  struct Case {
    const char* table_options;
    const char* mentions;
  } cases[] = {
      {"  merge_level=deep\n", "merge_level"},
      {"  classify_by=weight\n", "classify_by"},
      {"  no_such_option=1\n", "no_such_option"},
      {"  inner={id=NoSuchTable}\n", "NoSuchTable"},
      {"  inner=\n", "inner"},
      {"  inner={id=BlockBasedTable;block_size=8192\n", "inner"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.table_options);
    const std::string path = OptionsFile(dir.path(), "", c.table_options);
    ConfigOptions config;
    config.ignore_unknown_options = false;
    DBOptions db_opts;
    std::vector<ColumnFamilyDescriptor> cfs;
    Status s = LoadOptionsFromFile(config, path, &db_opts, &cfs);
    ASSERT_FALSE(s.ok());
    EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
    EXPECT_NE(s.ToString().find(c.mentions), std::string::npos) << s.ToString();
  }
  // A truncated file.
  {
    std::string path = OptionsFile(dir.path(), "", "  merge_level=-2\n");
    std::string text = ReadWholeFile(path);
    WriteWholeFile(
        path, text.substr(0, text.find("[CFOptions")) + "[CFOptions \"def");
    ConfigOptions config;
    DBOptions db_opts;
    std::vector<ColumnFamilyDescriptor> cfs;
    Status s = LoadOptionsFromFile(config, path, &db_opts, &cfs);
    EXPECT_FALSE(s.ok());
  }
}

// An OPTIONS file from before merge_level=auto (an integer level) and one
// from after it ("auto") both load, each with its own merge level.
TEST(OptionsFileTest, MergeLevelLoadsAsAnIntegerOrAuto) {
  test::ScratchDir dir("mergelevel");
  for (const auto& [spelled, expected] :
       {std::pair<const char*, int>{"-1", -1}, {"auto", kAutoMergeLevel}}) {
    SCOPED_TRACE(spelled);
    const std::string path = OptionsFile(
        dir.path(), "", std::string("  merge_level=") + spelled + "\n");
    ConfigOptions config;
    DBOptions db_opts;
    std::vector<ColumnFamilyDescriptor> cfs;
    ASSERT_OK(LoadOptionsFromFile(config, path, &db_opts, &cfs));
    ASSERT_EQ(cfs.size(), 1u);
    const auto* table =
        cfs[0].options.table_factory->GetOptions<HybridTableOptions>();
    ASSERT_NE(table, nullptr);
    EXPECT_EQ(table->merge_level, expected);
  }
}

// Files that parse, but describe a configuration DB::Open must refuse, by
// name.
TEST(OptionsFileTest, ContradictionsFailDbOpenNamingTheOption) {
  test::ScratchDir dir("contradict");
  struct Case {
    std::string cf_extra, table_options, db_options;
    const char* mentions;
  } cases[] = {
      // the medium band reaches into BlobDB's range
      {"  enable_blob_files=true\n  min_blob_size=500\n", "",
       "  listeners=HybridKVListener\n", "min_blob_size"},
      {"  enable_blob_files=true\n  min_blob_size=1000\n",
       "  medium_max_value_size=4000\n", "  listeners=HybridKVListener\n",
       "min_blob_size"},
      {"", "  medium_min_value_size=2000\n  medium_max_value_size=1000\n",
       "  listeners=HybridKVListener\n", "medium_min_value_size"},
      {"", "  medium_min_value_size=16\n", "  listeners=HybridKVListener\n",
       "pointer"},
      {"", "  merge_level=9\n", "  listeners=HybridKVListener\n",
       "merge_level"},
      {"", "", "", "HybridKVListener"},
      {"  merge_operator=stringappend\n", "", "  listeners=HybridKVListener\n",
       "HybridKVMergeOperator"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.cf_extra + c.table_options + c.db_options);
    const std::string path =
        OptionsFile(dir.path(), c.cf_extra, c.table_options, c.db_options);
    ConfigOptions config;
    DBOptions db_opts;
    std::vector<ColumnFamilyDescriptor> cfs;
    ASSERT_OK(LoadOptionsFromFile(config, path, &db_opts, &cfs));
    std::vector<ColumnFamilyHandle*> handles;
    DB* raw = nullptr;
    Status s = hybridkv::OpenDB(db_opts, dir.Sub("db"), cfs, &handles, &raw);
    EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
    EXPECT_NE(s.ToString().find(c.mentions), std::string::npos) << s.ToString();
    for (auto* h : handles) delete h;
    delete raw;
  }
}

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
