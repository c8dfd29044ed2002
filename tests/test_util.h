// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// tests/: GoogleTest suites run by CTest against real DBs on disk. They compile
// in RocksDB's directory scope (plugin/CMakeLists.txt adds them), so internal
// headers see RocksDB's exact flags. Helpers here are shared by every suite.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "rocksdb/db.h"
#include "rocksdb/options.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace test {

// A fresh directory under $TEST_TMPDIR (or /tmp), removed with its contents on
// destruction unless HYBRIDKV_KEEP_TEST_DIRS is set.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& name);
  ~ScratchDir();
  const std::string& path() const { return path_; }
  std::string Sub(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Runs a command through the shell; returns its exit status and puts
// stdout+stderr in *output.
int RunCommand(const std::string& command, std::string* output);

// Every (key, value) pair visible through a forward scan of `cf` (default CF
// when null).
std::vector<std::pair<std::string, std::string>> ScanAll(
    DB* db, ColumnFamilyHandle* cf = nullptr,
    const Snapshot* snapshot = nullptr);

// Runs this test binary again as a child process with `env` (name, value
// pairs) set, for a gtest Environment that acts on them and is meant to be
// killed with SIGKILL (a fresh exec, not a bare fork: a forked copy of a
// process whose RocksDB thread pools already run has no threads). True iff the
// child died of SIGKILL; otherwise `*how` says how it ended.
bool RunSelfUntilKilled(
    const std::vector<std::pair<std::string, std::string>>& env,
    std::string* how);

// Names of the SST files of `db`'s default column family at `level`, in key
// order, as CompactFiles takes them.
std::vector<std::string> FilesAt(DB* db, int level);

// Names of the files in `dir` that end with `suffix`.
std::vector<std::string> FilesWithSuffix(const std::string& dir,
                                         const std::string& suffix);

inline testing::AssertionResult AssertStatusOk(const char* expr,
                                               const Status& s) {
  if (s.ok()) return testing::AssertionSuccess();
  return testing::AssertionFailure() << expr << " returned " << s.ToString();
}

// What a raw scan of one SST finds: read with a stock BlockBasedTable reader,
// each entry classified here rather than by HybridKV's decoders.
struct RawSstScan {
  uint64_t entries = 0;
  // kTypeBlobIndex entries whose value carries the pointer tag
  uint64_t pointer_entries = 0;
  uint64_t pointer_bytes = 0;       // their values' total size
  uint64_t blob_index_entries = 0;  // BlobDB's own
  Status status;
};
RawSstScan ScanSstRaw(const std::string& sst_path);

// Raw scans of every SST in `dir`, summed.
RawSstScan ScanAllSstsRaw(const std::string& dir);

}  // namespace test
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE

// Each evaluates its argument once and accepts `<< message`.
#define ASSERT_OK(s) \
  ASSERT_PRED_FORMAT1(::ROCKSDB_NAMESPACE::hybridkv::test::AssertStatusOk, s)
#define EXPECT_OK(s) \
  EXPECT_PRED_FORMAT1(::ROCKSDB_NAMESPACE::hybridkv::test::AssertStatusOk, s)
