// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// Whether a DB's scans should read ahead the reads whose only gain is overlap
// with other reads (ScanPrefetcher: blobs, one request each whether read
// ahead or when the scan reaches them), found by trying both ways.
//
// Why: reading a scan's values ahead is a bet. Where batches do not queue (a
// local SSD, a cloud volume below its IOPS budget) a batch costs about one
// read's wait and, on a CPU-bound machine, less CPU per read, so values read
// past where the scan stops are cheap: uncapped on the 2-core VM, Run E ran
// 1.64x stock BlobDB's scans/s with blobs read ahead
// (bench/results/issue33-local-final). Where the device or its throttle holds
// reads to a budget, overlap gains nothing and every blob read past the
// scan's end is a request taken from the budget. Telling the two apart by
// timing batches against single reads (this class's predecessor) failed on a
// busy disk: at 3,000 IOPS the ratio of the two averages swung from 0.35 to
// 9.9 within one run of 10,000 scans, as flush and compaction I/O shared the
// budget, and scans read blobs ahead in most windows
// (bench/results/issue33-prepopulate).
//
// How: what is wanted is scan throughput, so that is what is measured. Each
// table's part of a scan is timed from its seek to its end, with the entries
// it took; kEpochScans of them make an epoch. The first epoch of each cycle
// of kCycleEpochs is a trial: in it, each scan goes one way or the other by
// the hash of its seek target (every table of one scan is sought to the same
// target, so a scan goes one way throughout), until each way has run
// kEpochScans / 2 table parts. The two ways thus meet the same moments of
// the device, cache and compactions. Trials of whole epochs, one way after
// the other, could not tell them apart: at 3,000 IOPS an epoch's rate moved
// 3.5x from one epoch to the next while the ways differ by a few percent,
// and single trials' gains ran from 0.48 to 1.65 (bench/results/
// issue33-trial-backoff). The other epochs run the way the trials favour.
// Shared by a DB's scans under a mutex taken once per table per scan.
//
// Trials still carry each scan's own noise (its length, its cache misses),
// so the verdict weighs many: reading ahead is the way while the geometric
// mean of trial gains, each clamped to [1/kMaxTrialGain, kMaxTrialGain], is
// at least kMinGain. The mean is of every trial so far while there are fewer
// than 1/kGainWeight, then weighted kGainWeight on the newest. Until the
// first trial ends, scans read ahead.
//
// Why a margin of 1.2: reading ahead spends device requests (blobs read past
// where scans stop), so a way that is not clearly faster must not spend
// them. At 3,000 IOPS the verdict's gain still ended runs anywhere from 0.92
// to 1.09, and with a margin of 1.05 scans read blobs ahead in 15-23% of
// windows; with 1.2, 9.05 blob reads per scan against 8.99 when never reading
// ahead. Uncapped on the 2-core VM the interleaved trials find reading ahead
// 1.48x as fast (bench/results/issue33-interleaved-trial). The clamp bounds
// how long a change of device takes to turn the verdict: five or six trials
// either way between 1.5x faster and 10% slower.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>

#include "rocksdb/slice.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

class ReadAheadTrial {
 public:
  static constexpr uint64_t kEpochScans = 256;
  static constexpr uint64_t kCycleEpochs = 16;
  static constexpr double kMinGain = 1.2;
  static constexpr double kGainWeight = 1.0 / 8;
  static constexpr double kMaxTrialGain = 1.5;

  // The way a table's part of a scan goes, and when it was chosen.
  struct Way {
    bool read_ahead = true;  // reads overlap-only reads ahead
    uint64_t epoch = 0;      // RecordScan counts it in this epoch only
  };

  // The way for a table part sought to `internal_target` (null: SeekToFirst
  // or SeekToLast, which trials do not count: they go the favoured way).
  Way Choose(const Slice* internal_target) const;

  // A table part begun with `way` took `entries` entries in `nanos`. Parts
  // begun in an earlier epoch are not counted.
  void RecordScan(const Way& way, uint64_t entries, uint64_t nanos);

  // (entries per second with overlap-only reads read ahead) / (without), the
  // weighted geometric mean of the trials; 0 until a trial has ended.
  double Gain() const;

  // For tests: Choose() answers `read_ahead` whatever is recorded.
  void Pin(bool read_ahead) { pinned_.store(read_ahead ? 1 : -1); }
  void Unpin() { pinned_.store(0); }

 private:
  static constexpr uint64_t kUncounted = ~uint64_t{0};

  void EndEpoch();  // with mu_ held

  std::atomic<int> pinned_{0};        // 1: read ahead, -1: not, 0: as measured
  std::atomic<bool> favoured_{true};  // until a trial says otherwise
  std::atomic<bool> in_trial_{true};  // the first epoch is a trial
  std::atomic<uint64_t> epoch_{0};    // epochs ended so far
  mutable std::mutex mu_;
  uint64_t epoch_scans_ = 0;  // table parts counted in this epoch
  // This trial's table parts, entries and nanoseconds, by way (0: without).
  uint64_t trial_scans_[2] = {0, 0};
  uint64_t trial_entries_[2] = {0, 0};
  uint64_t trial_nanos_[2] = {0, 0};
  uint64_t trials_ = 0;
  double log_gain_ = 0;  // (weighted) mean of trials' clamped log(gain)
};

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
