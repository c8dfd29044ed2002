// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// ReadBatch: every request gets exactly its bytes, with buffered and direct
// I/O, across more requests than the pool has threads; a read past the end
// of a file is an error, not short data. RunReadsInParallel: every task runs
// exactly once, concurrently, for each of several callers.
#include "plugin/hybridkv/blob/io/read_batch.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "file/random_access_file_reader.h"
#include "rocksdb/env.h"
#include "rocksdb/file_system.h"
#include "test_util.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

class ReadBatchTest : public testing::TestWithParam<bool> {
 protected:
  bool direct() const { return GetParam(); }
  void SetUp() override {
    std::string contents;
    if (Open("probe", 4096, &contents) == nullptr) {
      GTEST_SKIP() << "this file system cannot open files for direct reads";
    }
  }

  // Writes `size` random bytes to the file `name` of the test's directory
  // and opens it for reading; null if it cannot be opened.
  std::unique_ptr<RandomAccessFileReader> Open(const std::string& name,
                                               size_t size,
                                               std::string* contents) {
    std::mt19937_64 rng(size);
    contents->resize(size);
    for (char& c : *contents) c = static_cast<char>(rng());
    const std::string path = dir_.Sub(name);
    EXPECT_OK(WriteStringToFile(Env::Default(), *contents, path));
    FileOptions options;
    options.use_direct_reads = direct();
    std::unique_ptr<FSRandomAccessFile> file;
    if (!FileSystem::Default()
             ->NewRandomAccessFile(path, options, &file, nullptr)
             .ok()) {
      return nullptr;  // e.g. no O_DIRECT on this file system
    }
    return std::make_unique<RandomAccessFileReader>(std::move(file), path);
  }

  test::ScratchDir dir_{"read_batch"};
};

TEST_P(ReadBatchTest, EveryRequestGetsItsBytes) {
  std::string a_bytes;
  std::string b_bytes;
  auto a = Open("a", 1 << 20, &a_bytes);
  auto b = Open("b", 300000, &b_bytes);
  ASSERT_TRUE(a != nullptr && b != nullptr);
  // 200 requests, more than the pool has threads, at unaligned offsets and
  // sizes, interleaved over two files.
  struct Expected {
    std::string bytes;
    std::string got;
    IOStatus status;
    int calls = 0;
  };
  std::mt19937_64 rng(7);
  // Twice: the second batch reuses the first one's buffers.
  for (int round = 0; round < 2; round++) {
    std::vector<Expected> expected(200);
    {
      ReadBatch batch{IOOptions()};
      for (size_t i = 0; i < expected.size(); i++) {
        const bool in_a = i % 3 != 0;
        const std::string& contents = in_a ? a_bytes : b_bytes;
        const size_t n = 1 + rng() % 9000;
        const uint64_t offset = rng() % (contents.size() - n);
        expected[i].bytes = contents.substr(offset, n);
        Expected* e = &expected[i];
        batch.Add(in_a ? a.get() : b.get(), offset, n,
                  [e](const IOStatus& s, const Slice& bytes) {
                    e->status = s;
                    e->got = bytes.ToString();
                    e->calls++;
                  });
      }
    }  // the destructor waits
    for (size_t i = 0; i < expected.size(); i++) {
      ASSERT_OK(expected[i].status) << round << " " << i;
      ASSERT_EQ(expected[i].calls, 1) << round << " " << i;
      ASSERT_EQ(expected[i].got, expected[i].bytes) << round << " " << i;
    }
  }
}

TEST_P(ReadBatchTest, AReadPastTheEndIsAnError) {
  std::string contents;
  auto file = Open("f", 10000, &contents);
  ASSERT_NE(file, nullptr);
  IOStatus past_end;
  IOStatus inside;
  std::string inside_bytes;
  // The file's last bytes: under direct I/O the aligned read runs past the
  // end of the file, and the bytes asked for are all there.
  IOStatus last;
  std::string last_bytes;
  ReadBatch batch{IOOptions()};
  batch.Add(file.get(), 9000, 2000,
            [&](const IOStatus& s, const Slice&) { past_end = s; });
  batch.Add(file.get(), 100, 50,
            [&](const IOStatus& s, const Slice& bytes) {
              inside = s;
              inside_bytes = bytes.ToString();
            });
  batch.Add(file.get(), 9950, 50,
            [&](const IOStatus& s, const Slice& bytes) {
              last = s;
              last_bytes = bytes.ToString();
            });
  batch.Wait();
  EXPECT_TRUE(past_end.IsCorruption()) << past_end.ToString();
  ASSERT_OK(inside);
  EXPECT_EQ(inside_bytes, contents.substr(100, 50));
  ASSERT_OK(last);
  EXPECT_EQ(last_bytes, contents.substr(9950, 50));
}

INSTANTIATE_TEST_CASE_P(BufferedOrDirect, ReadBatchTest, testing::Bool(),
                        [](const testing::TestParamInfo<bool>& param) {
                          return param.param ? "Direct" : "Buffered";
                        });


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
