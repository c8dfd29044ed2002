// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// AsyncReadBatch: every request gets exactly its bytes, with io_uring where
// the file system reads asynchronously and without it where it does not, with
// buffered and direct I/O, across more requests than one batch keeps in
// flight; a read past the end of a file is an error, not short data; a
// signal during the wait does not end the process.
#include "plugin/hybridkv/blob/io/async_read_batch.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <memory>
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

// The default file system, but reporting no asynchronous reads: the batch
// must read synchronously.
class NoAsyncFileSystem : public FileSystemWrapper {
 public:
  NoAsyncFileSystem() : FileSystemWrapper(FileSystem::Default()) {}
  const char* Name() const override { return "NoAsyncFileSystem"; }
  void SupportedOps(int64_t& supported_ops) override { supported_ops = 0; }
};

class AsyncReadBatchTest
    : public testing::TestWithParam<std::tuple<bool, bool>> {
 protected:
  bool async() const { return std::get<0>(GetParam()); }
  bool direct() const { return std::get<1>(GetParam()); }
  FileSystem* fs() {
    // RocksDB's default file system reads through HybridKV's own instance.
    return async() ? ReadFileSystemFor(FileSystem::Default()).get()
                   : &no_async_;
  }
  void SetUp() override {
    EXPECT_FALSE(AsyncReadBatch::Supported(&no_async_));
    if (async() && !AsyncReadBatch::Supported(fs())) {
      GTEST_SKIP() << "no asynchronous reads (io_uring) on this machine";
    }
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
    if (!fs()->NewRandomAccessFile(path, options, &file, nullptr).ok()) {
      return nullptr;  // e.g. no O_DIRECT on this file system
    }
    return std::make_unique<RandomAccessFileReader>(std::move(file), path);
  }

  test::ScratchDir dir_{"async_read_batch"};
  NoAsyncFileSystem no_async_;
};

TEST_P(AsyncReadBatchTest, EveryRequestGetsItsBytes) {
  std::string a_bytes;
  std::string b_bytes;
  auto a = Open("a", 1 << 20, &a_bytes);
  auto b = Open("b", 300000, &b_bytes);
  ASSERT_TRUE(a != nullptr && b != nullptr);
  // 200 requests, more than one batch keeps in flight, at unaligned offsets
  // and sizes, interleaved over two files.
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
      AsyncReadBatch batch(fs(), IOOptions());
      for (size_t i = 0; i < expected.size(); i++) {
        const bool in_a = i % 3 != 0;
        const std::string& contents = in_a ? a_bytes : b_bytes;
        const size_t n = 1 + rng() % 9000;
        const uint64_t offset = rng() % (contents.size() - n);
        expected[i].bytes = contents.substr(offset, n);
        Expected* e = &expected[i];
        batch.Add(in_a ? a.get() : b.get(), fs(), offset, n,
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

TEST_P(AsyncReadBatchTest, AReadPastTheEndIsAnError) {
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
  AsyncReadBatch batch(fs(), IOOptions());
  batch.Add(file.get(), fs(), 9000, 2000,
            [&](const IOStatus& s, const Slice&) { past_end = s; });
  batch.Add(file.get(), fs(), 100, 50,
            [&](const IOStatus& s, const Slice& bytes) {
              inside = s;
              inside_bytes = bytes.ToString();
            });
  batch.Add(file.get(), fs(), 9950, 50,
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

// Requests the batch must not submit asynchronously, mixed with ones it
// does: a file another file system opened (Poll waits only for its own), and
// a whole batch of rate-limited reads (asynchronous reads bypass the limiter).
TEST_P(AsyncReadBatchTest, ForeignFilesAndRateLimitedReadsAreReadToo) {
  std::string contents;
  auto file = Open("f", 100000, &contents);
  ASSERT_NE(file, nullptr);
  NoAsyncFileSystem other;
  IOOptions limited;
  limited.rate_limiter_priority = Env::IO_USER;
  for (const IOOptions& io : {IOOptions(), limited}) {
    std::vector<std::string> got(20);
    {
      AsyncReadBatch batch(fs(), io);
      for (size_t i = 0; i < got.size(); i++) {
        const FileSystem* opened_by = i % 2 == 0 ? fs() : &other;
        batch.Add(file.get(), opened_by, i * 3001, 777,
                  [&got, i](const IOStatus& s, const Slice& bytes) {
                    got[i] = s.ok() ? bytes.ToString() : s.ToString();
                  });
      }
    }
    for (size_t i = 0; i < got.size(); i++) {
      EXPECT_EQ(got[i], contents.substr(i * 3001, 777)) << i;
    }
  }
}

INSTANTIATE_TEST_CASE_P(
    AsyncOrNot, AsyncReadBatchTest,
    testing::Combine(testing::Bool(), testing::Bool()),
    [](const testing::TestParamInfo<std::tuple<bool, bool>>& param) {
      return std::string(std::get<0>(param.param) ? "Async" : "Sync") +
             (std::get<1>(param.param) ? "Direct" : "Buffered");
    });

// A signal that interrupts the wait for an asynchronous read (a handled one
// here; a debugger or profiler attaching, kill -STOP and -CONT, a cgroup
// freezer do the same) must not end the process: RocksDB's POSIX Poll before
// 10.6 aborts when io_uring_wait_cqe returns -EINTR. The reads are of FIFOs,
// which complete only when the test writes into them, after interrupting the
// waiting thread.
std::atomic<int> signals_handled{0};
void CountSignal(int) { signals_handled++; }

class AsyncReadBatchSignalTest : public testing::Test {
 protected:
  static constexpr size_t kBytes = 16;

  void SetUp() override {
    if (!AsyncReadBatch::Supported(fs_)) {
      GTEST_SKIP() << "no asynchronous reads (io_uring) on this machine";
    }
    struct sigaction action = {};
    action.sa_handler = CountSignal;  // no SA_RESTART
    ASSERT_EQ(sigaction(SIGUSR1, &action, &old_action_), 0);
  }
  void TearDown() override {
    sigaction(SIGUSR1, &old_action_, nullptr);
    for (int* fd : writers_) {
      if (*fd >= 0) close(*fd);
    }
  }

  // A FIFO of the test's directory, opened for reading through the batch's
  // file system; its writing end goes to *writer.
  std::unique_ptr<RandomAccessFileReader> OpenFifo(const std::string& name,
                                                   int* writer) {
    const std::string path = dir_.Sub(name);
    EXPECT_EQ(mkfifo(path.c_str(), 0600), 0) << errno;
    // Opened for writing first, so that opening it for reading does not
    // block.
    *writer = open(path.c_str(), O_RDWR);
    EXPECT_GE(*writer, 0) << errno;
    writers_.push_back(writer);
    std::unique_ptr<FSRandomAccessFile> file;
    EXPECT_OK(fs_->NewRandomAccessFile(path, FileOptions(), &file, nullptr));
    return std::make_unique<RandomAccessFileReader>(std::move(file), path);
  }

  // Interrupts `thread`, which is blocked in a wait by then, five times.
  static void Interrupt(std::thread& thread) {
    const int before = signals_handled;
    for (int i = 0; i < 5; i++) {
      std::this_thread::sleep_for(std::chrono::milliseconds(40));
      pthread_kill(thread.native_handle(), SIGUSR1);
    }
    while (signals_handled < before + 5) std::this_thread::yield();
  }

  // Where the write fails, the writing end is closed, so that the read ends
  // (short) instead of waiting forever.
  static void Write(int* writer, const std::string& bytes) {
    if (write(*writer, bytes.data(), bytes.size()) !=
        static_cast<ssize_t>(bytes.size())) {
      ADD_FAILURE() << "write to the FIFO failed: " << errno;
      close(*writer);
      *writer = -1;
    }
  }

  struct Got {
    IOStatus status = IOStatus::IOError("not read");
    std::string bytes;
    AsyncReadBatch::Done Done() {
      return [this](const IOStatus& s, const Slice& b) {
        status = s;
        bytes = b.ToString();
      };
    }
  };

  FileSystem* const fs_ = ReadFileSystemFor(FileSystem::Default()).get();
  test::ScratchDir dir_{"async_read_signal"};
  struct sigaction old_action_ = {};
  std::vector<int*> writers_;  // the tests' own variables
};

TEST_F(AsyncReadBatchSignalTest, AnInterruptedWaitReadsOn) {
  int writer = -1;
  auto fifo = OpenFifo("fifo", &writer);
  Got got;
  std::atomic<bool> waiting{false};
  std::thread waiter([&] {
    AsyncReadBatch batch(fs_, IOOptions());
    batch.Add(fifo.get(), fs_, 0, kBytes, got.Done());
    waiting = true;
    batch.Wait();
  });
  while (!waiting) std::this_thread::yield();
  Interrupt(waiter);
  Write(&writer, "sixteen bytes!!!");
  waiter.join();
  ASSERT_OK(got.status);
  EXPECT_EQ(got.bytes, "sixteen bytes!!!");
}

// Two batches in flight on one thread's ring, as the scan prefetchers of
// several tables keep them: the wait for the second reaps the first's
// completion on the way, and the first, waited for later, finds it done.
TEST_F(AsyncReadBatchSignalTest, AnotherBatchsCompletionIsKeptForIt) {
  int first_writer = -1;
  int second_writer = -1;
  auto first_fifo = OpenFifo("first", &first_writer);
  auto second_fifo = OpenFifo("second", &second_writer);
  Got first;
  Got second;
  std::atomic<bool> waiting{false};
  std::thread waiter([&] {
    AsyncReadBatch first_batch(fs_, IOOptions());
    first_batch.Add(first_fifo.get(), fs_, 0, kBytes, first.Done());
    first_batch.Start();
    {
      AsyncReadBatch second_batch(fs_, IOOptions());
      second_batch.Add(second_fifo.get(), fs_, 0, kBytes, second.Done());
      second_batch.Start();
      waiting = true;
    }  // waits for the second batch
    first_batch.Wait();
  });
  while (!waiting) std::this_thread::yield();
  Interrupt(waiter);
  Write(&first_writer, "the first batch!");
  Interrupt(waiter);
  Write(&second_writer, "the second batch");
  waiter.join();
  ASSERT_OK(first.status);
  EXPECT_EQ(first.bytes, "the first batch!");
  ASSERT_OK(second.status);
  EXPECT_EQ(second.bytes, "the second batch");
}

// Many batches of direct reads of a real file, two in flight at a time as
// scans keep them, while another thread signals the reading one every 100
// µs: every wait the signals interrupt goes on, and every read gets its
// bytes.
TEST_F(AsyncReadBatchSignalTest, ReadsUnderASignalStormAllComplete) {
  const std::string path = dir_.Sub("data");
  std::string contents(1 << 20, '\0');
  std::mt19937_64 rng(11);
  for (char& c : contents) c = static_cast<char>(rng());
  ASSERT_OK(WriteStringToFile(Env::Default(), contents, path));
  FileOptions options;
  options.use_direct_reads = true;  // so that reads complete later, not inline
  std::unique_ptr<FSRandomAccessFile> file;
  if (!fs_->NewRandomAccessFile(path, options, &file, nullptr).ok()) {
    options.use_direct_reads = false;  // e.g. no O_DIRECT on this file system
    ASSERT_OK(fs_->NewRandomAccessFile(path, options, &file, nullptr));
  }
  RandomAccessFileReader reader(std::move(file), path);

  std::atomic<bool> done{false};
  int mismatches = 0;
  int failures = 0;
  std::thread reading([&] {
    std::mt19937_64 offsets(5);
    auto add = [&](AsyncReadBatch* batch) {
      for (int i = 0; i < 4; i++) {
        const size_t n = 1 + offsets() % 6000;
        const uint64_t offset = offsets() % (contents.size() - n);
        batch->Add(&reader, fs_, offset, n,
                   [&, offset, n](const IOStatus& s, const Slice& bytes) {
                     if (!s.ok()) {
                       failures++;
                     } else if (bytes.compare(
                                    Slice(contents.data() + offset, n)) != 0) {
                       mismatches++;
                     }
                   });
      }
    };
    for (int round = 0; round < 1500; round++) {
      AsyncReadBatch first(fs_, IOOptions());
      add(&first);
      first.Start();
      {
        AsyncReadBatch second(fs_, IOOptions());
        add(&second);
        second.Start();
      }  // waits for the second batch, then the first below
    }
    done = true;
  });
  const int before = signals_handled;
  int sent = 0;
  while (!done) {
    pthread_kill(reading.native_handle(), SIGUSR1);
    sent++;
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  reading.join();
  EXPECT_EQ(failures, 0);
  EXPECT_EQ(mismatches, 0);
  EXPECT_GT(signals_handled - before, 100) << "of " << sent << " sent";
}

// A file system of the application's that claims asynchronous reads (as one
// wrapping RocksDB's POSIX file system does), whose files complete ReadAsync
// at once (FSRandomAccessFile's default) and count the calls.
class CountingAsyncFile : public FSRandomAccessFile {
 public:
  CountingAsyncFile(std::unique_ptr<FSRandomAccessFile> target, int* calls)
      : target_(std::move(target)), calls_(calls) {}
  IOStatus Read(uint64_t offset, size_t n, const IOOptions& options,
                Slice* result, char* scratch,
                IODebugContext* dbg) const override {
    return target_->Read(offset, n, options, result, scratch, dbg);
  }
  IOStatus ReadAsync(FSReadRequest& req, const IOOptions& opts,
                     std::function<void(FSReadRequest&, void*)> cb,
                     void* cb_arg, void** io_handle, IOHandleDeleter* del_fn,
                     IODebugContext* dbg) override {
    ++*calls_;
    return FSRandomAccessFile::ReadAsync(req, opts, cb, cb_arg, io_handle,
                                         del_fn, dbg);
  }

 private:
  std::unique_ptr<FSRandomAccessFile> target_;
  int* const calls_;
};

class CountingAsyncFileSystem : public FileSystemWrapper {
 public:
  CountingAsyncFileSystem() : FileSystemWrapper(FileSystem::Default()) {}
  const char* Name() const override { return "CountingAsync"; }
  void SupportedOps(int64_t& supported_ops) override {
    supported_ops = 1 << FSSupportedOps::kAsyncIO;
  }
  IOStatus NewRandomAccessFile(const std::string& path,
                               const FileOptions& options,
                               std::unique_ptr<FSRandomAccessFile>* file,
                               IODebugContext* dbg) override {
    std::unique_ptr<FSRandomAccessFile> target;
    IOStatus s = target_->NewRandomAccessFile(path, options, &target, dbg);
    if (s.ok()) {
      file->reset(new CountingAsyncFile(std::move(target), &read_asyncs));
    }
    return s;
  }
  IOStatus Poll(std::vector<void*>& io_handles,
                size_t /*min_completions*/) override {
    for (void* handle : io_handles) {
      if (handle == nullptr) return IOStatus::Corruption("null handle");
    }
    polls++;
    return IOStatus::OK();
  }
  int polls = 0;
  int read_asyncs = 0;
};

// Only HybridKV's own instance of RocksDB's POSIX file system reads
// asynchronously: any other may wrap RocksDB's POSIX one, whose Poll aborts
// the process before RocksDB 10.6 when a signal interrupts its wait. Its
// reads are blocking reads, whatever it claims.
TEST(AsyncReadBatchSubmitTest, AnotherFileSystemIsReadWithBlockingReads) {
  test::ScratchDir dir("async_read_batch_other_fs");
  const std::string contents(50000, 'x');
  ASSERT_OK(WriteStringToFile(Env::Default(), contents, dir.Sub("f")));
  CountingAsyncFileSystem fs;
  ASSERT_TRUE(AsyncReadBatch::Supported(&fs));
  std::unique_ptr<FSRandomAccessFile> raw;
  ASSERT_OK(fs.NewRandomAccessFile(dir.Sub("f"), FileOptions(), &raw, nullptr));
  RandomAccessFileReader file(std::move(raw), dir.Sub("f"));
  int done = 0;
  {
    AsyncReadBatch batch(&fs, IOOptions());
    for (int i = 0; i < 5; i++) {
      batch.Add(&file, &fs, i * 1000, 100,
                [&done](const IOStatus& s, const Slice& bytes) {
                  EXPECT_OK(s);
                  EXPECT_EQ(bytes.ToString(), std::string(100, 'x'));
                  done++;
                });
    }
    batch.Start();
  }
  EXPECT_EQ(done, 5);
  EXPECT_EQ(fs.read_asyncs, 0);
  EXPECT_EQ(fs.polls, 0);
}

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
