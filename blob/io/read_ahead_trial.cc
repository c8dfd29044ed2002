// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "plugin/hybridkv/blob/io/read_ahead_trial.h"

#include <algorithm>
#include <cmath>

#include "util/hash.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

ReadAheadTrial::Way ReadAheadTrial::Choose(const Slice* internal_target) const {
  const int pinned = pinned_.load(std::memory_order_relaxed);
  if (pinned != 0) {
    return {pinned > 0, kUncounted};
  }
  const uint64_t epoch = epoch_.load(std::memory_order_relaxed);
  if (!in_trial_.load(std::memory_order_relaxed)) {
    return {favoured_.load(std::memory_order_relaxed), epoch};
  }
  if (internal_target == nullptr) {
    return {favoured_.load(std::memory_order_relaxed), kUncounted};
  }
  // One bit of the target's hash: the same for every table of a scan, and
  // independent of where scans start in key order.
  const bool read_ahead =
      (Hash64(internal_target->data(), internal_target->size()) >> 17) & 1;
  return {read_ahead, epoch};
}

void ReadAheadTrial::RecordScan(const Way& way, uint64_t entries,
                                uint64_t nanos) {
  std::lock_guard<std::mutex> lock(mu_);
  if (way.epoch != epoch_.load(std::memory_order_relaxed)) {
    return;
  }
  if (!in_trial_.load(std::memory_order_relaxed)) {
    if (++epoch_scans_ >= kEpochScans) {
      EndEpoch();
    }
    return;
  }
  const int w = way.read_ahead ? 1 : 0;
  trial_scans_[w]++;
  trial_entries_[w] += entries;
  trial_nanos_[w] += nanos;
  if (trial_scans_[0] >= kEpochScans / 2 &&
      trial_scans_[1] >= kEpochScans / 2) {
    EndEpoch();
  }
}

void ReadAheadTrial::EndEpoch() {
  if (in_trial_.load(std::memory_order_relaxed)) {
    if (trial_nanos_[0] > 0 && trial_nanos_[1] > 0 && trial_entries_[0] > 0 &&
        trial_entries_[1] > 0) {
      const double rate_with = static_cast<double>(trial_entries_[1]) /
                               static_cast<double>(trial_nanos_[1]);
      const double rate_without = static_cast<double>(trial_entries_[0]) /
                                  static_cast<double>(trial_nanos_[0]);
      const double log_gain =
          std::clamp(std::log(rate_with / rate_without),
                     -std::log(kMaxTrialGain), std::log(kMaxTrialGain));
      trials_++;
      const double weight =
          std::max(kGainWeight, 1.0 / static_cast<double>(trials_));
      log_gain_ += (log_gain - log_gain_) * weight;
      favoured_.store(log_gain_ >= std::log(kMinGain),
                      std::memory_order_relaxed);
    }
    for (int w = 0; w < 2; w++) {
      trial_scans_[w] = trial_entries_[w] = trial_nanos_[w] = 0;
    }
  }
  epoch_scans_ = 0;
  const uint64_t ended = epoch_.load(std::memory_order_relaxed) + 1;
  in_trial_.store(ended % kCycleEpochs == 0, std::memory_order_relaxed);
  epoch_.store(ended, std::memory_order_relaxed);
}

double ReadAheadTrial::Gain() const {
  std::lock_guard<std::mutex> lock(mu_);
  return trials_ > 0 ? std::exp(log_gain_) : 0;
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
