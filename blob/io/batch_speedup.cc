// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "plugin/hybridkv/blob/io/batch_speedup.h"

#include <algorithm>

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

void Average(std::atomic<uint64_t>* average, uint64_t nanos) {
  // Arithmetic, not geometric: the throughput a scan gets is the sum of its
  // waits, and under a throttle that sum is a few very long waits of batches
  // that overran the budget.
  const uint64_t sample = std::max<uint64_t>(nanos, 1);  // 0: no sample
  const uint64_t old = average->load(std::memory_order_relaxed);
  average->store(old == 0 ? sample
                          : old - old / BatchSpeedup::kWeight +
                                sample / BatchSpeedup::kWeight,
                 std::memory_order_relaxed);
}

}  // namespace

void BatchSpeedup::Record(size_t reads, uint64_t nanos) {
  if (reads == 1) {
    Average(&single_, nanos);
  } else if (reads > 1) {
    Average(&batched_per_read_, nanos / reads);
  }
}

double BatchSpeedup::Speedup() const {
  const double pinned = pinned_.load(std::memory_order_relaxed);
  if (pinned != 0) {
    return pinned;
  }
  const uint64_t single = single_.load(std::memory_order_relaxed);
  const uint64_t batched = batched_per_read_.load(std::memory_order_relaxed);
  return single == 0 || batched == 0
             ? 0
             : static_cast<double>(single) / static_cast<double>(batched);
}

bool BatchSpeedup::SkipOverlapOnlyReads() {
  const double speedup = Speedup();
  if (speedup == 0 || speedup >= kMinSpeedup) {
    return false;  // batches are not known to queue
  }
  return windows_.fetch_add(1, std::memory_order_relaxed) % kProbeEvery != 0;
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
