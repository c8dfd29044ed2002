// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// YCSB core workloads as db_bench benchmarks: ycsb_load and ycsb_a..ycsb_f,
// and ycsb_u (100% updates, an update-heavy phase for scripts/ab --steady).
// Keys are YCSB's: "user" + the FNV-1a hash of the record number, zero-padded
// to 24 bytes, so inserts land in random key order. Request distributions are
// YCSB's scrambled zipfian (theta --ycsb_zipf) and, for ycsb_d, "latest".
// Every write draws its value size from --value_size_mix (or --value_size),
// so an update can move a key from one placement class to another.
//
// The driver remembers the value size of every record (2 bytes a record) and
// keeps it next to the DB in <db>.ycsb-live, so later phases, run as separate
// processes, still know the live logical bytes for space amplification.
//
// With --duration (seconds) and no --ycsb_ops, a phase runs until the
// deadline. --ycsb_timeline=FILE writes, every --ycsb_timeline_interval
// seconds, the operations finished so far (counted here, as each one returns)
// and RocksDB's running stall and compaction tickers: a throughput timeline
// that does not rely on db_bench's --report_file interval rates.
#include <gflags/gflags.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <condition_variable>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "plugin/hybridkv/db_bench_ext/hooks.h"
#include "rocksdb/db.h"
#include "rocksdb/iterator.h"
#include "rocksdb/statistics.h"

// db_bench's own flags (tools/db_bench_tool.cc).
DECLARE_int64(num);
DECLARE_int64(reads);
DECLARE_int64(seed);
DECLARE_int32(threads);
DECLARE_int32(duration);
DECLARE_int32(value_size);

DEFINE_double(ycsb_zipf, 0.99,
              "YCSB: zipfian constant (theta) of the request distribution.");
DEFINE_int64(ycsb_ops, -1,
             "YCSB: operations of a ycsb_a..ycsb_f run, over all threads "
             "(default: --reads if > 0, else --num). ycsb_load inserts --num.");
DEFINE_int32(ycsb_max_scan_length, 100,
             "YCSB E: scan lengths are uniform in 1..this.");
DEFINE_string(ycsb_timeline, "",
              "YCSB: write a timeline to this file: one line at the start, "
              "every --ycsb_timeline_interval seconds and at the end, with "
              "the seconds since the workload started, the operations "
              "finished so far (all, reads, writes) and RocksDB's running "
              "stall and compaction tickers (needs --statistics for those).");
DEFINE_double(ycsb_timeline_interval, 10,
              "YCSB: seconds between --ycsb_timeline lines.");

namespace hybridkv_ext {
namespace {

using ROCKSDB_NAMESPACE::DB;
using ROCKSDB_NAMESPACE::ReadOptions;
using ROCKSDB_NAMESPACE::Slice;
using ROCKSDB_NAMESPACE::Status;
using ROCKSDB_NAMESPACE::WriteOptions;

constexpr size_t kKeySize = 24;

enum class Workload { kLoad, kA, kB, kC, kD, kE, kF, kU };

struct Shares {  // percentages of each operation
  int read, update, insert, scan, rmw;
};

Shares SharesOf(Workload w) {
  switch (w) {
    case Workload::kLoad:
      return {0, 0, 100, 0, 0};
    case Workload::kA:
      return {50, 50, 0, 0, 0};
    case Workload::kB:
      return {95, 5, 0, 0, 0};
    case Workload::kC:
      return {100, 0, 0, 0, 0};
    case Workload::kD:
      return {95, 0, 5, 0, 0};
    case Workload::kE:
      return {0, 0, 5, 95, 0};
    case Workload::kF:
      return {50, 0, 0, 0, 50};
    case Workload::kU:  // not YCSB's: every operation an update
      return {0, 100, 0, 0, 0};
  }
  return {};
}

uint64_t Fnv64(uint64_t v) {  // YCSB's Utils.fnvhash64
  uint64_t hash = 0xCBF29CE484222325ull;
  for (int i = 0; i < 8; i++) {
    hash ^= v & 0xff;
    v >>= 8;
    hash *= 1099511628211ull;
  }
  return hash;
}

void MakeKey(uint64_t record, char* out) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "user%020" PRIu64, Fnv64(record));
  std::memcpy(out, buf, kKeySize);
}

// YCSB's ZipfianGenerator: item 0 is the most popular. Grows its item count
// incrementally, as YCSB does for "latest" and inserts.
class Zipfian {
 public:
  Zipfian(uint64_t items, double theta) : theta_(theta) {
    zeta2_ = Zeta(0, 2, 0);
    alpha_ = 1.0 / (1.0 - theta_);
    zetan_ = Zeta(0, std::max<uint64_t>(items, 1), 0);
    items_ = std::max<uint64_t>(items, 1);
    Eta();
  }
  uint64_t Next(uint64_t items, double u) {
    items = std::max<uint64_t>(items, 1);
    if (items > items_) {
      zetan_ = Zeta(items_, items, zetan_);
      items_ = items;
      Eta();
    }
    const double uz = u * zetan_;
    if (uz < 1.0) return 0;
    if (uz < 1.0 + std::pow(0.5, theta_))
      return std::min<uint64_t>(1, items - 1);
    const uint64_t r = static_cast<uint64_t>(
        static_cast<double>(items) * std::pow(eta_ * u - eta_ + 1, alpha_));
    return std::min(r, items - 1);
  }

 private:
  double Zeta(uint64_t from, uint64_t to, double initial) const {
    double sum = initial;
    for (uint64_t i = from; i < to; i++) {
      sum += 1.0 / std::pow(static_cast<double>(i + 1), theta_);
    }
    return sum;
  }
  void Eta() {
    eta_ = (1 - std::pow(2.0 / static_cast<double>(items_), 1 - theta_)) /
           (1 - zeta2_ / zetan_);
  }
  double theta_, zeta2_, alpha_, zetan_, eta_;
  uint64_t items_;
};

// Shared by all threads of one process.
struct State {
  std::once_flag init;
  Workload workload = Workload::kLoad;
  std::string live_path;
  std::atomic<bool> live_known{false};  // the sizes below cover every record
  std::unique_ptr<std::atomic<uint16_t>[]> sizes;  // 0: no such record
  uint64_t capacity = 0;
  std::atomic<uint64_t> records{0};  // records inserted so far
  std::atomic<uint64_t> next_load{0};
  std::string value_pool;
  YcsbSummary summary;
  std::mutex summary_mu;
  // Operations finished so far, for the timeline: all, and reads (gets,
  // scans) and writes (inserts, updates, read-modify-writes) among them.
  std::atomic<uint64_t> done{0}, done_reads{0}, done_writes{0};
  std::atomic<int> threads_done{0};
} g;

// --ycsb_timeline: a thread that writes a line every interval until Stop.
class Timeline {
 public:
  void Start(DB* db) {
    if (FLAGS_ycsb_timeline.empty()) return;
    out_ = std::fopen(FLAGS_ycsb_timeline.c_str(), "w");
    if (out_ == nullptr) {
      std::fprintf(stderr, "ycsb: cannot write --ycsb_timeline=%s\n",
                   FLAGS_ycsb_timeline.c_str());
      std::exit(1);
    }
    stats_ = db->GetDBOptions().statistics;
    std::fprintf(out_,
                 "seconds\tops\treads\twrites\tstall_micros\t"
                 "compact_read_bytes\tcompact_write_bytes\n");
    start_ = std::chrono::steady_clock::now();
    Line();
    thread_ = std::thread([this] { Loop(); });
  }
  // Writes the last line (the end of the workload) and ends the thread.
  void Stop() {
    if (out_ == nullptr) return;
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
    Line();
    std::fclose(out_);
    out_ = nullptr;
  }

 private:
  void Loop() {
    const auto interval = std::chrono::duration_cast<
        std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(std::max(FLAGS_ycsb_timeline_interval,
                                               0.1)));
    std::unique_lock<std::mutex> lock(mu_);
    for (auto next = start_ + interval;; next += interval) {
      if (cv_.wait_until(lock, next, [this] { return stop_; })) return;
      Line();
    }
  }
  void Line() {
    using ROCKSDB_NAMESPACE::Tickers;
    auto ticker = [&](Tickers t) -> uint64_t {
      return stats_ ? stats_->getTickerCount(t) : 0;
    };
    // The three counts are read one after another: within an op of each
    // other.
    const uint64_t ops = g.done.load(std::memory_order_relaxed);
    const uint64_t reads = g.done_reads.load(std::memory_order_relaxed);
    const uint64_t writes = g.done_writes.load(std::memory_order_relaxed);
    const double seconds = std::chrono::duration<double>(
                               std::chrono::steady_clock::now() - start_)
                               .count();
    std::fprintf(out_,
                 "%.3f\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64
                 "\t%" PRIu64 "\t%" PRIu64 "\n",
                 seconds, ops, reads, writes,
                 ticker(ROCKSDB_NAMESPACE::STALL_MICROS),
                 ticker(ROCKSDB_NAMESPACE::COMPACT_READ_BYTES),
                 ticker(ROCKSDB_NAMESPACE::COMPACT_WRITE_BYTES));
    std::fflush(out_);
  }

  std::FILE* out_ = nullptr;
  std::shared_ptr<ROCKSDB_NAMESPACE::Statistics> stats_;
  std::chrono::steady_clock::time_point start_;
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
} g_timeline;

bool g_ran = false;

// 0 small, 1 medium, 2 large, as HybridTable classifies (size or ratio).
unsigned int ClassOf(unsigned int bytes) {
  static const auto table_options = TableOptionsFromFlags();
  return static_cast<unsigned int>(table_options.Classify(kKeySize, bytes));
}

uint64_t RunOps() {
  if (g.workload == Workload::kLoad) return FLAGS_num;
  if (FLAGS_ycsb_ops > 0) return FLAGS_ycsb_ops;
  // Time-based: until --duration's deadline.
  if (FLAGS_duration > 0) return UINT64_MAX;
  return FLAGS_reads > 0 ? FLAGS_reads : FLAGS_num;
}

void Init(DB* db) {
  g.summary.start = std::chrono::steady_clock::now();
  g.live_path = db->GetName() + ".ycsb-live";
  uint64_t records = 0;
  std::vector<uint16_t> loaded;
  if (g.workload == Workload::kLoad) {
    g.live_known = true;
  } else {
    std::ifstream in(g.live_path, std::ios::binary);
    uint64_t n = 0;
    if (in.read(reinterpret_cast<char*>(&n), sizeof(n))) {
      loaded.resize(n);
      if (in.read(reinterpret_cast<char*>(loaded.data()),
                  static_cast<std::streamsize>(n * sizeof(uint16_t)))) {
        records = n;
        g.live_known = true;
      }
    }
    if (!g.live_known) {
      std::fprintf(stderr,
                   "ycsb: %s missing; assuming --num=%" PRId64
                   " records, live bytes unknown\n",
                   g.live_path.c_str(), FLAGS_num);
      records = FLAGS_num;
    }
  }
  // Room for every insert this process may make, whichever benchmarks follow.
  g.capacity = records + static_cast<uint64_t>(FLAGS_num) +
               static_cast<uint64_t>(std::max<int64_t>(
                   {FLAGS_reads, FLAGS_ycsb_ops, int64_t{0}})) +
               1;
  g.sizes.reset(new std::atomic<uint16_t>[g.capacity]);
  for (uint64_t i = 0; i < g.capacity; i++) {
    g.sizes[i].store(i < loaded.size() ? loaded[i] : 0,
                     std::memory_order_relaxed);
  }
  g.records.store(records);
  g.next_load.store(0);
  std::mt19937_64 rng(static_cast<uint64_t>(FLAGS_seed) ^ 0x5eedull);
  g.value_pool.resize(1 << 20);
  for (auto& c : g.value_pool) c = static_cast<char>(rng());
  g_timeline.Start(db);
}

}  // namespace

bool IsYcsbBenchmark(const std::string& name) {
  static const std::pair<const char*, Workload> kNames[] = {
      {"ycsb_load", Workload::kLoad}, {"ycsb_a", Workload::kA},
      {"ycsb_b", Workload::kB},       {"ycsb_c", Workload::kC},
      {"ycsb_d", Workload::kD},       {"ycsb_e", Workload::kE},
      {"ycsb_f", Workload::kF},       {"ycsb_u", Workload::kU}};
  for (const auto& n : kNames) {
    if (name == n.first) {
      g.workload = n.second;
      return true;
    }
  }
  return false;
}

namespace {

// One client thread of a YCSB phase: its random streams, its counters, and
// one method per operation.
class YcsbClient {
 public:
  YcsbClient(DB* db, int tid, const ReadOptions& read_options,
             const WriteOptions& write_options,
             const std::function<void(OpKind)>& finished_op,
             const std::function<void(int64_t)>& add_bytes)
      : db_(db),
        read_options_(read_options),
        write_options_(write_options),
        finished_op_(finished_op),
        add_bytes_(add_bytes),
        rng_(static_cast<uint64_t>(FLAGS_seed) * 7919 +
             static_cast<uint64_t>(tid) + 1) {
    if (g.workload != Workload::kLoad) {
      zipf_.reset(new Zipfian(g.records.load(), FLAGS_ycsb_zipf));
    }
  }

  // Runs `ops` operations of the phase's mix, or until --duration.
  void Run(uint64_t ops) {
    const Shares shares = SharesOf(g.workload);
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::seconds(FLAGS_duration);
    for (uint64_t i = 0; i < ops; i++) {
      if (FLAGS_duration > 0 && (i & 63) == 0 &&
          std::chrono::steady_clock::now() >= deadline) {
        break;
      }
      if (g.workload == Workload::kLoad) {
        Put(g.next_load.fetch_add(1));
        g.records.fetch_add(1, std::memory_order_release);
        finished_op_(OpKind::kWrite);
        Done(false);
        continue;
      }
      RunOne(shares);
      local_.ops++;
    }
    if (g.workload == Workload::kLoad) local_.ops = ops;
  }

  // Adds this thread's counters to the phase's.
  void MergeInto(YcsbSummary* summary) const {
    summary->ops += local_.ops;
    summary->user_read_bytes += local_.user_read_bytes;
    summary->user_write_bytes += local_.user_write_bytes;
    summary->found += local_.found;
    summary->not_found += local_.not_found;
    summary->scanned += local_.scanned;
    for (int c = 0; c < 3; c++) {
      summary->writes_by_class[c] += local_.writes_by_class[c];
    }
  }

 private:
  void RunOne(const Shares& shares) {
    int p = pct_(rng_);
    if ((p -= shares.read) < 0) {
      Get(Choose(g.workload == Workload::kD));
      finished_op_(OpKind::kRead);
      Done(true);
    } else if ((p -= shares.update) < 0) {
      Put(Choose(false));
      finished_op_(OpKind::kUpdate);
      Done(false);
    } else if ((p -= shares.insert) < 0) {
      const uint64_t record = g.records.load();
      Put(record);
      g.records.fetch_add(1, std::memory_order_release);
      finished_op_(OpKind::kWrite);
      Done(false);
    } else if ((p -= shares.scan) < 0) {
      Scan(Choose(false));
      finished_op_(OpKind::kSeek);
      Done(true);
    } else {  // read-modify-write: one operation, as YCSB counts it
      const uint64_t record = Choose(false);
      Get(record);
      Put(record);
      finished_op_(OpKind::kUpdate);
      Done(false);
    }
  }

  // For the timeline: one more operation finished.
  static void Done(bool read) {
    g.done.fetch_add(1, std::memory_order_relaxed);
    (read ? g.done_reads : g.done_writes)
        .fetch_add(1, std::memory_order_relaxed);
  }

  void Put(uint64_t record) {
    const unsigned int bytes = ValueSizeMixEnabled()
                                   ? NextValueSize()
                                   : static_cast<unsigned>(FLAGS_value_size);
    const size_t off = rng_() % (g.value_pool.size() - bytes);
    MakeKey(record, key_);
    Status s = db_->Put(write_options_, Slice(key_, kKeySize),
                        Slice(g.value_pool.data() + off, bytes));
    if (!s.ok()) {
      std::fprintf(stderr, "ycsb: Put: %s\n", s.ToString().c_str());
      std::exit(1);
    }
    if (record < g.capacity) {
      g.sizes[record].store(static_cast<uint16_t>(std::min(bytes, 65535u)),
                            std::memory_order_relaxed);
    } else {
      g.live_known = false;  // racy but monotonic: only ever set to false
    }
    local_.writes_by_class[ClassOf(bytes)]++;
    local_.user_write_bytes += kKeySize + bytes;
    add_bytes_(kKeySize + bytes);
  }

  uint64_t Choose(bool latest) {
    const uint64_t n = g.records.load(std::memory_order_acquire);
    const uint64_t z = zipf_->Next(n, unit_(rng_));
    if (latest) return n - 1 - z;
    return Fnv64(z) % n;  // scrambled: popular records spread over the keys
  }

  void Get(uint64_t record) {
    MakeKey(record, key_);
    Status s = db_->Get(read_options_, Slice(key_, kKeySize), &value_);
    if (s.ok()) {
      local_.user_read_bytes += kKeySize + value_.size();
      add_bytes_(kKeySize + value_.size());
      local_.found++;
    } else if (s.IsNotFound()) {
      local_.not_found++;
    } else {
      std::fprintf(stderr, "ycsb: Get: %s\n", s.ToString().c_str());
      std::exit(1);
    }
  }

  void Scan(uint64_t record) {
    MakeKey(record, key_);
    const int len = 1 + static_cast<int>(rng_() % FLAGS_ycsb_max_scan_length);
    std::unique_ptr<ROCKSDB_NAMESPACE::Iterator> it(
        db_->NewIterator(read_options_));
    int n = 0;
    for (it->Seek(Slice(key_, kKeySize)); it->Valid() && n < len;
         it->Next(), n++) {
      const uint64_t b = it->key().size() + it->value().size();
      local_.user_read_bytes += b;
      add_bytes_(static_cast<int64_t>(b));
    }
    if (!it->status().ok()) {
      std::fprintf(stderr, "ycsb: scan: %s\n", it->status().ToString().c_str());
      std::exit(1);
    }
    local_.scanned += n;
  }

  DB* const db_;
  const ReadOptions& read_options_;
  const WriteOptions& write_options_;
  const std::function<void(OpKind)>& finished_op_;
  const std::function<void(int64_t)>& add_bytes_;
  std::mt19937_64 rng_;
  std::uniform_real_distribution<double> unit_{0.0, 1.0};
  std::uniform_int_distribution<int> pct_{0, 99};
  std::unique_ptr<Zipfian> zipf_;
  YcsbSummary local_;
  char key_[kKeySize];
  std::string value_;
};

}  // namespace

void RunYcsbThread(DB* db, int tid, const ReadOptions& read_options,
                   const WriteOptions& write_options,
                   const std::function<void(OpKind)>& finished_op,
                   const std::function<void(int64_t)>& add_bytes) {
  std::call_once(g.init, Init, db);
  g_ran = true;
  const uint64_t threads = static_cast<uint64_t>(std::max(FLAGS_threads, 1));
  const uint64_t total = RunOps();
  const uint64_t my_ops =
      total / threads + (static_cast<uint64_t>(tid) < total % threads ? 1 : 0);
  YcsbClient client(db, tid, read_options, write_options, finished_op,
                    add_bytes);
  client.Run(my_ops);
  {
    std::lock_guard<std::mutex> lock(g.summary_mu);
    client.MergeInto(&g.summary);
    g.summary.end = std::max(g.summary.end, std::chrono::steady_clock::now());
  }
  // The last thread to finish ends the timeline.
  if (g.threads_done.fetch_add(1) + 1 == static_cast<int>(threads)) {
    g_timeline.Stop();
  }
}

bool FinishYcsb(YcsbSummary* summary) {
  if (!g_ran) return false;
  std::lock_guard<std::mutex> lock(g.summary_mu);
  *summary = g.summary;
  const uint64_t records = std::min(g.records.load(), g.capacity);
  summary->records = records;
  summary->live_known = g.live_known;
  if (g.live_known) {
    summary->live_bytes = 0;
    for (uint64_t c = 0; c < 3; c++) summary->live_by_class[c] = 0;
    std::vector<uint16_t> sizes(records);
    for (uint64_t i = 0; i < records; i++) {
      sizes[i] = g.sizes[i].load(std::memory_order_relaxed);
      if (sizes[i] > 0) {
        summary->live_bytes += kKeySize + sizes[i];
        summary->live_by_class[ClassOf(sizes[i])] += kKeySize + sizes[i];
      }
    }
    std::ofstream out(g.live_path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(&records), sizeof(records));
    out.write(reinterpret_cast<const char*>(sizes.data()),
              static_cast<std::streamsize>(records * sizeof(uint16_t)));
    if (!out) {
      std::fprintf(stderr, "ycsb: could not write %s\n", g.live_path.c_str());
    }
  }
  return true;
}

}  // namespace hybridkv_ext
