// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "plugin/hybridkv/db_bench_ext/pause_excluding_clock.h"

#include <algorithm>
#include <chrono>

namespace hybridkv_ext {

PauseExcludingClock::PauseExcludingClock(
    const std::shared_ptr<ROCKSDB_NAMESPACE::SystemClock>& target)
    : SystemClockWrapper(target) {
  last_note_nanos_.store(target->NowNanos(), std::memory_order_relaxed);
  watcher_ = std::thread([this] { Watch(); });
}

PauseExcludingClock::~PauseExcludingClock() {
  stop_.store(true, std::memory_order_relaxed);
  watcher_.join();
}

void PauseExcludingClock::Read(uint64_t* last_note, uint64_t* paused) const {
  for (;;) {
    const uint64_t before = seq_.load(std::memory_order_acquire);
    if (before & 1) {
      std::this_thread::yield();  // the watcher is between its two stores
      continue;
    }
    *last_note = last_note_nanos_.load(std::memory_order_relaxed);
    *paused = paused_nanos_.load(std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_acquire);
    if (seq_.load(std::memory_order_relaxed) == before) {
      return;
    }
  }
}

uint64_t PauseExcludingClock::NowNanos() {
  uint64_t last_note, paused;
  Read(&last_note, &paused);
  // Past last note + kReaderLeadNanos the process may have been stopped and
  // the watcher not yet have said so: hold time there until it has.
  const uint64_t now =
      std::min(target_->NowNanos(), last_note + kReaderLeadNanos);
  return now - paused;
}

void PauseExcludingClock::Watch() {
  while (!stop_.load(std::memory_order_relaxed)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    const uint64_t now = target_->NowNanos();
    const uint64_t last = last_note_nanos_.load(std::memory_order_relaxed);
    uint64_t paused = paused_nanos_.load(std::memory_order_relaxed);
    if (now - last > kMinPauseNanos) {
      // Readers have seen up to last + kReaderLeadNanos: only the rest of the
      // gap is left out, so time goes on from exactly there.
      paused += now - last - kReaderLeadNanos;
    }
    const uint64_t s = seq_.load(std::memory_order_relaxed);
    seq_.store(s + 1, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_release);
    last_note_nanos_.store(now, std::memory_order_relaxed);
    paused_nanos_.store(paused, std::memory_order_relaxed);
    seq_.store(s + 2, std::memory_order_release);
  }
}

}  // namespace hybridkv_ext
