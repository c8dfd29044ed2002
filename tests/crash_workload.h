// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// The deterministic workload of the crash test (crash_test.cc), shared by the
// child that runs it (crash_child.cc) and the parent that checks what survived
// a SIGKILL: operation i is a pure function of (seed, i), so the parent can
// rebuild the expected state of any prefix of operations. The secondary test
// (secondary_test.cc) follows the same child.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "hybridkv/hybridkv.h"
#include "rocksdb/options.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace crash {

constexpr uint64_t kKeys = 1500;

inline std::string Key(uint64_t i) {
  char buf[24];
  snprintf(buf, sizeof(buf), "crash%010llu",
           static_cast<unsigned long long>(i));
  return buf;
}

struct Op {
  enum Kind { kPut, kDelete, kDeleteRange, kBatch } kind;
  // kPut/kDelete: one entry; kBatch: several puts; kDeleteRange: [first,
  // second)
  std::vector<std::pair<std::string, std::string>> entries;
  bool sync = false;
};

// Values of every class (small < 96, medium 96..999, large >= 1000), unique to
// operation `i`.
inline std::string Value(std::mt19937_64& rng, uint64_t i) {
  const uint64_t pick = rng() % 10;
  size_t size = pick < 3 ? 8 + rng() % 80
                         : (pick < 8 ? 96 + rng() % 900 : 1000 + rng() % 2000);
  std::string v = "op" + std::to_string(i) + ":";
  while (v.size() < size) v.push_back(static_cast<char>('a' + rng() % 26));
  v.resize(size);
  return v;
}

inline Op MakeOp(uint64_t seed, uint64_t i) {
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + i);
  Op op;
  const uint64_t r = rng() % 100;
  op.sync = i % 25 == 0;
  if (r < 80) {
    op.kind = Op::kPut;
    std::string k = Key(rng() % kKeys);
    op.entries.emplace_back(k, Value(rng, i));
  } else if (r < 92) {
    op.kind = Op::kDelete;
    op.entries.emplace_back(Key(rng() % kKeys), "");
  } else if (r < 96) {
    op.kind = Op::kDeleteRange;
    const uint64_t a = rng() % kKeys;
    op.entries.emplace_back(Key(a), Key(a + 1 + rng() % 8));
  } else {
    op.kind = Op::kBatch;
    for (int j = 0; j < 4; ++j) {
      std::string k = Key(rng() % kKeys);
      op.entries.emplace_back(k, Value(rng, i));
    }
  }
  return op;
}

inline void Apply(const Op& op, std::map<std::string, std::string>* model) {
  switch (op.kind) {
    case Op::kPut:
    case Op::kBatch:
      for (const auto& e : op.entries) (*model)[e.first] = e.second;
      break;
    case Op::kDelete:
      model->erase(op.entries[0].first);
      break;
    case Op::kDeleteRange:
      model->erase(model->lower_bound(op.entries[0].first),
                   model->lower_bound(op.entries[0].second));
      break;
  }
}

// The options of both the child and the parent; `merge_level` varies between
// child runs.
inline Options MakeOptions(int merge_level) {
  Options options;
  options.create_if_missing = true;
  HybridOptions hybrid;
  hybrid.table.merge_level = merge_level;
  ConfigureOptions(&options, hybrid).PermitUncheckedError();
  options.num_levels = 5;
  options.write_buffer_size = 64 << 10;
  options.target_file_size_base = 64 << 10;
  // Low enough that the LSM reaches base level L1 within the default run,
  // where merge_level=auto turns to -2.
  options.max_bytes_for_level_base = 64 << 10;
  options.max_bytes_for_level_multiplier = 2;
  options.level0_file_num_compaction_trigger = 2;
  options.blob_file_size = 256 << 10;
  options.max_background_jobs = 2;
  return options;
}

// True when an operation below or at `max_op` wrote `value` for `key`. A value
// names its operation ("op<i>:..."), unless it is cut shorter than that
// prefix (small values may be 8 bytes): then every operation whose number
// starts with the digits kept is a candidate.
inline bool WrittenBy(uint64_t seed, const std::string& key,
                      const std::string& value, uint64_t max_op) {
  const size_t colon = value.find(':');
  const std::string digits = value.substr(
      2, colon == std::string::npos ? std::string::npos : colon - 2);
  const uint64_t stem = std::strtoull(digits.c_str(), nullptr, 10);
  std::vector<uint64_t> candidates = {stem};
  if (colon == std::string::npos) {  // cut: the number may be longer
    for (uint64_t scale = 10; stem * scale <= max_op; scale *= 10) {
      for (uint64_t r = 0; r < scale; ++r)
        candidates.push_back(stem * scale + r);
    }
  }
  for (uint64_t op : candidates) {
    if (op > max_op) continue;
    for (const auto& e : MakeOp(seed, op).entries) {
      if (e.first == key && e.second == value) return true;
    }
  }
  return false;
}

}  // namespace crash
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
