// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "plugin/hybridkv/db_bench_ext/hooks.h"

#include <gflags/gflags.h>
#include <sys/resource.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "plugin/hybridkv/include/hybridkv/hybridkv.h"
#include "rocksdb/metadata.h"
#include "rocksdb/statistics.h"

DEFINE_bool(
    hybrid, false,
    "Enable HybridKV (hybridkv::ConfigureOptions) on the DB's options.");
DEFINE_string(hybrid_classify_by, "size",
              "HybridKV value classification: size or ratio.");
DEFINE_int32(hybrid_medium_min_value_size, 96,
             "HybridKV: smallest medium value, in bytes.");
DEFINE_int32(
    hybrid_medium_max_value_size, 999,
    "HybridKV: largest medium value, in bytes; larger values go to BlobDB.");
DEFINE_double(
    hybrid_small_medium_ratio, 0.2,
    "HybridKV, classify_by=ratio: key/(key+value) above this is small (T_SM).");
DEFINE_double(hybrid_medium_large_ratio, 0.02,
              "HybridKV, classify_by=ratio: key/(key+value) at or below this "
              "is large (T_ML).");
DEFINE_int32(
    hybrid_merge_level, -2,
    "HybridKV merge level: >= 0 absolute, < 0 counted from the deepest level.");
DEFINE_string(
    value_size_mix, "",
    "Value sizes drawn from a mix: S, M, L, SD, MD, LD (Parallax's Table 4.1: "
    "9, 104 "
    "and 1004-byte values; SD 60/20/20, MD 20/60/20, LD 20/20/60 "
    "small/medium/large), "
    "or custom:<pct>:<bytes>,<pct>:<bytes>,... Overrides --value_size.");

namespace hybridkv_ext {
namespace {

using ROCKSDB_NAMESPACE::DB;
using ROCKSDB_NAMESPACE::Options;

struct MixEntry {
  double cumulative;  // in [0, 1]
  unsigned int bytes;
};

[[noreturn]] void Die(const std::string& message) {
  std::fprintf(stderr, "db_bench_ext: %s\n", message.c_str());
  std::exit(1);
}

std::vector<MixEntry> ParseMix(const std::string& spec) {
  struct Named {
    const char* name;
    double small, medium, large;
  };
  static const Named kNamed[] = {{"S", 100, 0, 0},   {"M", 0, 100, 0},
                                 {"L", 0, 0, 100},   {"SD", 60, 20, 20},
                                 {"MD", 20, 60, 20}, {"LD", 20, 20, 60}};
  std::vector<std::pair<double, unsigned int>> parts;
  for (const Named& n : kNamed) {
    if (spec == n.name) {
      parts = {{n.small, 9}, {n.medium, 104}, {n.large, 1004}};
    }
  }
  if (parts.empty()) {
    const std::string prefix = "custom:";
    if (spec.compare(0, prefix.size(), prefix) != 0) {
      Die("--value_size_mix=" + spec +
          " is not S, M, L, SD, MD, LD or custom:<pct>:<bytes>,...");
    }
    std::stringstream in(spec.substr(prefix.size()));
    std::string item;
    while (std::getline(in, item, ',')) {
      double pct = 0;
      unsigned int bytes = 0;
      if (std::sscanf(item.c_str(), "%lf:%u", &pct, &bytes) != 2 || pct < 0 ||
          bytes == 0) {
        Die("--value_size_mix: '" + item + "' is not <pct>:<bytes>");
      }
      parts.push_back({pct, bytes});
    }
  }
  double total = 0;
  for (const auto& p : parts) total += p.first;
  if (total <= 0) Die("--value_size_mix: percentages add up to 0");
  std::vector<MixEntry> mix;
  double running = 0;
  for (const auto& p : parts) {
    if (p.first == 0) continue;
    running += p.first / total;
    mix.push_back({running, p.second});
  }
  mix.back().cumulative = 1.0;
  return mix;
}

const std::vector<MixEntry>& Mix() {
  static const std::vector<MixEntry> mix = FLAGS_value_size_mix.empty()
                                               ? std::vector<MixEntry>()
                                               : ParseMix(FLAGS_value_size_mix);
  return mix;
}

std::string ReadProcSelfIo() {
  std::ifstream in("/proc/self/io");
  std::stringstream out;
  std::string line;
  while (std::getline(in, line)) {
    out << "  " << line << "\n";
  }
  return out.str();
}

}  // namespace

void ApplyOptions(Options* options) {
  Mix();  // parse early: a bad mix fails before any work
  if (!FLAGS_hybrid) {
    return;
  }
  ROCKSDB_NAMESPACE::hybridkv::HybridOptions hybrid;
  auto& t = hybrid.table;
  if (FLAGS_hybrid_classify_by == "size") {
    t.classify_by = ROCKSDB_NAMESPACE::hybridkv::ClassifyBy::kSize;
  } else if (FLAGS_hybrid_classify_by == "ratio") {
    t.classify_by = ROCKSDB_NAMESPACE::hybridkv::ClassifyBy::kRatio;
  } else {
    Die("--hybrid_classify_by must be size or ratio, not " +
        FLAGS_hybrid_classify_by);
  }
  t.medium_min_value_size =
      static_cast<uint32_t>(FLAGS_hybrid_medium_min_value_size);
  t.medium_max_value_size =
      static_cast<uint32_t>(FLAGS_hybrid_medium_max_value_size);
  t.small_medium_ratio = FLAGS_hybrid_small_medium_ratio;
  t.medium_large_ratio = FLAGS_hybrid_medium_large_ratio;
  t.merge_level = FLAGS_hybrid_merge_level;
  t.inner = options->table_factory;  // keep db_bench's BlockBasedTable settings
  ROCKSDB_NAMESPACE::Status s =
      ROCKSDB_NAMESPACE::hybridkv::ConfigureOptions(options, hybrid);
  if (!s.ok()) {
    Die("--hybrid: " + s.ToString());
  }
  std::fprintf(stdout,
               "HybridKV: enabled (medium %u..%u bytes by %s, merge level %d, "
               "min_blob_size %" PRIu64 ")\n",
               t.medium_min_value_size, t.medium_max_value_size,
               FLAGS_hybrid_classify_by.c_str(), t.merge_level,
               options->min_blob_size);
}

bool ValueSizeMixEnabled() { return !Mix().empty(); }

unsigned int NextValueSize() {
  thread_local std::mt19937_64 rng(std::random_device{}());
  const double u = std::uniform_real_distribution<double>(0.0, 1.0)(rng);
  for (const MixEntry& e : Mix()) {
    if (u <= e.cumulative) return e.bytes;
  }
  return Mix().back().bytes;
}

void Report(DB* db) {
  if (db == nullptr) {
    return;
  }
  std::printf("\n=== db_bench_ext report ===\n");
  ROCKSDB_NAMESPACE::ColumnFamilyMetaData meta;
  db->GetColumnFamilyMetaData(&meta);
  std::printf("LSM shape (default column family):\n");
  for (const auto& level : meta.levels) {
    if (level.files.empty()) continue;
    std::printf("  L%d: %zu files, %" PRIu64 " bytes\n", level.level,
                level.files.size(), level.size);
  }
  std::printf("  blob files: %zu, %" PRIu64 " bytes\n", meta.blob_files.size(),
              meta.blob_file_size);
  std::printf("Process I/O (/proc/self/io):\n%s", ReadProcSelfIo().c_str());
  if (auto stats = db->GetOptions().statistics) {
    using namespace ROCKSDB_NAMESPACE;
    std::printf("RocksDB bytes: flush write %" PRIu64
                ", compaction read %" PRIu64 ", compaction write %" PRIu64
                ", blob write %" PRIu64 "\n",
                stats->getTickerCount(FLUSH_WRITE_BYTES),
                stats->getTickerCount(COMPACT_READ_BYTES),
                stats->getTickerCount(COMPACT_WRITE_BYTES),
                stats->getTickerCount(BLOB_DB_BLOB_FILE_BYTES_WRITTEN));
  }
  rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  std::printf("CPU seconds: user %.2f, system %.2f\n",
              usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6,
              usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6);
  ROCKSDB_NAMESPACE::hybridkv::HybridStatistics hs;
  if (ROCKSDB_NAMESPACE::hybridkv::GetStatistics(db, &hs).ok() &&
      (hs.medium_values_extracted > 0 || hs.small_values_flushed > 0)) {
    std::printf("HybridKV:\n%s", hs.ToString().c_str());
  }
  std::fflush(stdout);
}

}  // namespace hybridkv_ext
