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
// it took; kEpochScans of them make an epoch, run one way. A cycle of
// kCycleEpochs epochs tries each way for one epoch, back to back and in
// turns first, then runs the rest the way that won most of the last three
// trials. So 1 epoch in kCycleEpochs runs the worse way, and a device that
// changes is followed within two cycles. Shared by a DB's scans under a
// mutex taken once per table per scan.
//
// Reading ahead wins a trial only by taking at least kMinGain times the
// entries per second: it spends device requests (blobs read past where scans
// stop), so a way that is not measurably faster must not spend them. At 3,000
// IOPS the two ways' rates differ by a few percent from one trial to the
// next, and counting every trial that reading ahead came out ahead in let it
// win cycles it should not: scans read 9.6 blobs each where DBIter alone
// reads 8.8, and 9.4 with the margin (bench/results/issue33-read-ahead-margin).
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>

#include "rocksdb/rocksdb_namespace.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

class ReadAheadTrial {
 public:
  static constexpr uint64_t kEpochScans = 256;
  static constexpr uint64_t kCycleEpochs = 16;
  static constexpr double kMinGain = 1.05;

  // Whether a scan that starts now reads overlap-only reads ahead.
  bool ReadOverlapOnly() const {
    const int pinned = pinned_.load(std::memory_order_relaxed);
    return pinned != 0 ? pinned > 0 : with_.load(std::memory_order_relaxed);
  }

  // A table's part of a scan, begun when ReadOverlapOnly() was `with`, took
  // `entries` entries in `nanos`. One begun the other way (before an epoch
  // ended) is not counted.
  void RecordScan(bool with, uint64_t entries, uint64_t nanos);

  // (entries per second with overlap-only reads read ahead) / (without); 0
  // until both ways were tried.
  double Gain() const;

  // For tests: ReadOverlapOnly() answers `with` whatever is recorded.
  void Pin(bool with) { pinned_.store(with ? 1 : -1); }
  void Unpin() { pinned_.store(0); }

 private:
  void EndEpoch();  // with mu_ held

  std::atomic<int> pinned_{0};  // 1: with, -1: without, 0: as measured
  std::atomic<bool> with_{true};
  mutable std::mutex mu_;
  uint64_t epoch_ = 0;  // in the cycle
  uint64_t cycle_ = 0;
  uint64_t epoch_scans_ = 0;
  uint64_t epoch_entries_ = 0;
  uint64_t epoch_nanos_ = 0;
  // Entries per nanosecond of this cycle's trial epochs; 0: not yet run.
  double trial_with_ = 0;
  double trial_without_ = 0;
  uint64_t trials_ = 0;    // pairs of trial epochs compared
  unsigned verdicts_ = 0;  // of the last three, newest lowest: 1 = with won
  double gain_ = 0;        // with/without, averaged over trials (1/4)
};

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
