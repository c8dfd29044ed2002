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
// (docs/measurements.md). Where the device or its throttle holds
// reads to a budget, overlap gains nothing and every blob read past the
// scan's end is a request taken from the budget. Telling the two apart by
// timing batches against single reads (this class's predecessor) failed on a
// busy disk: at 3,000 IOPS the ratio of the two averages swung from 0.35 to
// 9.9 within one run of 10,000 scans, as flush and compaction I/O shared the
// budget, and scans read blobs ahead in most windows
// (docs/measurements.md).
//
// How: what is wanted is scan throughput, so that is what is measured. Each
// table's part of a scan is timed from its seek to its end, with the entries
// it took; kEpochScans of them make an epoch. The first epoch of each cycle
// of kCycleEpochs is a trial: in it, each scan goes one way or the other by
// a bit of the hash of its seek target, seeded with the epoch, until each way
// has run kEpochScans / 2 table parts (or kMaxTrialParts parts have ended
// with one way short: no verdict). Every table of a scan is sought to the
// same target, so a scan's seek goes one way throughout; parts begun later
// (at a file boundary, SeekToFirst; after a reseek, their own target) are
// untimed or timed as their own. The two ways thus meet the same moments of
// the device, cache and compactions. Trials of whole epochs, one way after
// the other, could not tell them apart: at 3,000 IOPS an epoch's rate moved
// 3.5x from one epoch to the next while the ways differ by a few percent,
// and single trials' gains ran from 0.48 to 1.65 (docs/measurements.md).
// The other epochs run the way the trials favour.
// Shared by a DB's scans under a mutex taken once per table per scan.
//
// Trials still carry each scan's own noise (its length, its cache misses),
// so the verdict weighs many: reading ahead is the way while the geometric
// mean of trial gains, each clamped to [1/kMaxTrialGain, kMaxTrialGain], is
// at least kMinGain. The mean is of every trial so far while there are fewer
// than 1/kGainWeight, then weighted kGainWeight on the newest. Until the
// first verdict, scans outside trials read ahead.
//
// Why a margin of 1.2: reading ahead spends device requests (blobs read past
// where scans stop), so a way that is not clearly faster must not spend
// them. At 3,000 IOPS the verdict's gain still ended runs anywhere from 0.92
// to 1.09, and with a margin of 1.05 scans read blobs ahead in 13-23% of
// windows; with 1.2, 9.05 blob reads per scan against 8.99 when never reading
// ahead. Uncapped on the 2-core VM the verdict stays at the clamp (1.48x;
// the old epoch trials measured 1.75x there), far above the margin
// (docs/measurements.md). The clamp bounds how long a
// change of device takes to turn the verdict: five to seven trials either
// way between 1.5x faster and 10% slower.
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
  // A trial that has not filled both ways by then ends without a verdict.
  static constexpr uint64_t kMaxTrialParts = 4 * kEpochScans;
  static constexpr double kMinGain = 1.2;
  static constexpr double kGainWeight = 1.0 / 8;
  static constexpr double kMaxTrialGain = 1.5;

  // The way a table's part of a scan goes, and when it was chosen.
  struct Way {
    bool read_ahead = true;  // reads overlap-only reads ahead
    uint64_t epoch = 0;      // RecordScan counts it in this epoch only
    bool timed = false;      // a trial part: its time counts for its way
  };

  // The way for a table part sought to `internal_target` (null: SeekToFirst
  // or SeekToLast, which trials do not time: they go the favoured way).
  Way Choose(const Slice* internal_target) const;

  // A table part begun with `way` took `entries` entries in `nanos`. Parts
  // begun in an earlier epoch are not counted.
  void RecordScan(const Way& way, uint64_t entries, uint64_t nanos);

  // (entries per second with overlap-only reads read ahead) / (without), the
  // weighted geometric mean of the (clamped) trial gains; 0 until a trial has
  // given a verdict.
  double Gain() const;

  // For tests: Choose() answers `read_ahead` whatever is recorded.
  void Pin(bool read_ahead) { pinned_.store(read_ahead ? 1 : -1); }
  void Unpin() { pinned_.store(0); }

 private:
  static constexpr uint64_t kUncounted = ~uint64_t{0};

  static bool IsTrial(uint64_t epoch) { return epoch % kCycleEpochs == 0; }
  // With mu_ held: whether this trial has run both ways enough for a
  // verdict.
  bool TrialFilled() const;
  // With mu_ held: ends the epoch, judging its trial if TrialFilled().
  void EndEpoch();

  std::atomic<int> pinned_{0};        // 1: read ahead, -1: not, 0: as measured
  std::atomic<bool> favoured_{true};  // until a trial says otherwise
  std::atomic<uint64_t> epoch_{0};    // epochs ended so far; 0 is a trial
  mutable std::mutex mu_;
  uint64_t epoch_parts_ = 0;  // table parts counted in this epoch
  // This trial's timed table parts, entries and nanoseconds, by way (0:
  // without).
  uint64_t trial_parts_[2] = {0, 0};
  uint64_t trial_entries_[2] = {0, 0};
  uint64_t trial_nanos_[2] = {0, 0};
  uint64_t trials_ = 0;  // that gave a verdict
  double log_gain_ = 0;  // (weighted) mean of trials' clamped log(gain)
};

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
