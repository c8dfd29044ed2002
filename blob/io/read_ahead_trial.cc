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
    return {pinned > 0, kUncounted, /*timed=*/false};
  }
  const uint64_t epoch = epoch_.load(std::memory_order_acquire);
  const bool favoured = favoured_.load(std::memory_order_relaxed);
  if (!IsTrial(epoch) || internal_target == nullptr) {
    return {favoured, epoch, /*timed=*/false};
  }
  // One bit of the target's hash, seeded with the epoch: the same for every
  // table sought to it in this trial, independent of where scans start in key
  // order, and drawn anew in each trial (a hot key does not always land on
  // one side).
  const bool read_ahead =
      (Hash64(internal_target->data(), internal_target->size(), epoch) >> 17) &
      1;
  return {read_ahead, epoch, /*timed=*/true};
}

void ReadAheadTrial::RecordScan(const Way& way, uint64_t entries,
                                uint64_t nanos) {
  std::lock_guard<std::mutex> lock(mu_);
  const uint64_t epoch = epoch_.load(std::memory_order_relaxed);
  if (way.epoch != epoch) {
    return;
  }
  epoch_parts_++;
  if (way.timed) {  // only in a trial
    const int w = way.read_ahead ? 1 : 0;
    trial_parts_[w]++;
    trial_entries_[w] += entries;
    trial_nanos_[w] += nanos;
  }
  // Scans that all seek one target (or none) cannot fill both ways: such a
  // trial ends without a verdict rather than hold half of them one way.
  if (IsTrial(epoch) ? TrialFilled() || epoch_parts_ >= kMaxTrialParts
                     : epoch_parts_ >= kEpochScans) {
    EndEpoch();
  }
}

bool ReadAheadTrial::TrialFilled() const {
  return trial_parts_[0] >= kEpochScans / 2 &&
         trial_parts_[1] >= kEpochScans / 2;
}

void ReadAheadTrial::EndEpoch() {
  if (TrialFilled() && trial_entries_[0] > 0 && trial_entries_[1] > 0 &&
      trial_nanos_[0] > 0 && trial_nanos_[1] > 0) {
    const double rate_with = static_cast<double>(trial_entries_[1]) /
                             static_cast<double>(trial_nanos_[1]);
    const double rate_without = static_cast<double>(trial_entries_[0]) /
                                static_cast<double>(trial_nanos_[0]);
    const double log_gain =
        std::clamp(std::log(rate_with / rate_without), -std::log(kMaxTrialGain),
                   std::log(kMaxTrialGain));
    trials_++;
    const double weight =
        std::max(kGainWeight, 1.0 / static_cast<double>(trials_));
    log_gain_ += (log_gain - log_gain_) * weight;
    favoured_.store(log_gain_ >= std::log(kMinGain), std::memory_order_relaxed);
  }
  for (int w = 0; w < 2; w++) {
    trial_parts_[w] = trial_entries_[w] = trial_nanos_[w] = 0;
  }
  epoch_parts_ = 0;
  epoch_.store(epoch_.load(std::memory_order_relaxed) + 1,
               std::memory_order_release);
}

double ReadAheadTrial::Gain() const {
  std::lock_guard<std::mutex> lock(mu_);
  return trials_ > 0 ? std::exp(log_gain_) : 0;
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
