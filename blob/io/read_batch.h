// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// blob/io/: I/O that every reader of HybridKV shares: batches of reads in
// flight together and the pool that runs them (this header), and
// the RocksDB version differences HybridKV's code meets (rocksdb_compat.h).
//
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

// Runs task(0) .. task(n - 1), each once, on the calling thread and the pool,
// and returns when all have finished. For blocking reads: a batch's requests
// are then in flight together whatever the file system, which RocksDB's
// MultiRead offers only within one file.
void RunReadsInParallel(size_t n, const std::function<void(size_t)>& task);

// Reads a batch of byte ranges of any files, in parallel on
// RunReadsInParallel's pool: Wait returns when all are read. Under direct I/O
// each request is widened to the file's alignment and read into an aligned
// buffer of its own, so RocksDB neither allocates a bounce buffer nor copies
// out of it.
class ReadBatch {
 public:
  // Called once per request with its status and bytes (valid during the call
  // only), on the calling thread or a pool thread.
  using Done = std::function<void(const IOStatus&, const Slice&)>;

  // `io`: every request's options.
  explicit ReadBatch(const IOOptions& io) : io_(io) {}
  // Waits for every request.
  ~ReadBatch() { Wait(); }

  ReadBatch(const ReadBatch&) = delete;
  ReadBatch& operator=(const ReadBatch&) = delete;

  // Queues a read of [offset, offset + n) of `file`, which must stay open
  // until Wait returns.
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
