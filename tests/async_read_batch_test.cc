// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// AsyncReadBatch: every request gets exactly its bytes, with io_uring where
// the file system reads asynchronously and without it where it does not, with
// buffered and direct I/O, across more requests than one batch keeps in
// flight; a read past the end of a file is an error, not short data.
#include "plugin/hybridkv/blob/async_read_batch.h"

#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>
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

class AsyncReadBatchTest : public testing::TestWithParam<std::tuple<bool, bool>> {
 protected:
  bool async() const { return std::get<0>(GetParam()); }
  bool direct() const { return std::get<1>(GetParam()); }
  FileSystem* fs() {
    return async() ? FileSystem::Default().get() : &no_async_;
  }
  void SetUp() override {
    EXPECT_FALSE(AsyncReadBatch::Supported(&no_async_));
    if (async() && !AsyncReadBatch::Supported(fs())) {
      GTEST_SKIP() << "no asynchronous reads (io_uring) on this machine";
    }
  }

  // Writes `size` random bytes to `path` and opens it for reading.
  std::unique_ptr<RandomAccessFileReader> Create(const std::string& path,
                                                 size_t size,
                                                 std::string* contents) {
    std::mt19937_64 rng(size);
    contents->resize(size);
    for (char& c : *contents) c = static_cast<char>(rng());
    EXPECT_OK(WriteStringToFile(Env::Default(), *contents, path));
    FileOptions options;
    options.use_direct_reads = direct();
    std::unique_ptr<FSRandomAccessFile> file;
    IOStatus s = fs()->NewRandomAccessFile(path, options, &file, nullptr);
    if (!s.ok()) {
      return nullptr;  // e.g. no O_DIRECT on this file system
    }
    return std::make_unique<RandomAccessFileReader>(std::move(file), path);
  }

  NoAsyncFileSystem no_async_;
};

TEST_P(AsyncReadBatchTest, EveryRequestGetsItsBytes) {
  test::ScratchDir dir("async_read_batch");
  std::string a_bytes;
  std::string b_bytes;
  auto a = Create(dir.Sub("a"), 1 << 20, &a_bytes);
  auto b = Create(dir.Sub("b"), 300000, &b_bytes);
  if (a == nullptr || b == nullptr) {
    GTEST_SKIP() << "this file system cannot open files for direct reads";
  }
  // 200 requests, more than one batch keeps in flight, at unaligned offsets
  // and sizes, interleaved over two files.
  struct Expected {
    std::string bytes;
    std::string got;
    IOStatus status;
    int calls = 0;
  };
  std::vector<Expected> expected(200);
  std::mt19937_64 rng(7);
  {
    AsyncReadBatch batch(fs());
    for (size_t i = 0; i < expected.size(); i++) {
      const bool in_a = i % 3 != 0;
      const std::string& contents = in_a ? a_bytes : b_bytes;
      const size_t n = 1 + rng() % 9000;
      const uint64_t offset = rng() % (contents.size() - n);
      expected[i].bytes = contents.substr(offset, n);
      Expected* e = &expected[i];
      batch.Add(in_a ? a.get() : b.get(), IOOptions(), offset, n,
                [e](const IOStatus& s, const Slice& bytes) {
                  e->status = s;
                  e->got = bytes.ToString();
                  e->calls++;
                });
    }
  }  // the destructor waits
  for (size_t i = 0; i < expected.size(); i++) {
    ASSERT_OK(expected[i].status) << i;
    ASSERT_EQ(expected[i].calls, 1) << i;
    ASSERT_EQ(expected[i].got, expected[i].bytes) << i;
  }
}

TEST_P(AsyncReadBatchTest, AReadPastTheEndIsAnError) {
  test::ScratchDir dir("async_read_batch_end");
  std::string contents;
  auto file = Create(dir.Sub("f"), 10000, &contents);
  if (file == nullptr) {
    GTEST_SKIP() << "this file system cannot open files for direct reads";
  }
  IOStatus past_end;
  IOStatus inside;
  std::string inside_bytes;
  AsyncReadBatch batch(fs());
  batch.Add(file.get(), IOOptions(), 9000, 2000,
            [&](const IOStatus& s, const Slice&) { past_end = s; });
  batch.Add(file.get(), IOOptions(), 100, 50,
            [&](const IOStatus& s, const Slice& bytes) {
              inside = s;
              inside_bytes = bytes.ToString();
            });
  batch.Wait();
  EXPECT_TRUE(past_end.IsCorruption()) << past_end.ToString();
  ASSERT_OK(inside);
  EXPECT_EQ(inside_bytes, contents.substr(100, 50));
}

INSTANTIATE_TEST_CASE_P(
    AsyncOrNot, AsyncReadBatchTest,
    testing::Combine(testing::Bool(), testing::Bool()),
    [](const testing::TestParamInfo<std::tuple<bool, bool>>& param) {
      return std::string(std::get<0>(param.param) ? "Async" : "Sync") +
             (std::get<1>(param.param) ? "Direct" : "Buffered");
    });

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
