// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "test_util.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>

#include "db/dbformat.h"
#include "plugin/hybridkv/blob/medium/medium_refs.h"
#include "rocksdb/file_system.h"
#include "rocksdb/metadata.h"

// RocksDB reads with io_uring only in applications that opt in by defining
// this (db_bench and db_bench_ext do). The tests opt in too, so that
// asynchronous reads (AsyncReadBatch) are what they test;
// HYBRIDKV_TEST_NO_IO_URING=1 runs them without (CTest runs the read suites
// both ways).
extern "C" bool RocksDbIOUringEnable() {
  return std::getenv("HYBRIDKV_TEST_NO_IO_URING") == nullptr;
}

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace test {

ScratchDir::ScratchDir(const std::string& name) {
  const char* base = std::getenv("TEST_TMPDIR");
  std::string root = (base != nullptr && *base != '\0') ? base : "/tmp";
  std::string pattern = root + "/hybridkv-" + name + "-XXXXXX";
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  const char* made = mkdtemp(buf.data());
  path_ = made != nullptr ? made : pattern;
}

ScratchDir::~ScratchDir() {
  if (std::getenv("HYBRIDKV_KEEP_TEST_DIRS") == nullptr) {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
}

std::vector<std::string> FilesAt(DB* db, int level) {
  ColumnFamilyMetaData meta;
  db->GetColumnFamilyMetaData(&meta);
  std::vector<std::string> names;
  for (const SstFileMetaData& f : meta.levels[level].files) {
    names.push_back(f.name);
  }
  return names;
}

bool RunSelfUntilKilled(
    const std::vector<std::pair<std::string, std::string>>& env,
    std::string* how) {
  const pid_t child = fork();
  if (child < 0) {
    *how = "fork failed";
    return false;
  }
  if (child == 0) {
    for (const auto& [name, value] : env) {
      setenv(name.c_str(), value.c_str(), 1);
    }
    // Environments set up only when some test runs: pick a trivial one.
    execl("/proc/self/exe", "hybridkv_tests",
          "--gtest_filter=SipHashTest.ReferenceVectors", nullptr);
    _exit(5);
  }
  int status = 0;
  if (waitpid(child, &status, 0) != child) {
    *how = "waitpid failed";
    return false;
  }
  *how = "child ended with status " + std::to_string(status);
  return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
}

int RunCommand(const std::string& command, std::string* output) {
  output->clear();
  std::string full = command + " 2>&1";
  FILE* pipe = popen(full.c_str(), "r");
  if (pipe == nullptr) {
    return -1;
  }
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) {
    output->append(buf.data(), n);
  }
  int status = pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::vector<std::pair<std::string, std::string>> ScanAll(
    DB* db, ColumnFamilyHandle* cf, const Snapshot* snapshot) {
  ReadOptions ro;
  ro.snapshot = snapshot;
  std::unique_ptr<Iterator> it(cf == nullptr ? db->NewIterator(ro)
                                             : db->NewIterator(ro, cf));
  std::vector<std::pair<std::string, std::string>> out;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    out.emplace_back(it->key().ToString(), it->value().ToString());
  }
  if (!it->status().ok()) {
    out.emplace_back("<iterator error>", it->status().ToString());
  }
  return out;
}

std::vector<std::string> FilesWithSuffix(const std::string& dir,
                                         const std::string& suffix) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() >= suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      out.push_back(name);
    }
  }
  return out;
}

RawSstScan ScanSstRaw(const std::string& sst_path) {
  // Opening and walking the file is shared with the plugin; classifying each
  // entry is done here, independently of HybridKV's own decoders.
  RawSstScan result;
  result.status = ForEachRawEntry(
      FileSystem::Default(), sst_path,
      [&](const Slice& key, const Slice& value) {
        result.entries++;
        if (ExtractValueType(key) != kTypeBlobIndex) return;
        if (!value.empty() && static_cast<unsigned char>(value[0]) == 0xB1) {
          result.pointer_entries++;
          result.pointer_bytes += value.size();
        } else {
          result.blob_index_entries++;
        }
      });
  return result;
}

RawSstScan ScanAllSstsRaw(const std::string& dir) {
  RawSstScan total;
  for (const std::string& name : FilesWithSuffix(dir, ".sst")) {
    RawSstScan one = ScanSstRaw(dir + "/" + name);
    total.entries += one.entries;
    total.pointer_entries += one.pointer_entries;
    total.pointer_bytes += one.pointer_bytes;
    total.blob_index_entries += one.blob_index_entries;
    if (!one.status.ok() && total.status.ok()) total.status = one.status;
  }
  return total;
}

}  // namespace test
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
