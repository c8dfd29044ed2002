// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// RunReadsInParallel (blob/io/read_pool.h): every task runs exactly once, all
// have finished when it returns, and they run at the same time, from one
// caller or several.
#include "plugin/hybridkv/blob/io/read_pool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

// Runs `n` tasks and checks that each ran once and had finished on return.
void ExpectEachOnce(size_t n) {
  std::unique_ptr<std::atomic<int>[]> runs(new std::atomic<int>[n]);
  for (size_t i = 0; i < n; ++i) runs[i] = 0;
  std::atomic<size_t> finished{0};
  RunReadsInParallel(n, [&](size_t i) {
    ASSERT_LT(i, n);
    if (i % 7 == 0) std::this_thread::sleep_for(std::chrono::microseconds(50));
    runs[i]++;
    finished++;
  });
  EXPECT_EQ(finished.load(), n);
  for (size_t i = 0; i < n; ++i) {
    EXPECT_EQ(runs[i].load(), 1) << "task " << i << " of " << n;
  }
}

TEST(ReadPoolTest, EveryTaskRunsExactlyOnce) {
  for (size_t n : {1, 2, 3, 8, 9, 10, 64, 1000, 20000}) {
    ExpectEachOnce(n);
  }
}

TEST(ReadPoolTest, NoTasksRunsNothing) {
  int calls = 0;
  RunReadsInParallel(0, [&](size_t) { calls++; });
  EXPECT_EQ(calls, 0);
}

TEST(ReadPoolTest, OneTaskRunsOnTheCallingThread) {
  std::thread::id ran_on;
  RunReadsInParallel(1, [&](size_t i) {
    EXPECT_EQ(i, 0u);
    ran_on = std::this_thread::get_id();
  });
  EXPECT_EQ(ran_on, std::this_thread::get_id());
}

// Tasks that each wait for all the others to start can finish only if they
// run at the same time: the caller and the pool's threads (8 of them, so 9
// tasks at most).
TEST(ReadPoolTest, TasksRunConcurrently) {
  for (size_t n : {2, 5, 9}) {
    std::mutex mu;
    std::condition_variable cv;
    size_t arrived = 0;
    std::atomic<size_t> saw_all{0};
    std::mutex ids_mu;
    std::vector<std::thread::id> ids;
    RunReadsInParallel(n, [&](size_t) {
      {
        std::lock_guard<std::mutex> lock(ids_mu);
        ids.push_back(std::this_thread::get_id());
      }
      std::unique_lock<std::mutex> lock(mu);
      if (++arrived == n) cv.notify_all();
      if (cv.wait_for(lock, std::chrono::seconds(20),
                      [&] { return arrived == n; })) {
        saw_all++;
      }
    });
    EXPECT_EQ(saw_all.load(), n) << n << " tasks did not all run at once";
    std::sort(ids.begin(), ids.end());
    EXPECT_EQ(std::unique(ids.begin(), ids.end()) - ids.begin(),
              static_cast<std::ptrdiff_t>(n))
        << "threads used for " << n << " concurrent tasks";
  }
}

// Several callers at once share the pool; each gets its own tasks, each once.
TEST(ReadPoolTest, ConcurrentCallersEachGetTheirOwnTasks) {
  constexpr int kCallers = 6;
  constexpr size_t kTasks = 500;
  std::vector<std::vector<int>> runs(kCallers, std::vector<int>(kTasks, 0));
  std::vector<std::thread> callers;
  for (int c = 0; c < kCallers; ++c) {
    callers.emplace_back([&runs, c] {
      for (int round = 0; round < 20; ++round) {
        std::vector<std::atomic<int>> mine(kTasks);
        RunReadsInParallel(kTasks, [&mine](size_t i) { mine[i]++; });
        for (size_t i = 0; i < kTasks; ++i) runs[c][i] += mine[i].load();
      }
    });
  }
  for (auto& t : callers) t.join();
  for (int c = 0; c < kCallers; ++c) {
    for (size_t i = 0; i < kTasks; ++i) {
      ASSERT_EQ(runs[c][i], 20) << "caller " << c << " task " << i;
    }
  }
}

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
