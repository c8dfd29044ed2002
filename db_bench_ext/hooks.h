// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// db_bench_ext/: RocksDB's own db_bench, built from tools/db_bench_tool.cc with
// the small patch db_bench_tool.patch (applied at build time, never committed
// as a copy), plus the flags below. Every stock flag keeps working. The patch
// calls exactly these hooks:
//
//   ApplyOptions  in Benchmark::Open, after options come from flags or
//   --options_file and
//                 before the DB opens: --hybrid configures HybridKV through
//                 ConfigureOptions.
//   NextValueSize in RandomGenerator::Generate, when --value_size_mix is set.
//   Report        in ~Benchmark, before the DB closes: LSM shape, I/O, CPU,
//   HybridKV counters.
//
// May depend on: include/hybridkv (public API), RocksDB's public headers,
// gflags.
#pragma once

#include "rocksdb/db.h"
#include "rocksdb/options.h"

namespace hybridkv_ext {

void ApplyOptions(ROCKSDB_NAMESPACE::Options* options);
bool ValueSizeMixEnabled();
unsigned int NextValueSize();
void Report(ROCKSDB_NAMESPACE::DB* db);

}  // namespace hybridkv_ext
