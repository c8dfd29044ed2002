// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "plugin/hybridkv/db_bench_ext/hooks.h"

#include <gflags/gflags.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "env/composite_env_wrapper.h"
#include "plugin/hybridkv/db_bench_ext/pause_excluding_clock.h"
#include "plugin/hybridkv/include/hybridkv/hybridkv.h"
#include "rocksdb/listener.h"
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
DEFINE_string(hybrid_merge_level,
              ROCKSDB_NAMESPACE::hybridkv::MergeLevelToString(
                  ROCKSDB_NAMESPACE::hybridkv::HybridTableOptions().merge_level)
                  .c_str(),
              "HybridKV merge level: auto (by the LSM's depth), >= 0 "
              "absolute, < 0 counted from the deepest level.");
DEFINE_bool(hybrid_scan_prefetch,
            ROCKSDB_NAMESPACE::hybridkv::HybridTableOptions().scan_prefetch,
            "HybridKV: user scans read the separated values they are about to "
            "yield ahead of time, several at once, into the blob and block "
            "caches.");
DEFINE_uint32(
    hybrid_scan_prefetch_max,
    ROCKSDB_NAMESPACE::hybridkv::HybridTableOptions().scan_prefetch_max,
    "HybridKV: the most entries a scan looks ahead in one step.");
DEFINE_double(
    hybrid_blob_gc_min_garbage_ratio,
    ROCKSDB_NAMESPACE::hybridkv::HybridOptions()
        .blob_garbage_collection_min_garbage_ratio,
    "HybridKV: BlobDB's GC runs only while the blob files it would relocate "
    "hold at least this share of garbage; 0 runs it always, as stock BlobDB "
    "does.");
DEFINE_string(
    value_size_mix, "",
    "Value sizes drawn from a mix: S, M, L, SD, MD, LD (Parallax's Table 4.1: "
    "9, 104 "
    "and 1004-byte values; SD 60/20/20, MD 20/60/20, LD 20/20/60 "
    "small/medium/large), "
    "or custom:<pct>:<bytes>,<pct>:<bytes>,... Overrides --value_size.");

DEFINE_bool(
    clock_excludes_pauses, false,
    "The DB's monotonic clock (SystemClock::NowNanos) leaves out the time "
    "this process spends stopped (SIGSTOP, then SIGCONT), so that RocksDB's "
    "delayed-write credit counts only the time it runs. For harnesses that "
    "pause it: scripts/ab --interleave sets it. "
    "NowMicros stays the wall clock.");

DECLARE_int64(seed);  // db_bench's
DECLARE_string(db);   // db_bench's

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

std::map<std::string, uint64_t> ReadProcSelfIo() {
  std::map<std::string, uint64_t> io;
  std::ifstream in("/proc/self/io");
  std::string name;
  uint64_t value = 0;
  while (in >> name >> value) {
    if (!name.empty() && name.back() == ':') name.pop_back();
    io[name] = value;
  }
  return io;
}

// Requests the block device under `path` has completed, from
// /sys/dev/block/<major>:<minor>/stat (fields 1 and 5). io_uring reads are
// not system calls of their own, so syscr misses them; the device counts every
// request, of every process, after the block layer merged adjacent ones.
struct DeviceRequests {
  bool known = false;
  uint64_t reads = 0, writes = 0;
};

DeviceRequests ReadDeviceRequests(std::string path) {
  DeviceRequests d;
  struct stat st;
  // The DB directory does not exist before a load opens it: use its parent.
  while (stat(path.c_str(), &st) != 0) {
    if (path == "." || path == "/") return d;
    const size_t slash = path.find_last_of('/');
    path = slash == std::string::npos ? "."
           : slash == 0               ? "/"
                                      : path.substr(0, slash);
  }
  std::ifstream in("/sys/dev/block/" + std::to_string(major(st.st_dev)) + ":" +
                   std::to_string(minor(st.st_dev)) + "/stat");
  uint64_t field[5] = {0, 0, 0, 0, 0};
  for (uint64_t& f : field) in >> f;
  if (!in) return d;
  d.known = true;
  d.reads = field[0];
  d.writes = field[4];
  return d;
}

// The device's counts when the benchmark configured its first DB.
DeviceRequests& DeviceRequestsAtStart() {
  static DeviceRequests at_start = ReadDeviceRequests(FLAGS_db);
  return at_start;
}

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

struct DiskBytes {
  uint64_t sst = 0, blob = 0, medium = 0, other = 0;
  uint64_t Data() const { return sst + blob + medium; }
};

DiskBytes ListDisk(DB* db) {
  DiskBytes d;
  std::vector<std::string> files;
  ROCKSDB_NAMESPACE::Env* env = db->GetEnv();
  const std::string dir = db->GetName();
  if (!env->GetChildren(dir, &files).ok()) return d;
  for (const std::string& f : files) {
    // Allocated bytes, as du counts them: HybridKV frees dead medium records
    // by punching holes, which leaves file sizes unchanged.
    struct stat st;
    if (stat((dir + "/" + f).c_str(), &st) != 0) continue;
    const uint64_t size = static_cast<uint64_t>(st.st_blocks) * 512;
    if (EndsWith(f, ".sst")) {
      d.sst += size;
    } else if (EndsWith(f, ".blob")) {
      d.blob += size;
    } else if (EndsWith(f, ".medium")) {
      d.medium += size;
    } else {
      d.other += size;
    }
  }
  return d;
}

double Ratio(double a, double b) { return b > 0 ? a / b : 0.0; }

// Where compaction writes go: bytes written and input records per output
// level, and bytes by compaction reason. HybridKV starts no compaction of its
// own; the reasons show what RocksDB's picker chose, and manual compactions
// (CompactFiles, CompactRange) would show as "ManualCompaction".
class CompactionTally : public ROCKSDB_NAMESPACE::EventListener {
 public:
  const char* Name() const override { return "DbBenchExtCompactionTally"; }
  void OnFlushCompleted(DB* /*db*/,
                        const ROCKSDB_NAMESPACE::FlushJobInfo&) override {
    std::lock_guard<std::mutex> lock(mu_);
    last_job_end_ = std::chrono::steady_clock::now();
  }
  void OnCompactionCompleted(
      DB* /*db*/, const ROCKSDB_NAMESPACE::CompactionJobInfo& info) override {
    std::lock_guard<std::mutex> lock(mu_);
    last_job_end_ = std::chrono::steady_clock::now();
    const uint64_t written =
        info.stats.total_output_bytes + info.stats.total_output_bytes_blob;
    PerLevel& level = levels_[info.output_level];
    level.compactions++;
    // A trivial move reports its files as both input and output.
    level.trivial_moves +=
        !info.output_files.empty() && info.input_files == info.output_files ? 1
                                                                            : 0;
    level.bytes_written += written;
    level.input_records += info.stats.num_input_records;
    by_reason_[ROCKSDB_NAMESPACE::GetCompactionReasonString(
        info.compaction_reason)] += written;
  }
  // When the last flush or compaction of this process finished.
  std::chrono::steady_clock::time_point LastJobEnd() const {
    std::lock_guard<std::mutex> lock(mu_);
    return last_job_end_;
  }
  void Print(uint64_t* total_written, uint64_t* manual_written) const {
    std::lock_guard<std::mutex> lock(mu_);
    *total_written = *manual_written = 0;
    std::printf("Compactions by output level (this process):\n");
    for (const auto& [level, l] : levels_) {
      std::printf("  L%d: %" PRIu64 " compactions (%" PRIu64
                  " trivial moves), %" PRIu64 " bytes written, %" PRIu64
                  " input records\n",
                  level, l.compactions, l.trivial_moves, l.bytes_written,
                  l.input_records);
      *total_written += l.bytes_written;
    }
    std::printf("Compaction bytes written by reason:");
    for (const auto& [reason, bytes] : by_reason_) {
      std::printf(" %s=%" PRIu64, reason.c_str(), bytes);
    }
    auto manual = by_reason_.find("ManualCompaction");
    if (manual != by_reason_.end()) *manual_written = manual->second;
    std::printf("\n  started outside RocksDB's picker (manual): %.1f%%\n",
                100.0 * Ratio(*manual_written, *total_written));
  }

 private:
  struct PerLevel {
    uint64_t compactions = 0, trivial_moves = 0, bytes_written = 0,
             input_records = 0;
  };
  mutable std::mutex mu_;
  std::map<int, PerLevel> levels_;
  std::map<std::string, uint64_t> by_reason_;
  std::chrono::steady_clock::time_point last_job_end_;
};

std::shared_ptr<CompactionTally> Tally() {
  static auto* tally =
      new std::shared_ptr<CompactionTally>(std::make_shared<CompactionTally>());
  return *tally;
}

// --clock_excludes_pauses: one clock, and one Env around `base` that uses it,
// for the process (every DB db_bench opens shares them). Null until the first
// call.
std::shared_ptr<PauseExcludingClock> pause_excluding_clock;

ROCKSDB_NAMESPACE::Env* PauseExcludingEnv(ROCKSDB_NAMESPACE::Env* base) {
  static ROCKSDB_NAMESPACE::CompositeEnvWrapper* env = [base] {
    pause_excluding_clock =
        std::make_shared<PauseExcludingClock>(base->GetSystemClock());
    return new ROCKSDB_NAMESPACE::CompositeEnvWrapper(base,
                                                      pause_excluding_clock);
  }();
  return env;
}

}  // namespace

ROCKSDB_NAMESPACE::hybridkv::HybridTableOptions TableOptionsFromFlags() {
  ROCKSDB_NAMESPACE::hybridkv::HybridTableOptions t;
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
  ROCKSDB_NAMESPACE::Status s = ROCKSDB_NAMESPACE::hybridkv::ParseMergeLevel(
      FLAGS_hybrid_merge_level, &t.merge_level);
  if (!s.ok()) {
    Die("--hybrid_merge_level: " + s.ToString());
  }
  t.scan_prefetch = FLAGS_hybrid_scan_prefetch;
  t.scan_prefetch_max = FLAGS_hybrid_scan_prefetch_max;
  return t;
}

void ApplyOptions(Options* options) {
  Mix();  // parse early: a bad mix fails before any work
  DeviceRequestsAtStart();
  options->listeners.push_back(Tally());
  if (FLAGS_clock_excludes_pauses) {
    options->env = PauseExcludingEnv(options->env);
  }
  if (!FLAGS_hybrid) {
    return;
  }
  ROCKSDB_NAMESPACE::hybridkv::HybridOptions hybrid;
  hybrid.table = TableOptionsFromFlags();
  auto& t = hybrid.table;
  t.inner = options->table_factory;  // keep db_bench's BlockBasedTable settings
  // HybridKV sets the large class's policy; a db_bench flag for it given on
  // the command line wins (db_bench has already copied it into `options`).
  auto given = [](const char* flag) {
    return !gflags::GetCommandLineFlagInfoOrDie(flag).is_default;
  };
  if (given("enable_blob_files")) {
    hybrid.enable_blob_files = options->enable_blob_files;
  }
  if (given("enable_blob_garbage_collection")) {
    hybrid.enable_blob_garbage_collection =
        options->enable_blob_garbage_collection;
  }
  if (given("blob_garbage_collection_age_cutoff")) {
    hybrid.blob_garbage_collection_age_cutoff =
        options->blob_garbage_collection_age_cutoff;
  }
  hybrid.blob_garbage_collection_min_garbage_ratio =
      FLAGS_hybrid_blob_gc_min_garbage_ratio;
  if (given("blob_compaction_readahead_size")) {
    hybrid.blob_compaction_readahead_size =
        options->blob_compaction_readahead_size;
  }
  ROCKSDB_NAMESPACE::Status s =
      ROCKSDB_NAMESPACE::hybridkv::ConfigureOptions(options, hybrid);
  if (!s.ok()) {
    Die("--hybrid: " + s.ToString());
  }
  std::fprintf(
      stdout,
      "HybridKV: enabled (medium %u..%u bytes by %s, merge level %s, "
      "min_blob_size %" PRIu64 ")\n",
      t.medium_min_value_size, t.medium_max_value_size,
      FLAGS_hybrid_classify_by.c_str(),
      ROCKSDB_NAMESPACE::hybridkv::MergeLevelToString(t.merge_level).c_str(),
      options->min_blob_size);
}

bool ValueSizeMixEnabled() { return !Mix().empty(); }

unsigned int NextValueSize() {
  // Seeded from --seed, so every arm of an A/B run draws the same sizes.
  static std::atomic<uint64_t> next_stream{0};
  thread_local std::mt19937_64 rng(static_cast<uint64_t>(FLAGS_seed) * 1000003 +
                                   next_stream.fetch_add(1));
  const double u = std::uniform_real_distribution<double>(0.0, 1.0)(rng);
  for (const MixEntry& e : Mix()) {
    if (u <= e.cumulative) return e.bytes;
  }
  return Mix().back().bytes;
}

namespace {

using namespace ROCKSDB_NAMESPACE;  // NOLINT: tickers and metadata types

// The default column family's levels, printed, and in one line for scripts.
struct Shape {
  int populated = 0;  // levels below L0 that hold files
  std::string line;   // "L0:2/1.5M,L6:40/120.0M"
  uint64_t max_sst = 0;
  // The share of the SSTs' entries above the last populated level: a point
  // read of such a key finds its newest version there. With values
  // separated, upper levels hold more entries per byte, so RocksDB's
  // byte-sized levels put more of them above the last one.
  double above_last = 0;
};

Shape ReportShape(DB* db) {
  ColumnFamilyMetaData meta;
  db->GetColumnFamilyMetaData(&meta);
  std::printf("LSM shape (default column family):\n");
  Shape shape;
  uint64_t entries = 0, last_level_entries = 0;
  for (const auto& level : meta.levels) {
    uint64_t level_entries = 0;
    for (const auto& file : level.files) {
      shape.max_sst = std::max(shape.max_sst, file.size);
      level_entries += file.num_entries;
    }
    if (level.files.empty()) continue;
    shape.populated += level.level > 0 ? 1 : 0;
    entries += level_entries;
    last_level_entries = level_entries;  // levels come in order
    std::printf("  L%d: %zu files, %" PRIu64 " bytes, %" PRIu64 " entries\n",
                level.level, level.files.size(), level.size, level_entries);
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%sL%d:%zu/%.1fM",
                  shape.line.empty() ? "" : ",", level.level,
                  level.files.size(), level.size / 1048576.0);
    shape.line += buf;
  }
  shape.above_last =
      entries == 0 ? 0
                   : 1.0 - static_cast<double>(last_level_entries) / entries;
  std::printf("  blob files: %zu, %" PRIu64 " bytes\n", meta.blob_files.size(),
              meta.blob_file_size);
  std::printf("  populated levels below L0: %d; largest SST %" PRIu64
              " bytes; entries above the last level: %.3f\n",
              shape.populated, shape.max_sst, shape.above_last);
  return shape;
}

// User operations and bytes: the YCSB driver counts them; for stock
// benchmarks, RocksDB statistics (needs --statistics).
struct UserWork {
  uint64_t ops = 0;
  uint64_t bytes = 0;
  uint64_t live_bytes = 0;         // 0: unknown
  double settled_ops_per_sec = 0;  // 0: unknown (no YCSB benchmark ran)
  // The same spans on the wall clock (Unix epoch, microseconds; 0: unknown):
  // the workload's start (its setup included, as in db_bench's own timer),
  // its last operation, and the end of settling. A harness that pauses this
  // process (scripts/ab --interleave) counts its own running time within them.
  int64_t wall_begin_us = 0, wall_ops_end_us = 0, wall_settled_end_us = 0;
};

// A steady-clock instant on the wall clock, in microseconds since the epoch.
int64_t WallMicros(std::chrono::steady_clock::time_point t) {
  const auto system_now = std::chrono::system_clock::now();
  const auto steady_now = std::chrono::steady_clock::now();
  return std::chrono::duration_cast<std::chrono::microseconds>(
             system_now.time_since_epoch() - (steady_now - t))
      .count();
}

UserWork ReportUserWork(Statistics* stats) {
  UserWork work;
  YcsbSummary y;
  if (FinishYcsb(&y)) {
    work.ops = y.ops;
    work.bytes = y.user_read_bytes + y.user_write_bytes;
    work.live_bytes = y.live_known ? y.live_bytes : 0;
    // Settled: until the last flush or compaction that finished, if one
    // finished after the last operation (under waitforcompaction).
    const auto settled_end = std::max(y.end, Tally()->LastJobEnd());
    const double seconds =
        std::chrono::duration<double>(settled_end - y.start).count();
    work.settled_ops_per_sec = Ratio(y.ops, seconds);
    work.wall_begin_us = WallMicros(y.start);
    work.wall_ops_end_us = WallMicros(y.end);
    work.wall_settled_end_us = WallMicros(settled_end);
    std::printf("YCSB: %" PRIu64 " ops, %" PRIu64
                " records; user bytes read %" PRIu64 ", written %" PRIu64
                "; gets found %" PRIu64 ", not found %" PRIu64
                "; scanned entries %" PRIu64 "\n",
                y.ops, y.records, y.user_read_bytes, y.user_write_bytes,
                y.found, y.not_found, y.scanned);
    std::printf("  values written by class: small %" PRIu64 ", medium %" PRIu64
                ", large %" PRIu64 "\n",
                y.writes_by_class[0], y.writes_by_class[1],
                y.writes_by_class[2]);
    if (y.live_known) {
      std::printf("  live user bytes by class: small %" PRIu64
                  ", medium %" PRIu64 ", large %" PRIu64 "\n",
                  y.live_by_class[0], y.live_by_class[1], y.live_by_class[2]);
    }
    // db_bench's ops/sec stops with the last operation and leaves the
    // compaction debt a load ran up to the next phase. With waitforcompaction
    // after the load, this rate includes paying it: what a device-bound
    // deployment sustains. (db_bench's own 5 s pause before waiting is not
    // counted: the clock stops when the last background job ends.)
    std::printf("  settled throughput: %.0f ops/s (%" PRIu64
                " ops / %.1f s from the first operation to the end of the "
                "last flush or compaction, or of the last operation if "
                "later)\n",
                work.settled_ops_per_sec, y.ops, seconds);
  } else if (stats != nullptr) {
    work.ops = stats->getTickerCount(NUMBER_KEYS_WRITTEN) +
               stats->getTickerCount(NUMBER_KEYS_READ) +
               stats->getTickerCount(NUMBER_DB_SEEK);
    work.bytes = stats->getTickerCount(BYTES_WRITTEN) +
                 stats->getTickerCount(BYTES_READ) +
                 stats->getTickerCount(ITER_BYTES_READ);
  }
  return work;
}

// Write and read bytes by source, from RocksDB's statistics and HybridKV's.
void ReportStatisticsIo(Statistics* stats, uint64_t medium_read,
                        uint64_t user_bytes) {
  auto ticker = [&](Tickers t) { return stats->getTickerCount(t); };
  const uint64_t w_flush = ticker(FLUSH_WRITE_BYTES),
                 w_compact = ticker(COMPACT_WRITE_BYTES),
                 w_wal = ticker(WAL_FILE_BYTES),
                 r_compact = ticker(COMPACT_READ_BYTES),
                 r_sst = ticker(LAST_LEVEL_READ_BYTES) +
                         ticker(NON_LAST_LEVEL_READ_BYTES),
                 r_blob = ticker(BLOB_DB_BLOB_FILE_BYTES_READ),
                 w_blob = ticker(BLOB_DB_BLOB_FILE_BYTES_WRITTEN);
  std::printf("RocksDB statistics: write: flush %" PRIu64
              ", compaction %" PRIu64 ", WAL %" PRIu64
              " (blob files written %" PRIu64
              ", part of flush/compaction); read: compaction %" PRIu64
              ", SST reads %" PRIu64 ", blob file reads %" PRIu64 "\n",
              w_flush, w_compact, w_wal, w_blob, r_compact, r_sst, r_blob);
  std::printf(
      "I/O amplification from statistics: write %.3f "
      "((flush+compaction+WAL) / user), read %.3f ((compaction "
      "read + user-read SST and blob bytes + medium reads %" PRIu64
      ") / user)\n",
      Ratio(w_flush + w_compact + w_wal, user_bytes),
      Ratio(r_compact + r_sst + r_blob + medium_read, user_bytes), medium_read);
}

// Read requests per op by where they went, for read phases: SST blocks
// (block cache misses: with direct reads, about one request each), blob files,
// and medium files; and scan prefetch's medium values read ahead and used.
void ReportReadSources(Statistics* stats,
                       const ROCKSDB_NAMESPACE::hybridkv::HybridStatistics& hs,
                       uint64_t ops) {
  const double sst = Ratio(stats->getTickerCount(BLOCK_CACHE_MISS), ops);
  HistogramData blob_reads;
  stats->histogramData(BLOB_DB_BLOB_FILE_READ_MICROS, &blob_reads);
  const double blob = Ratio(blob_reads.count, ops);
  const double medium = Ratio(hs.resolve_reads, ops);
  const double prefetched = Ratio(hs.scan_values_prefetched, ops);
  const double used = Ratio(hs.scan_values_used, ops);
  std::printf(
      "Read requests per op by source: SST blocks %.3f (block cache "
      "misses), blob files %.3f, medium files %.3f; scan prefetch: "
      "%.3f medium values read ahead per op, %.3f of them used\n",
      sst, blob, medium, prefetched, used);
  std::printf(
      "ext_reads: sst_reads_per_op=%.3f blob_reads_per_op=%.3f "
      "medium_reads_per_op=%.3f prefetched_per_op=%.3f "
      "prefetch_used_per_op=%.3f\n",
      sst, blob, medium, prefetched, used);
}

// Space: what the DB keeps on disk for data, over the live user bytes.
double ReportSpace(const DiskBytes& disk, const UserWork& work) {
  std::printf("On disk: sst %" PRIu64 ", blob %" PRIu64 ", medium %" PRIu64
              ", other (WAL, MANIFEST, LOG...) %" PRIu64 " bytes\n",
              disk.sst, disk.blob, disk.medium, disk.other);
  const double space_amp = Ratio(disk.Data(), work.live_bytes);
  if (space_amp > 0) {
    std::printf("Space amplification: %.3f (sst+blob+medium %" PRIu64
                " / live user bytes %" PRIu64 ")\n",
                space_amp, disk.Data(), work.live_bytes);
  } else {
    std::printf("Space amplification: n/a (live user bytes unknown)\n");
  }
  return space_amp;
}

struct ProcessIo {
  std::map<std::string, uint64_t> counters;  // /proc/self/io
  double dev_reads = -1, dev_writes = -1;    // device requests per op
  double amp_read = 0, amp_write = 0;
};

// I/O: device bytes of the whole process (DB open included) over the user
// bytes of all requests; read and write parts add up to Parallax's I/O
// amplification.
ProcessIo ReportProcessIo(const UserWork& work) {
  ProcessIo p;
  auto& io = p.counters;
  io = ReadProcSelfIo();
  std::printf("Process I/O (/proc/self/io): read_bytes %" PRIu64
              ", write_bytes %" PRIu64 ", rchar %" PRIu64 ", wchar %" PRIu64
              "\n",
              io["read_bytes"], io["write_bytes"], io["rchar"], io["wchar"]);
  const DeviceRequests start = DeviceRequestsAtStart();
  const DeviceRequests now = ReadDeviceRequests(FLAGS_db);
  if (start.known && now.known) {
    p.dev_reads = Ratio(now.reads - start.reads, work.ops);
    p.dev_writes = Ratio(now.writes - start.writes, work.ops);
  }
  std::printf(
      "I/O requests per op: system calls (syscr/syscw) read %.3f, "
      "write %.3f; device (whole device) read %.3f, write %.3f\n",
      Ratio(io["syscr"], work.ops), Ratio(io["syscw"], work.ops), p.dev_reads,
      p.dev_writes);
  p.amp_read = Ratio(io["read_bytes"], work.bytes);
  p.amp_write = Ratio(io["write_bytes"], work.bytes);
  std::printf("I/O amplification (device bytes / %" PRIu64
              " user bytes): read %.3f, write %.3f, total %.3f\n",
              work.bytes, p.amp_read, p.amp_write, p.amp_read + p.amp_write);
  return p;
}

struct Cpu {
  double user = 0, sys = 0;
};

Cpu ReportCpu(uint64_t ops) {
  rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  Cpu cpu;
  cpu.user = usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6;
  cpu.sys = usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
  std::printf(
      "CPU seconds (all threads, whole process): user %.2f, system "
      "%.2f; %.2f us per op\n",
      cpu.user, cpu.sys, Ratio((cpu.user + cpu.sys) * 1e6, ops));
  std::printf(
      "CPU cycles: not counted in-process; scripts/ab runs db_bench "
      "under 'perf stat -e cycles' where the PMU is available\n");
  return cpu;
}

}  // namespace

void Report(DB* db) {
  if (db == nullptr) {
    return;
  }
  std::printf("\n=== db_bench_ext report ===\n");
  if (pause_excluding_clock != nullptr) {
    std::printf(
        "Clock: the DB's monotonic clock left out %.1f s of pauses "
        "(--clock_excludes_pauses)\n",
        pause_excluding_clock->PausedNanos() / 1e9);
  }
  const Shape shape = ReportShape(db);

  const DiskBytes disk = ListDisk(db);
  Statistics* stats = db->GetOptions().statistics.get();
  const UserWork work = ReportUserWork(stats);
  const double space_amp = ReportSpace(disk, work);
  ProcessIo pio = ReportProcessIo(work);
  auto& io = pio.counters;
  const double dev_reads = pio.dev_reads, dev_writes = pio.dev_writes;
  const double amp_r = pio.amp_read, amp_w = pio.amp_write;
  ROCKSDB_NAMESPACE::hybridkv::HybridStatistics hs;
  // Read phases flush nothing: --hybrid says HybridKV is on there.
  const bool hybrid =
      ROCKSDB_NAMESPACE::hybridkv::GetStatistics(db, &hs).ok() &&
      (FLAGS_hybrid || hs.medium_values_extracted > 0 ||
       hs.small_values_flushed > 0);
  if (!hybrid) {
    hs = ROCKSDB_NAMESPACE::hybridkv::HybridStatistics();
  }
  if (stats != nullptr) {
    ReportStatisticsIo(stats, hs.merge_bytes_read + hs.resolve_bytes_read,
                       work.bytes);
    ReportReadSources(stats, hs, work.ops);
  }
  // Write stalls and compaction I/O of this process (a phase): RocksDB's
  // tickers, and the write-stall histogram, whose count is the writes that
  // were delayed or stopped.
  uint64_t stall_micros = 0, stall_count = 0, compact_read = 0,
           compact_write = 0;
  if (stats != nullptr) {
    stall_micros = stats->getTickerCount(STALL_MICROS);
    HistogramData stalls;
    stats->histogramData(WRITE_STALL, &stalls);
    stall_count = stalls.count;
    compact_read = stats->getTickerCount(COMPACT_READ_BYTES);
    compact_write = stats->getTickerCount(COMPACT_WRITE_BYTES);
    std::printf("Write stalls: %" PRIu64 " writes delayed, %" PRIu64
                " us in all; compaction read %" PRIu64 ", written %" PRIu64
                " bytes\n",
                stall_count, stall_micros, compact_read, compact_write);
  }
  uint64_t compaction_written = 0, manual_written = 0;
  Tally()->Print(&compaction_written, &manual_written);
  const Cpu cpu = ReportCpu(work.ops);
  if (hybrid) {
    std::printf("HybridKV:\n%s", hs.ToString().c_str());
  }
  // One line for scripts: key=value, space separated.
  std::printf(
      "ext_summary: ops=%" PRIu64 " user_bytes=%" PRIu64 " read_bytes=%" PRIu64
      " write_bytes=%" PRIu64
      " io_amp_read=%.4f io_amp_write=%.4f disk_bytes=%" PRIu64
      " live_bytes=%" PRIu64
      " space_amp=%.4f cpu_s=%.3f"
      " cpu_us_per_op=%.3f user_us_per_op=%.3f sys_us_per_op=%.3f"
      " read_reqs_per_op=%.3f write_reqs_per_op=%.3f"
      " dev_read_reqs_per_op=%.3f dev_write_reqs_per_op=%.3f"
      " compaction_bytes=%" PRIu64
      " manual_compaction_share=%.4f"
      " max_sst_bytes=%" PRIu64
      " settled_ops_per_sec=%.0f"
      " wall_begin_us=%" PRId64 " wall_ops_end_us=%" PRId64
      " wall_settled_end_us=%" PRId64 " stall_micros=%" PRIu64
      " stall_count=%" PRIu64 " compact_read_bytes=%" PRIu64
      " compact_write_bytes=%" PRIu64
      " levels=%d above_last=%.4f shape=%s\n",
      work.ops, work.bytes, io["read_bytes"], io["write_bytes"], amp_r, amp_w,
      disk.Data(), work.live_bytes, space_amp, cpu.user + cpu.sys,
      Ratio((cpu.user + cpu.sys) * 1e6, work.ops),
      Ratio(cpu.user * 1e6, work.ops), Ratio(cpu.sys * 1e6, work.ops),
      Ratio(io["syscr"], work.ops), Ratio(io["syscw"], work.ops), dev_reads,
      dev_writes, compaction_written, Ratio(manual_written, compaction_written),
      shape.max_sst, work.settled_ops_per_sec, work.wall_begin_us,
      work.wall_ops_end_us, work.wall_settled_end_us, stall_micros,
      stall_count, compact_read, compact_write, shape.populated,
      shape.above_last, shape.line.empty() ? "empty" : shape.line.c_str());
  std::fflush(stdout);
}

}  // namespace hybridkv_ext
