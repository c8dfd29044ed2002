// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// A SystemClock whose monotonic time (NowNanos) leaves out the time the
// process spent stopped (SIGSTOP or SIGTSTP, then SIGCONT). scripts/ab
// --interleave runs every arm's db_bench_ext at once and pauses all but one;
// with this clock (db_bench_ext --clock_excludes_pauses) what the DB times on
// the monotonic clock sees only its own turns:
//   RocksDB's write controller refills its delayed-write credit by elapsed
//   NowNanos (WriteController::GetDelay), so a paused load does not come back
//   with writes it did not earn.
// NowMicros stays the wall clock: RocksDB builds absolute condition-variable
// deadlines from it, which must stay in the kernel's epoch.
//
// How: a watcher thread notes the time every millisecond. A gap of more than
// kMinPauseNanos between two notes means no thread of the process ran: it was
// stopped (or, rarely, starved), and the gap is left out but for
// kReaderLeadNanos. Readers see at most the last note plus kReaderLeadNanos,
// so the clock never steps back, and a pause adds at most that much to what
// a reader times across it. (A SIGCONT handler would name pauses, but it runs
// on some thread some time after the process resumes, and a stop can fall
// between any two steps of the watcher: tying the two together missed pauses
// on a loaded machine in the tests, where the gap alone did not.)
//
// May depend on: RocksDB's public headers.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>

#include "rocksdb/system_clock.h"

namespace hybridkv_ext {

class PauseExcludingClock : public ROCKSDB_NAMESPACE::SystemClockWrapper {
 public:
  // Shortest gap in the watcher's notes (taken every 1 ms) counted as a pause.
  // A thread woken from a 1 ms sleep runs again within a few milliseconds on
  // a busy 2-core VM; scripts/ab's turns are 1 s or more.
  static constexpr uint64_t kMinPauseNanos = 20'000'000;
  // How far a reader's time may run past the watcher's last note, and so how
  // much of each pause is still counted. A watcher late by more holds
  // readers' time until its next note, then time jumps forward.
  static constexpr uint64_t kReaderLeadNanos = 2'000'000;

  explicit PauseExcludingClock(
      const std::shared_ptr<ROCKSDB_NAMESPACE::SystemClock>& target);
  ~PauseExcludingClock() override;

  static const char* kClassName() { return "PauseExcludingClock"; }
  const char* Name() const override { return kClassName(); }

  uint64_t NowNanos() override;
  // Nanoseconds left out so far.
  uint64_t PausedNanos() const {
    return paused_nanos_.load(std::memory_order_relaxed);
  }

 private:
  void Watch();
  // One consistent (last note, paused) pair, under seq_ (a sequence lock:
  // odd while the watcher writes).
  void Read(uint64_t* last_note, uint64_t* paused) const;

  std::atomic<uint64_t> seq_{0};
  std::atomic<uint64_t> last_note_nanos_{0};
  std::atomic<uint64_t> paused_nanos_{0};
  std::atomic<bool> stop_{false};  // the destructor's, to the watcher
  std::thread watcher_;
};

}  // namespace hybridkv_ext
