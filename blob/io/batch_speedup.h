// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// Whether the device under a DB serves a batch of reads at least about as
// fast per read as single reads, or makes batches queue: learned from the
// batches scan prefetch waits for.
//
// Why: reading a scan's values ahead is a bet. Where batches do not queue (a
// local SSD, a cloud volume below its IOPS budget) a batch costs about one
// read's wait and, on a CPU-bound machine, less CPU per read, so values read
// past where the scan stops are cheap. Where the device or its throttle holds
// reads to a budget, a batch that overruns it waits for the budget to refill
// and every value read past the scan's end is a request taken from it.
// Measured (bench/results/issue33-batch-speedup), 10,000 YCSB Run E scans:
// at 3,000 IOPS batches read 0.10-0.26x as fast per read as single reads; on
// the same disk uncapped 2.99-3.27x.
//
// How: two moving averages over batches waited for as soon as they were
// submitted (so nothing else overlaps them): the time of a batch of one read,
// and the time per read of a batch of several. Their ratio is the speedup.
// Arithmetic averages over a long memory: a throttled device shows itself in
// a few very long waits, and a scan's throughput is the sum of its waits.
// Shared by a DB's scans without a lock: a lost update only blurs it.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "rocksdb/rocksdb_namespace.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

class BatchSpeedup {
 public:
  // Below this speedup batches queue: a batch of n waits more than twice as
  // long as n single reads. Well below 1, as single waits vary tenfold on a
  // busy disk.
  static constexpr double kMinSpeedup = 0.5;
  // While it does, one window in this many still reads everything ahead, so
  // that batches of several reads keep being timed and a device that turns
  // parallel again is noticed.
  static constexpr uint64_t kProbeEvery = 64;
  // The averages' memory, in samples: long, as single waits vary tenfold.
  static constexpr uint64_t kWeight = 64;

  // A batch of `reads` (at least 1) took `nanos` from submission to its last
  // completion.
  void Record(size_t reads, uint64_t nanos);

  // (time of one read) / (time per read in a batch of several); 0 until both
  // have been timed.
  double Speedup() const;

  // Whether the next window should leave out the reads whose only gain is
  // overlap (see ScanPrefetcher): batches queue, and this window is not a
  // probe.
  bool SkipOverlapOnlyReads();

  // For tests: Speedup() answers `speedup` whatever is recorded; 0 unpins.
  void Pin(double speedup) {
    pinned_.store(speedup, std::memory_order_relaxed);
  }

 private:
  std::atomic<double> pinned_{0};
  // Moving averages in nanoseconds, weighted 1/kWeight on the newest sample;
  // 0: no sample yet.
  std::atomic<uint64_t> single_{0};
  std::atomic<uint64_t> batched_per_read_{0};
  std::atomic<uint64_t> windows_{0};
};

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
