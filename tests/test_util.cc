// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "test_util.h"

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <thread>

#include "db/dbformat.h"
#include "plugin/hybridkv/blob/format/medium_refs.h"
#include "plugin/hybridkv/blob/io/rocksdb_compat.h"
#include "plugin/hybridkv/blob/lifecycle/sst_refs.h"
#include "plugin/hybridkv/compaction_filter/wrappers.h"
#include "plugin/hybridkv/plugin/hybridkv_listener.h"
#include "plugin/hybridkv/table/hybridkv_partitioner.h"
#include "rocksdb/convenience.h"
#include "rocksdb/file_system.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/merge_operator.h"
#include "rocksdb/metadata.h"
#include "rocksdb/slice_transform.h"
#include "rocksdb/table.h"

// RocksDB reads with io_uring (MultiGet's MultiRead, async_io scans) only in
// applications that opt in by defining this, as db_bench and db_bench_ext do.
// The tests opt in too, so that HybridKV meets those reads.
extern "C" bool RocksDbIOUringEnable() { return true; }

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

bool Eventually(const std::function<bool()>& done) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
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

std::set<uint64_t> MediumFileNumbers(const std::string& dir) {
  std::set<uint64_t> out;
  for (const auto& name : FilesWithSuffix(dir, ".medium")) {
    out.insert(std::strtoull(name.c_str(), nullptr, 10));
  }
  return out;
}

std::set<std::string> AutoMergeLevelsLogged(const std::string& dir) {
  std::vector<std::string> children;
  Env::Default()->GetChildren(dir, &children).PermitUncheckedError();
  const std::string kLine = "medium values go back inline at ";
  std::set<std::string> levels;
  for (const auto& name : children) {
    if (name.rfind("LOG", 0) != 0) continue;
    const std::string log = ReadWholeFile(dir + "/" + name);
    for (size_t at = log.find(kLine); at != std::string::npos;
         at = log.find(kLine, at + kLine.size())) {
      const size_t end = log.find(' ', at + kLine.size());
      const size_t eol = log.find('\n', at);
      if (log.find("merge_level=auto", at) < eol) {
        levels.insert(log.substr(at + kLine.size(), end - (at + kLine.size())));
      }
    }
  }
  return levels;
}

std::string ReadWholeFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f),
                     std::istreambuf_iterator<char>());
}

void WriteWholeFile(const std::string& path, const std::string& data) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(data.data(), static_cast<std::streamsize>(data.size()));
}

uint64_t AllocatedBytes(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 ? uint64_t(st.st_blocks) * 512 : 0;
}

uint64_t EnvU64(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return (v != nullptr && *v != '\0') ? std::strtoull(v, nullptr, 10)
                                      : fallback;
}

Options SmallLsmOptions(size_t write_buffer_size,
                        uint64_t target_file_size_base,
                        const HybridOptions& hybrid) {
  Options options;
  options.create_if_missing = true;
  options.write_buffer_size = write_buffer_size;
  options.target_file_size_base = target_file_size_base;
  options.max_bytes_for_level_base = 256 << 10;
  options.max_bytes_for_level_multiplier = 4;
  options.level0_file_num_compaction_trigger = 2;
  EXPECT_OK(ConfigureOptions(&options, hybrid));
  return options;
}

Options StockOrHybridOptions(Arm arm) {
  BlockBasedTableOptions bbto;
  bbto.block_size = 1024;  // many blocks, so seeks cross block boundaries
  bbto.filter_policy.reset(NewBloomFilterPolicy(10));
  bbto.whole_key_filtering = true;
  std::shared_ptr<TableFactory> bbt(NewBlockBasedTableFactory(bbto));
  Options options;
  options.create_if_missing = true;
  options.create_missing_column_families = true;
  options.table_factory = arm == Arm::kStock ? bbt : NewHybridTableFactory(bbt);
  options.write_buffer_size =
      64 << 10;  // small memtables: several SSTs per scenario
  options.level0_file_num_compaction_trigger = 3;
  options.max_bytes_for_level_base = 256 << 10;
  options.target_file_size_base = 64 << 10;
  options.prefix_extractor.reset(NewFixedPrefixTransform(4));
  ConfigOptions config;
  EXPECT_OK(MergeOperator::CreateFromString(config, "stringappend",
                                            &options.merge_operator));
  if (arm == Arm::kHybrid) {  // HybridTable's required companions
    options.sst_partitioner_factory =
        std::make_shared<HybridKVPartitionerFactory>();
    options.listeners.push_back(std::make_shared<HybridKVListener>());
    options.merge_operator =
        std::make_shared<HybridKVMergeOperator>(options.merge_operator);
  }
  return options;
}

std::string GroupedKey(int i) {
  char buf[32];
  snprintf(buf, sizeof(buf), "k%03d-%06d", i % 97,
           i);  // prefix "k%03d" groups keys
  return buf;
}

std::string VersionedValue(int i, int version) {
  return "v" + std::to_string(version) + "-" +
         std::string(20 + (i * 7) % 200, 'a' + i % 26);
}

Status ReadRecord(const MediumFileReader& file, const MediumRecordHandle& handle,
                  const Slice& user_key, std::string* value) {
  IOStatus s = file.CheckHandle(handle);
  std::string scratch;
  Slice record;
  if (s.ok()) {
    s = file.ReadRange(IOOptions(), handle.offset, handle.size, &scratch,
                       &record);
  }
  return s.ok() ? file.DecodeRecord(handle.offset, record, user_key, value)
                : s;
}

std::vector<MediumRecordHandle> WriteMediumRecords(
    const std::string& path, int n, const std::function<std::string(int)>& key,
    const std::function<std::string(int)>& value) {
  std::unique_ptr<MediumFileWriter> w;
  EXPECT_OK(
      MediumFileWriter::Create(FileSystem::Default(), path, FileOptions(), &w));
  std::vector<MediumRecordHandle> handles(n);
  for (int i = 0; i < n; ++i) {
    EXPECT_OK(w->Add(key(i), value(i), &handles[i]));
  }
  EXPECT_OK(w->Finish());
  return handles;
}

std::vector<MediumRecordHandle> MediumFileFixture::Write(
    const std::string& path, int n) {
  return WriteMediumRecords(path, n, Key, Value);
}

Status OpenReadOnlyDB(const Options& options, const std::string& name,
                      DB** db) {
  return OpenIntoRawPointer(
      db, [&](auto* out) { return DB::OpenForReadOnly(options, name, out); });
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
