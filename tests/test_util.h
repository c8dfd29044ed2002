// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// tests/: GoogleTest suites run by CTest against real DBs on disk. They compile
// in RocksDB's directory scope (plugin/CMakeLists.txt adds them), so internal
// headers see RocksDB's exact flags. Helpers here are shared by every suite.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "hybridkv/hybridkv.h"
#include "plugin/hybridkv/blob/medium/medium_file.h"
#include "rocksdb/compaction_filter.h"
#include "rocksdb/db.h"
#include "rocksdb/file_system.h"
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

// The numbers of the .medium files in `dir`.
std::set<uint64_t> MediumFileNumbers(const std::string& dir);

// The levels ("L3", ...) that the info LOGs in `dir` (LOG and LOG.old.*) say
// merge_level=auto resolved to: the builder logs each change.
std::set<std::string> AutoMergeLevelsLogged(const std::string& dir);

// The whole content of the file at `path` ("" if it cannot be read).
std::string ReadWholeFile(const std::string& path);

// Replaces the file at `path` with `data`.
void WriteWholeFile(const std::string& path, const std::string& data);

// The bytes the file system allocated to the file at `path` (its size minus
// its holes, in whole blocks); 0 if it cannot stat it.
uint64_t AllocatedBytes(const std::string& path);

// The value of environment variable `name` as a number, or `fallback` when it
// is unset or empty.
uint64_t EnvU64(const char* name, uint64_t fallback);

// DB::OpenForReadOnly into a raw pointer, whatever the RocksDB version.
Status OpenReadOnlyDB(const Options& options, const std::string& name, DB** db);

// A FileSystem wrapper that changes nothing. HybridKV never punches holes
// beneath a wrapper, which may remap offsets: under it, medium files are kept
// whole.
class PlainWrapperFs : public FileSystemWrapper {
 public:
  PlainWrapperFs() : FileSystemWrapper(FileSystem::Default()) {}
  static const char* kClassName() { return "HybridKVTestWrapperFs"; }
  const char* Name() const override { return kClassName(); }
};

// A small LSM, so that a few thousand keys make several levels: pointers above
// the merge level, inline values in it. Memtables of `write_buffer_size`, SSTs
// of `target_file_size_base`, 256 KiB in L1 and 4 times more in each level
// below, compactions from 2 L0 files; then ConfigureOptions(`hybrid`). Tests
// set whatever else they need (num_levels, env, ...) on the result.
Options SmallLsmOptions(size_t write_buffer_size = 128 << 10,
                        uint64_t target_file_size_base = 128 << 10,
                        const HybridOptions& hybrid = HybridOptions());

// --- Stock RocksDB against HybridTable (differential_test.cc,
// migration_test.cc)

// The two arms: stock BlockBasedTable, and HybridTable wrapping the same
// BlockBasedTable.
enum class Arm { kStock, kHybrid };

// Options identical in both arms but for the table factory and HybridTable's
// companions: small memtables (several SSTs per scenario), 1 KiB blocks, bloom
// filters, a 4-byte prefix extractor, stringappend merges.
Options StockOrHybridOptions(Arm arm);

// "k<i % 97>-<i>": the prefix "k%03d" groups keys.
std::string GroupedKey(int i);

// "v<version>-" and then 20 to 219 times one letter, both picked by i.
std::string VersionedValue(int i, int version);

// --- Medium files (medium_file_test.cc, medium_readahead_test.cc)

// A scratch directory and helpers that write medium files of numbered records.
// Writes a medium file at `path` with records key(i) -> value(i) for i in
// [0, n), finished; returns their handles.
std::vector<MediumRecordHandle> WriteMediumRecords(
    const std::string& path, int n, const std::function<std::string(int)>& key,
    const std::function<std::string(int)>& value);

// Reads the record at `handle` of `file` as HybridKV's readers do (the handle
// checked, one read, the record decoded for `user_key`).
Status ReadRecord(const MediumFileReader& file, const MediumRecordHandle& handle,
                  const Slice& user_key, std::string* value);

class MediumFileFixture : public testing::Test {
 protected:
  ScratchDir dir_{"medium"};
  std::shared_ptr<FileSystem> fs_ = FileSystem::Default();

  // Writes records 0 to n - 1 to a new medium file at `path` and returns
  // their handles.
  std::vector<MediumRecordHandle> Write(const std::string& path, int n);
  static std::string Key(int i) { return "key" + std::to_string(100000 + i); }
  static std::string Value(int i) {
    return std::string(100 + i % 300, 'a' + i % 26);
  }
};

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

// A compaction filter that keeps everything, and a factory of them: user
// components HybridKV must wrap.
class KeepAll : public CompactionFilter {
 public:
  const char* Name() const override { return "KeepAll"; }
};
class KeepAllFactory : public CompactionFilterFactory {
 public:
  const char* Name() const override { return "KeepAllFactory"; }
  std::unique_ptr<CompactionFilter> CreateCompactionFilter(
      const CompactionFilter::Context&) override {
    return std::make_unique<KeepAll>();
  }
};

// Polls `done` every 20 ms until it holds or 10 seconds pass; whether it
// held. For what RocksDB does in the background (deleting files after a
// compaction): tests wait for it, they never sleep and hope.
bool Eventually(const std::function<bool()>& done);

}  // namespace test
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE

// Each evaluates its argument once and accepts `<< message`.
#define ASSERT_OK(s) \
  ASSERT_PRED_FORMAT1(::ROCKSDB_NAMESPACE::hybridkv::test::AssertStatusOk, s)
#define EXPECT_OK(s) \
  EXPECT_PRED_FORMAT1(::ROCKSDB_NAMESPACE::hybridkv::test::AssertStatusOk, s)
