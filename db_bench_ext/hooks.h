// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// db_bench_ext/: RocksDB's own db_bench, built from tools/db_bench_tool.cc with
// the small patch db_bench_tool.patch (applied at build time, never committed
// as a copy), plus the flags below. Every stock flag keeps working. The patch
// calls exactly these hooks:
//
//   ApplyOptions     in Benchmark::Open, after options come from flags or
//                    --options_file and before the DB opens: --hybrid
//                    configures HybridKV through ConfigureOptions.
//   NextValueSize    in RandomGenerator::Generate, when --value_size_mix is
//                    set.
//   IsYcsbBenchmark  in Benchmark::Run's name dispatch: ycsb_load, ycsb_a ..
//                    ycsb_f and ycsb_u (100% updates) run
//                    Benchmark::HybridKVYcsb (added by the patch),
//                    which calls RunYcsbThread once per thread (ycsb.cc).
//   Report           in ~Benchmark, before the DB closes: LSM shape, I/O and
//                    space amplification, CPU, HybridKV counters.
//
// May depend on: include/hybridkv (public API), RocksDB's public headers,
// gflags.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

#include "plugin/hybridkv/include/hybridkv/hybridkv.h"
#include "rocksdb/db.h"
#include "rocksdb/options.h"

namespace hybridkv_ext {

void ApplyOptions(ROCKSDB_NAMESPACE::Options* options);
// HybridTable's options as the --hybrid_* flags set them.
ROCKSDB_NAMESPACE::hybridkv::HybridTableOptions TableOptionsFromFlags();
bool ValueSizeMixEnabled();
unsigned int NextValueSize();
void Report(ROCKSDB_NAMESPACE::DB* db);

// YCSB (ycsb.cc). The operation kinds map, in the patch, onto db_bench's
// OperationType for its per-operation histograms.
enum class OpKind { kRead, kWrite, kSeek, kUpdate };

// True for ycsb_load, ycsb_a..ycsb_f and ycsb_u; remembers which one runs
// next.
bool IsYcsbBenchmark(const std::string& name);

// One thread's share of the current YCSB benchmark. `finished_op` is called
// after each operation, `add_bytes` with the user bytes it moved.
void RunYcsbThread(ROCKSDB_NAMESPACE::DB* db, int tid,
                   const ROCKSDB_NAMESPACE::ReadOptions& read_options,
                   const ROCKSDB_NAMESPACE::WriteOptions& write_options,
                   const std::function<void(OpKind)>& finished_op,
                   const std::function<void(int64_t)>& add_bytes);

struct YcsbSummary {
  uint64_t ops = 0;
  uint64_t user_read_bytes = 0;   // key + value bytes returned by reads/scans
  uint64_t user_write_bytes = 0;  // key + value bytes written
  uint64_t found = 0, not_found = 0, scanned = 0;
  uint64_t writes_by_class[3] = {0, 0, 0};  // small, medium, large
  uint64_t records = 0;
  bool live_known = false;
  uint64_t live_bytes = 0;  // key + value bytes of the live records
  uint64_t live_by_class[3] = {0, 0, 0};
  // When the workload started (its setup included) and the last operation
  // finished.
  std::chrono::steady_clock::time_point start, end;
};

// False when no YCSB benchmark ran in this process. Otherwise fills `summary`
// and saves the live-record sizes next to the DB for the next phase.
bool FinishYcsb(YcsbSummary* summary);

}  // namespace hybridkv_ext
