// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "plugin/hybridkv/blob/io/read_ahead_trial.h"

#include <algorithm>

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

void ReadAheadTrial::RecordScan(bool with, uint64_t entries, uint64_t nanos) {
  std::lock_guard<std::mutex> lock(mu_);
  if (with != with_.load(std::memory_order_relaxed)) {
    return;
  }
  epoch_scans_++;
  epoch_entries_ += entries;
  epoch_nanos_ += nanos;
  if (epoch_scans_ >= kEpochScans) {
    EndEpoch();
  }
}

void ReadAheadTrial::EndEpoch() {
  const bool with = with_.load(std::memory_order_relaxed);
  // Only the two trial epochs are compared, with each other: run back to
  // back, they meet the same device, cache and compactions, where an exploit
  // epoch would be compared with a trial of another time (a warming cache
  // made the way run more often look faster).
  if (epoch_ < 2) {
    const double rate = epoch_nanos_ == 0
                            ? 0
                            : static_cast<double>(epoch_entries_) /
                                  static_cast<double>(epoch_nanos_);
    (with ? trial_with_ : trial_without_) = rate;
    if (epoch_ == 1 && trial_with_ > 0 && trial_without_ > 0) {
      const double gain = trial_with_ / trial_without_;
      gain_ = gain_ == 0 ? gain : gain_ + (gain - gain_) / 4;
      verdicts_ = (verdicts_ << 1 | (gain >= kMinGain ? 1 : 0)) & 7;
      trials_++;
    }
  }
  epoch_scans_ = epoch_entries_ = epoch_nanos_ = 0;
  epoch_++;
  if (epoch_ == kCycleEpochs) {
    epoch_ = 0;
    cycle_++;
  }
  bool next;
  if (epoch_ < 2) {
    // The trial epochs take turns at going first, so that neither is always
    // the one that meets a cache warmed by the other.
    next = (epoch_ == 0) == (cycle_ % 2 == 0);
  } else {
    // The majority of the last three trials: one noisy trial does not turn
    // it, a device that changes does within two cycles. Until a trial has
    // been compared, read ahead, as the first trial epoch did.
    const uint64_t n = std::min<uint64_t>(trials_, 3);
    const int votes = __builtin_popcount(verdicts_ & ((1u << n) - 1));
    next = n == 0 || 2 * static_cast<uint64_t>(votes) > n;
  }
  with_.store(next, std::memory_order_relaxed);
}

double ReadAheadTrial::Gain() const {
  std::lock_guard<std::mutex> lock(mu_);
  return gain_;
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
