// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// db_bench_ext's PauseExcludingClock, which scripts/ab --interleave relies on
// to make RocksDB's delayed-write credit count only the time an arm runs: it
// leaves out the time the process was stopped (all but kReaderLeadNanos of each
// stop), nothing else, and never steps back.
#include "plugin/hybridkv/db_bench_ext/pause_excluding_clock.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <thread>

namespace hybridkv_ext {
namespace {

using ROCKSDB_NAMESPACE::SystemClock;

uint64_t MonotonicNanos() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// Reads the clock in a tight loop on its own thread until stopped, and
// remembers whether it ever went back.
class BackwardsWatch {
 public:
  explicit BackwardsWatch(SystemClock* clock)
      : thread_([this, clock] {
          uint64_t previous = clock->NowNanos();
          while (!done_.load()) {
            const uint64_t now = clock->NowNanos();
            if (now < previous) {
              went_back_.store(true);
            }
            previous = now;
            std::this_thread::yield();  // leave the watcher its turns
          }
        }) {}
  bool Finish() {
    done_.store(true);
    thread_.join();
    return went_back_.load();
  }

 private:
  std::atomic<bool> done_{false}, went_back_{false};
  std::thread thread_;
};

// A child process stops this one for about `stop` and resumes it, and
// returns how long it was stopped (from the SIGSTOP to the SIGCONT, on the
// monotonic clock). Only async-signal-safe calls after fork.
uint64_t StopThisProcessFor(std::chrono::milliseconds stop) {
  int fds[2];
  EXPECT_EQ(pipe(fds), 0);
  const pid_t parent = getpid();
  const pid_t child = fork();
  if (child == 0) {
    const struct timespec settle = {0, 50'000'000};
    nanosleep(&settle, nullptr);
    const uint64_t stopped_at = MonotonicNanos();
    kill(parent, SIGSTOP);
    const struct timespec pause = {
        static_cast<time_t>(stop.count() / 1000),
        static_cast<long>(stop.count() % 1000) * 1'000'000};
    nanosleep(&pause, nullptr);
    const uint64_t stopped = MonotonicNanos() - stopped_at;
    kill(parent, SIGCONT);
    ssize_t ignored = write(fds[1], &stopped, sizeof(stopped));
    (void)ignored;
    _exit(0);
  }
  close(fds[1]);
  uint64_t stopped = 0;
  EXPECT_EQ(read(fds[0], &stopped, sizeof(stopped)),
            static_cast<ssize_t>(sizeof(stopped)));
  close(fds[0]);
  int status = 0;
  waitpid(child, &status, 0);
  return stopped;
}

TEST(PauseExcludingClockTest, LeavesOutTheTimeTheProcessWasStopped) {
  const auto real = SystemClock::Default();
  PauseExcludingClock clock(real);
  BackwardsWatch watch(&clock);
  const uint64_t real_start = real->NowNanos();
  const uint64_t clock_start = clock.NowNanos();

  const uint64_t stopped = StopThisProcessFor(std::chrono::milliseconds(800));
  // Past the watcher's wait for the continue and its next note.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));

  const uint64_t real_elapsed = real->NowNanos() - real_start;
  const uint64_t clock_elapsed = clock.NowNanos() - clock_start;
  EXPECT_FALSE(watch.Finish()) << "the clock went back";
  ASSERT_GE(stopped, 800'000'000u);
  const int64_t left_out = static_cast<int64_t>(real_elapsed - clock_elapsed);
  // All of the stop but kReaderLeadNanos, to within how late the watcher's last
  // note before the stop was (1 ms, more on a busy machine) and the instants
  // between the child's clock reads and its signals.
  const int64_t expected =
      static_cast<int64_t>(stopped - PauseExcludingClock::kReaderLeadNanos);
  EXPECT_NEAR(static_cast<double>(left_out), static_cast<double>(expected),
              10e6)
      << "stopped " << stopped << " ns, real " << real_elapsed << " ns, clock "
      << clock_elapsed << " ns";
  // What the clock says it left out. A reader's time may stand still while
  // the watcher is late (on a busy machine), so the two agree to within that.
  EXPECT_NEAR(static_cast<double>(clock.PausedNanos()),
              static_cast<double>(left_out), 20e6);
}

TEST(PauseExcludingClockTest, ARunningProcessLosesNoTime) {
  const auto real = SystemClock::Default();
  PauseExcludingClock clock(real);
  BackwardsWatch watch(&clock);
  // A busy, then a sleeping, stretch.
  const uint64_t busy_until = MonotonicNanos() + 100'000'000;
  while (MonotonicNanos() < busy_until) {
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_FALSE(watch.Finish()) << "the clock went back";
  EXPECT_EQ(clock.PausedNanos(), 0u);
  // NowMicros stays the wall clock.
  const int64_t skew = static_cast<int64_t>(clock.NowMicros()) -
                       static_cast<int64_t>(real->NowMicros());
  EXPECT_LT(std::abs(skew), 1000);
}

}  // namespace
}  // namespace hybridkv_ext
