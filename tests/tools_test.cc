// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// RocksDB's own, unmodified tools, built in-tree with ROCKSDB_PLUGINS=hybridkv,
// work on HybridTable: db_bench loads it from an OPTIONS file, sst_dump and ldb
// read its files.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "hybridkv/hybridkv.h"
#include "plugin/hybridkv/blob/io/rocksdb_compat.h"
#include "rocksdb/db.h"
#include "test_util.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

// Number of keys db_bench loads; HYBRIDKV_DB_BENCH_NUM overrides (e.g.
// 1000000).
int DbBenchNum() {
  const char* n = std::getenv("HYBRIDKV_DB_BENCH_NUM");
  return n != nullptr ? std::atoi(n) : 200000;
}

// Runs db_bench and returns "found/requested" from readrandom's "(F of N
// found)".
std::string RunDbBench(const std::string& options_file, const std::string& db,
                       const std::string& benchmarks) {
  std::string cmd = std::string(HYBRIDKV_DB_BENCH) +
                    " --options_file=" + options_file + " --db=" + db +
                    " --benchmarks=" + benchmarks +
                    " --num=" + std::to_string(DbBenchNum()) +
                    " --seed=1234 --threads=1 --statistics=0";
  std::string out;
  int rc = test::RunCommand(cmd, &out);
  EXPECT_EQ(rc, 0) << cmd << "\n" << out;
  std::smatch m;
  if (!std::regex_search(out, m, std::regex(R"(\((\d+) of (\d+) found\))"))) {
    ADD_FAILURE() << "no readrandom result in db_bench output:\n" << out;
    return "";
  }
  return m[1].str() + "/" + m[2].str();
}

TEST(ToolsTest, DbBenchLoadsHybridTableFromOptionsFile) {
  test::ScratchDir dir("dbbench");
  const std::string hybrid =
      std::string(HYBRIDKV_OPTIONS_DIR) + "/hybridtable.ini";
  const std::string stock = std::string(HYBRIDKV_OPTIONS_DIR) + "/stock.ini";
  const std::string num = std::to_string(DbBenchNum());

  // Every key written once: every key is found.
  EXPECT_EQ(
      RunDbBench(hybrid, dir.Sub("unique"), "filluniquerandom,readrandom"),
      num + "/" + num);

  // fillrandom draws keys with replacement, so only about 63% of the key space
  // exists; HybridTable must find exactly what stock BlockBasedTable finds with
  // the same seed.
  std::string hybrid_found =
      RunDbBench(hybrid, dir.Sub("hybrid"), "fillrandom,readrandom");
  std::string stock_found =
      RunDbBench(stock, dir.Sub("stock"), "fillrandom,readrandom");
  EXPECT_EQ(hybrid_found, stock_found);
  EXPECT_FALSE(hybrid_found.empty());

  // The DB db_bench made really is a HybridTable DB.
  std::string out;
  ASSERT_EQ(test::RunCommand("grep -l 'TableOptions/HybridTable' " +
                                 dir.Sub("hybrid") + "/OPTIONS-*",
                             &out),
            0)
      << out;
}

// A small HybridTable DB with known contents, closed.
void MakeDb(const std::string& path, int n, size_t value_size = 0) {
  Options options;
  options.create_if_missing = true;
  ASSERT_OK(ConfigureOptions(&options));
  DB* raw = nullptr;
  ASSERT_OK(hybridkv::OpenDB(options, path, &raw));
  std::unique_ptr<DB> db(raw);
  for (int i = 0; i < n; ++i) {
    std::string value = "value" + std::to_string(i);
    value.resize(std::max(value.size(), value_size), 'm');
    ASSERT_OK(
        db->Put(WriteOptions(), "key" + std::to_string(1000000 + i), value));
  }
  ASSERT_OK(db->Flush(FlushOptions()));
  ASSERT_OK(db->Close());
}

TEST(ToolsTest, LdbScanReadsHybridTableDb) {
  test::ScratchDir dir("ldb");
  MakeDb(dir.path(), 500);
  std::string out;
  ASSERT_EQ(
      test::RunCommand(
          std::string(HYBRIDKV_LDB) + " --db=" + dir.path() + " scan", &out),
      0)
      << out;
  EXPECT_NE(out.find("key1000000 ==> value0\n"), std::string::npos)
      << out.substr(0, 500);
  EXPECT_NE(out.find("key1000499 ==> value499\n"), std::string::npos);
  // Count only scan output lines: a tool may also print warnings (and, under
  // sanitizers, reports) on stderr.
  size_t lines = 0;
  for (size_t pos = out.find(" ==> "); pos != std::string::npos;
       pos = out.find(" ==> ", pos + 1)) {
    lines++;
  }
  EXPECT_EQ(lines, 500u);
}

TEST(ToolsTest, SstDumpReadsHybridTableFiles) {
  test::ScratchDir dir("sstdump");
  MakeDb(dir.path(), 500);
  std::string out;
  ASSERT_EQ(test::RunCommand(std::string(HYBRIDKV_SST_DUMP) +
                                 " --file=" + dir.path() +
                                 " --command=check --verify_checksum",
                             &out),
            0)
      << out;
  EXPECT_EQ(out.find("Corruption"), std::string::npos) << out;
  ASSERT_EQ(test::RunCommand(std::string(HYBRIDKV_SST_DUMP) +
                                 " --file=" + dir.path() + " --command=scan",
                             &out),
            0)
      << out;
  EXPECT_NE(out.find("'key1000000' seq:"), std::string::npos)
      << out.substr(0, 500);
  EXPECT_NE(out.find("=> value499"), std::string::npos);
}

// The tools that open SSTs with the DB's own table factory (RocksDB 11's
// `ldb dump_live_files` and `ldb dump --path`, which keep a factory that is a
// BlockBasedTable) and those that open them with a plain BlockBasedTable
// (sst_dump) read SSTs holding medium pointers without an error.
TEST(ToolsTest, LdbAndSstDumpReadSstsWithMediumPointers) {
  test::ScratchDir dir("tools-medium");
  MakeDb(dir.path(), 300, /*value_size=*/200);
  ASSERT_FALSE(test::MediumFileNumbers(dir.path()).empty());
  const std::vector<std::string> ssts =
      test::FilesWithSuffix(dir.path(), ".sst");
  ASSERT_EQ(ssts.size(), 1u);
  const std::string sst = dir.Sub(ssts[0]);
  const std::string ldb = std::string(HYBRIDKV_LDB) + " --db=" + dir.path();
  const std::string sst_dump =
      std::string(HYBRIDKV_SST_DUMP) + " --file=" + sst;
  const std::pair<std::string, bool> runs[] = {
      // (command, whether it prints the keys)
      {ldb + " dump_live_files", true},
      {ldb + " dump --path=" + sst, true},
      {sst_dump + " --command=scan", true},
      {sst_dump + " --command=check --verify_checksum", false},
  };
  for (const auto& [cmd, prints_keys] : runs) {
    SCOPED_TRACE(cmd);
    std::string out;
    ASSERT_EQ(test::RunCommand(cmd, &out), 0) << out.substr(0, 2000);
    if (prints_keys) {
      EXPECT_NE(out.find("key1000299"), std::string::npos)
          << out.substr(0, 2000);
    }
    EXPECT_EQ(out.find("Corruption"), std::string::npos) << out.substr(0, 2000);
    EXPECT_EQ(out.find("expects"), std::string::npos) << out.substr(0, 2000);
  }
}

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
