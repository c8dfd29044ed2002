// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// blob/io/: I/O that every reader of HybridKV shares: batches of reads in
// flight together (this header), the pool that runs blocking reads in
// parallel (read_pool.h), and the RocksDB version differences HybridKV's code
// meets (rocksdb_compat.h).
//
// May depend on: RocksDB (public and internal headers) only.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>

#include "rocksdb/file_system.h"
#include "rocksdb/io_status.h"
#include "rocksdb/slice.h"
#include "util/aligned_buffer.h"

namespace ROCKSDB_NAMESPACE {

class RandomAccessFileReader;

namespace hybridkv {

// The file system HybridKV opens medium files with: for RocksDB's default
// POSIX file system, a second instance of it, created once; else `fs`.
// RocksDB 9.x's POSIX file system keeps one io_uring per thread and instance,
// shared by ReadAsync and MultiRead, and MultiRead fails on a completion it
// did not submit. On rings of HybridKV's own instance, reads may stay in
// flight while the application calls RocksDB (MultiGet) on the same thread.
std::shared_ptr<FileSystem> ReadFileSystemFor(
    const std::shared_ptr<FileSystem>& fs);

// Reads a batch of byte ranges, of any files of one file system: Wait returns
// when all are read. Start submits them early, where that is safe, so that
// the caller can go on while they are in flight.
//
// On ReadFileSystemFor's own POSIX instance with io_uring, every request is
// submitted and all are waited for together: on a CPU-bound machine a
// blocking read costs a system call and a context switch, a pool thread a
// wake-up more, and a batch one wait. Otherwise (another file system, which
// may wrap a POSIX one whose Poll aborts on a signal before RocksDB 10.6; no
// io_uring; a rate-limited read, which asynchronous reads would not charge;
// a refused request) Wait reads them with blocking reads in parallel on
// RunReadsInParallel's pool.
//
// Under direct I/O each request is widened to the file's alignment and read
// into an aligned buffer of its own: RocksDB neither allocates a bounce buffer
// nor copies out of it.
class AsyncReadBatch {
 public:
  // Called once per request with its status and bytes (valid during the call
  // only), on the calling thread or a pool thread.
  using Done = std::function<void(const IOStatus&, const Slice&)>;

  // Whether `fs` reads asynchronously.
  static bool Supported(FileSystem* fs);

  // `fs` (for RocksDB's default file system: ReadFileSystemFor's) waits for
  // the asynchronous requests; `io` is every request's options.
  AsyncReadBatch(FileSystem* fs, const IOOptions& io);
  // Waits for every request.
  ~AsyncReadBatch() { Wait(); }

  AsyncReadBatch(const AsyncReadBatch&) = delete;
  AsyncReadBatch& operator=(const AsyncReadBatch&) = delete;

  // Queues a read of [offset, offset + n) of `file`, opened by
  // `file_system`, which must stay open until Wait returns.
  void Add(RandomAccessFileReader* file, const FileSystem* file_system,
           uint64_t offset, size_t n, Done done);

  // Submits the requests added, which may stay in flight after this call
  // returns; does nothing where reads are blocking.
  void Start();

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
    void* handle = nullptr;
    IOHandleDeleter delete_handle;
  };

  static Request NewRequest(RandomAccessFileReader* file, uint64_t offset,
                            size_t n, Done done);
  // Runs r.done with the bytes asked for, or the error.
  static void Finish(Request& r, IOStatus s, const Slice& result);
  // Submits queued_, or moves them to blocking_ once async_ is false.
  void Submit();
  // Submits the last of submitted_, or moves it to blocking_.
  void SubmitLast();
  void WaitForSubmitted();
  void ReadBlocking();

  FileSystem* const fs_;
  const IOOptions io_;
  // fs_ is ReadFileSystemFor's own instance and reads asynchronously; false
  // once it refused a request.
  bool async_;
  std::deque<Request> queued_;     // to submit
  std::deque<Request> submitted_;  // stable addresses: callbacks hold them
  std::deque<Request> blocking_;
};

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
