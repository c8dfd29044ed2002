// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// blob/io/: I/O all HybridKV readers share: parallel read batches and their
// pool (this header), and RocksDB version differences (rocksdb_compat.h).
// May depend on: RocksDB (public and internal headers) only.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>

#include "rocksdb/file_system.h"
#include "rocksdb/io_status.h"
#include "rocksdb/slice.h"
#include "util/aligned_buffer.h"

namespace ROCKSDB_NAMESPACE {

class RandomAccessFileReader;

namespace hybridkv {

// Runs task(0) .. task(n - 1) on the caller and the pool; returns when all
// finish. For blocking reads, so a batch is in flight together on any file
// system (RocksDB's MultiRead does so only within one file).
void RunReadsInParallel(size_t n, const std::function<void(size_t)>& task);

// Reads byte ranges of any files in parallel (RunReadsInParallel). Under
// direct I/O each request is widened to the file's alignment into its own
// aligned buffer, sparing RocksDB's bounce buffer and copy.
class ReadBatch {
 public:
  // Runs once per request, on any thread; the bytes live during the call only.
  using Done = std::function<void(const IOStatus&, const Slice&)>;

  // `io`: every request's options.
  explicit ReadBatch(const IOOptions& io) : io_(io) {}
  ~ReadBatch() { Wait(); }

  ReadBatch(const ReadBatch&) = delete;
  ReadBatch& operator=(const ReadBatch&) = delete;

  // `file` must stay open until Wait returns.
  void Add(RandomAccessFileReader* file, uint64_t offset, size_t n, Done done);

  // Reads every request added and runs their Done.
  void Wait();

 private:
  struct Request {
    RandomAccessFileReader* file = nullptr;
    AlignedBuffer buffer;
    FSReadRequest read;  // the aligned read, into buffer
    size_t skip = 0;     // bytes read before the range asked for
    size_t n = 0;        // bytes asked for
    Done done;
  };

  const IOOptions io_;
  std::deque<Request> queued_;
};

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
