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

// The file system HybridKV opens its own readers with (medium files): for
// RocksDB's default POSIX file system, a second instance of it, created once;
// any other: `fs` itself.
//
// Why: RocksDB 9.x's POSIX file system keeps one io_uring per thread and
// instance, shared by ReadAsync and MultiRead, and MultiRead fails on a
// completion it did not submit (and that request is never reaped). Reads
// through an instance of HybridKV's own are on rings RocksDB's MultiRead never
// uses, so a scan may leave them in flight while the application calls RocksDB
// (e.g. MultiGet) on the same thread.
std::shared_ptr<FileSystem> ReadFileSystemFor(
    const std::shared_ptr<FileSystem>& fs);

// Reads a batch of byte ranges, of any files of one file system: Wait returns
// when all are read. Start submits them early, where that is safe, so that
// the caller can go on while they are in flight.
//
// On ReadFileSystemFor's own instance of RocksDB's POSIX file system, where it
// reads asynchronously (io_uring, in applications that enable it), every
// request is submitted and all are waited for together. Why: on a
// CPU-bound machine a blocking read costs a system call and a context switch,
// and a read handed to a pool thread costs a wake-up more; a batch costs one
// wait. Measured with fio on this project's 2-core VM (4 KiB direct random
// reads): 25 µs of CPU per blocking read, 10-12 µs in batches of 4, 6 µs in
// batches of 16.
//
// Otherwise (another file system, no io_uring, a rate-limited read, which
// asynchronous reads would not charge, or a request the file system refuses),
// requests are read with blocking reads in parallel on RunReadsInParallel's
// pool when Wait runs. Another file system may wrap RocksDB's POSIX one, whose
// Poll aborts the process before RocksDB 10.6 when a signal interrupts its
// wait; HybridKV waits for its own instance's reads itself.
//
// Under direct I/O every request is widened to the file's alignment and read
// into an aligned buffer of its own, so RocksDB neither allocates a bounce
// buffer nor copies out of it.
//
// A batch of RocksDB's default file system reads through ReadFileSystemFor's
// instance, whose rings RocksDB's own reads never use: Start submits there,
// and the requests may stay in flight while the caller goes on.
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
