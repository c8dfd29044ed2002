// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "plugin/hybridkv/blob/io/read_batch.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "file/random_access_file_reader.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

// Threads that only wait for reads, so more than the cores: a scan's window
// spans many medium files (one per flush).
constexpr size_t kReadThreads = 8;

class ReadPool {
 public:
  void Run(size_t n, const std::function<void(size_t)>& task) {
    if (n == 0) return;
    if (n == 1) {
      task(0);
      return;
    }
    auto batch = std::make_shared<Batch>(n, task);
    // One helper per task beyond the caller's first: each wake-up is a
    // context switch, which costs about as much CPU as a read.
    const size_t helpers = std::min(n - 1, kReadThreads);
    {
      std::lock_guard<std::mutex> lock(mu_);
      while (threads_.size() < kReadThreads) {
        threads_.emplace_back([this] { Loop(); });
        threads_.back().detach();
      }
      for (size_t i = 0; i < helpers; i++) {
        queue_.push_back(batch);
      }
    }
    for (size_t i = 0; i < helpers; i++) {
      cv_.notify_one();
    }
    batch->Work();
    std::unique_lock<std::mutex> lock(batch->mu);
    batch->cv.wait(lock, [&] { return batch->done == batch->n; });
  }

 private:
  // The tasks of one Run: whoever is free takes the next one.
  struct Batch {
    Batch(size_t count, const std::function<void(size_t)>& fn)
        : n(count), task(fn) {}
    void Work() {
      for (size_t i = next++; i < n; i = next++) {
        task(i);
        std::lock_guard<std::mutex> lock(mu);
        if (++done == n) cv.notify_all();
      }
    }
    const size_t n;
    const std::function<void(size_t)>& task;  // the caller waits in Run
    std::atomic<size_t> next{0};
    std::mutex mu;
    std::condition_variable cv;
    size_t done = 0;  // guarded by mu
  };

  void Loop() {
    for (;;) {
      std::shared_ptr<Batch> batch;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] { return !queue_.empty(); });
        batch = std::move(queue_.front());
        queue_.pop_front();
      }
      batch->Work();
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::shared_ptr<Batch>> queue_;
  std::vector<std::thread> threads_;
};

}  // namespace

void RunReadsInParallel(size_t n, const std::function<void(size_t)>& task) {
  static auto* pool = new ReadPool();
  pool->Run(n, task);
}

void ReadBatch::Add(RandomAccessFileReader* file, uint64_t offset, size_t n,
                    Done done) {
  const size_t alignment =
      file->use_direct_io() ? file->file()->GetRequiredBufferAlignment() : 1;
  FSReadRequest asked;
  asked.offset = offset;
  asked.len = n;
  Request& r = queued_.emplace_back();
  r.file = file;
  r.read = Align(asked, alignment);
  r.buffer.Alignment(alignment);
  r.buffer.AllocateNewBuffer(r.read.len);
  r.read.scratch = r.buffer.BufferStart();
  r.skip = static_cast<size_t>(offset - r.read.offset);
  r.n = n;
  r.done = std::move(done);
}

void ReadBatch::Wait() {
  RunReadsInParallel(queued_.size(), [this](size_t i) {
    Request& r = queued_[i];
    Slice result;
    IOStatus s = r.file->Read(io_, r.read.offset, r.read.len, &result,
                              r.read.scratch, /*aligned_buf=*/nullptr);
    // An aligned read may stop at end of file, after the bytes asked for.
    if (s.ok() && result.size() < r.skip + r.n) {
      s = IOStatus::Corruption(
          "short read of " +
          std::to_string(result.size() > r.skip ? result.size() - r.skip : 0) +
          " bytes, expected " + std::to_string(r.n));
    }
    r.done(s, s.ok() ? Slice(result.data() + r.skip, r.n) : Slice());
  });
  queued_.clear();
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
