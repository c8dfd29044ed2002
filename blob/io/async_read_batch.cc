// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "plugin/hybridkv/blob/io/async_read_batch.h"

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "env/io_posix.h"
#include "file/file_util.h"
#include "file/random_access_file_reader.h"
#include "plugin/hybridkv/blob/io/read_pool.h"
#include "plugin/hybridkv/blob/io/rocksdb_compat.h"
#include "rocksdb/convenience.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

// The most requests in flight. RocksDB's POSIX io_uring does not check that
// its completion queue (512 entries) has room.
constexpr size_t kMaxInFlight = 64;

bool IsDefault(const FileSystem* fs) {
  static const FileSystem* const default_fs = FileSystem::Default().get();
  return fs == default_fs;
}

// HybridKV's own instance of RocksDB's POSIX file system; null where the
// object registry cannot create one (then reads stay synchronous).
const std::shared_ptr<FileSystem>& OwnPosixFileSystem() {
  // Never destroyed: readers opened through it may outlive static destructors.
  static const auto* own = [] {
    std::shared_ptr<FileSystem> created;
    if (!FileSystem::CreateFromString(ConfigOptions(), "posix://", &created)
             .ok()) {
      created.reset();
    }
    return new std::shared_ptr<FileSystem>(std::move(created));
  }();
  return *own;
}

// ReadFileSystemFor, on a plain pointer.
FileSystem* ReadFileSystemOf(FileSystem* fs) {
  const std::shared_ptr<FileSystem>& own = OwnPosixFileSystem();
  return own != nullptr && IsDefault(fs) ? own.get() : fs;
}

#if defined(HYBRIDKV_POSIX_POLL_ABORTS_ON_EINTR)
// Waits until every request of `handles` (RocksDB POSIX handles, submitted
// on the calling thread's ring) is finished, as RocksDB's Poll does: every
// completion reaped on the way, of this batch or of another in flight on the
// same ring, is finished and its callback run, so that a batch waited for
// later finds its requests done. Unlike that Poll, a wait a signal
// interrupts is waited again (HYBRIDKV_POSIX_POLL_ABORTS_ON_EINTR).
//
// On an error, the reads not finished stay in flight: the caller gives up
// their buffers and handles, and their callbacks are emptied here, since the
// requests they would fill are about to go.
IOStatus PollRetryingInterruptedWaits(const std::vector<void*>& handles) {
  auto give_up = [&handles](IOStatus s) {
    for (void* h : handles) {
      static_cast<Posix_IOHandle*>(h)->cb = [](FSReadRequest&, void*) {};
    }
    return s;
  };
  for (void* h : handles) {
    auto* const wanted = static_cast<Posix_IOHandle*>(h);
    while (!wanted->is_finished) {
      struct io_uring_cqe* cqe = nullptr;
      const int waited = io_uring_wait_cqe(wanted->iu, &cqe);
      if (waited == -EINTR || waited == -EAGAIN) {
        continue;
      }
      if (waited != 0) {
        return give_up(IOStatus::IOError("waiting for an asynchronous read: " +
                                         std::string(strerror(-waited))));
      }
      auto* const done =
          static_cast<Posix_IOHandle*>(io_uring_cqe_get_data(cqe));
      if (done->iu != wanted->iu) {
        // Not a read of this ring (Poll returns the same error). Marked seen,
        // so that it does not fail every later wait on the ring too.
        io_uring_cqe_seen(wanted->iu, cqe);
        return give_up(IOStatus::IOError(
            "a completion on this thread's io_uring belongs to no read "
            "submitted on it"));
      }
      // As Poll: a stray second look at this completion finds no handle.
      cqe->user_data = 0xd5d5d5d5d5d5d5d5;
      FSReadRequest read;
      read.scratch = done->scratch;
      read.offset = done->offset;
      read.len = done->len;
      size_t finished_len = 0;
      size_t bytes_read = 0;
      bool read_again = false;
      UpdateResult(cqe, /*file_name=*/"", read.len, done->iov.iov_len,
                   /*async_read=*/true, done->use_direct_io, done->alignment,
                   finished_len, &read, bytes_read, read_again);
      done->is_finished = true;
      io_uring_cqe_seen(done->iu, cqe);
      done->cb(read, done->cb_arg);
    }
  }
  return IOStatus::OK();
}
#endif

}  // namespace

std::shared_ptr<FileSystem> ReadFileSystemFor(
    const std::shared_ptr<FileSystem>& fs) {
  return ReadFileSystemOf(fs.get()) == fs.get() ? fs : OwnPosixFileSystem();
}

bool AsyncReadBatch::Supported(FileSystem* fs) {
  return CheckFSFeatureSupport(fs, FSSupportedOps::kAsyncIO);
}

AsyncReadBatch::AsyncReadBatch(FileSystem* fs, const IOOptions& io)
    : fs_(ReadFileSystemOf(fs)),
      io_(io),
      // Only on HybridKV's own instance: another file system may wrap
      // RocksDB's POSIX one, whose Poll before RocksDB 10.6 aborts the
      // process when a signal interrupts its wait (facebook/rocksdb#13890),
      // and only here does HybridKV wait for the reads itself.
      async_(fs_ == OwnPosixFileSystem().get() &&
             io.rate_limiter_priority == Env::IO_TOTAL && Supported(fs_)) {}

AsyncReadBatch::Request AsyncReadBatch::NewRequest(RandomAccessFileReader* file,
                                                   uint64_t offset, size_t n,
                                                   Done done) {
  // Direct I/O reads whole aligned sectors: read them into an aligned buffer
  // here, or RocksDB would allocate one and copy out of it.
  const size_t alignment =
      file->use_direct_io() ? file->file()->GetRequiredBufferAlignment() : 1;
  FSReadRequest asked;
  asked.offset = offset;
  asked.len = n;
  Request r;
  r.file = file;
  r.read = Align(asked, alignment);
  r.buffer.Alignment(alignment);
  r.buffer.AllocateNewBuffer(r.read.len);
  r.read.scratch = r.buffer.BufferStart();
  r.skip = static_cast<size_t>(offset - r.read.offset);
  r.n = n;
  r.done = std::move(done);
  return r;
}

void AsyncReadBatch::Finish(Request& r, IOStatus s, const Slice& result) {
  // An aligned read may stop at the end of the file, after the bytes asked for.
  if (s.ok() && result.size() < r.skip + r.n) {
    s = IOStatus::Corruption(
        "short read of " +
        std::to_string(result.size() > r.skip ? result.size() - r.skip : 0) +
        " bytes, expected " + std::to_string(r.n));
  }
  r.done(s, s.ok() ? Slice(result.data() + r.skip, r.n) : Slice());
}

void AsyncReadBatch::Add(RandomAccessFileReader* file,
                         const FileSystem* file_system, uint64_t offset,
                         size_t n, Done done) {
  // Poll can wait only for requests its own file system submitted.
  (async_ && file_system == fs_ ? queued_ : blocking_)
      .push_back(NewRequest(file, offset, n, std::move(done)));
}

void AsyncReadBatch::Start() { Submit(); }

void AsyncReadBatch::Submit() {
  for (Request& r : queued_) {
    if (!async_) {  // the file system refused an earlier request
      blocking_.push_back(std::move(r));
      continue;
    }
    if (submitted_.size() >= kMaxInFlight) {
      WaitForSubmitted();
    }
    submitted_.push_back(std::move(r));
    SubmitLast();
  }
  queued_.clear();
}

void AsyncReadBatch::SubmitLast() {
  Request& q = submitted_.back();
  RandomAccessFileReader* file = q.file;
  const IOStatus s = file->ReadAsync(
      q.read, io_,
      [](FSReadRequest& completed, void* arg) {
        Request* request = static_cast<Request*>(arg);
        request->read.status = completed.status;
        request->read.result = completed.result;
      },
      &q, &q.handle, &q.delete_handle, /*aligned_buf=*/nullptr);
  if (s.ok()) {
    return;  // in flight, or already done (no handle): its callback ran
  }
  // Not submitted. Read it with a blocking read instead, into a new buffer.
  Request retry =
      NewRequest(file, q.read.offset + q.skip, q.n, std::move(q.done));
  if (q.handle != nullptr) {
    // RocksDB 9.x sets the handle, then fails io_uring_submit, with the
    // request still in the ring: the kernel may yet write into its buffer.
    // The buffer and handle are given up, never freed.
    q.buffer.Release().release();
    async_ = false;
  } else if (s.IsNotSupported()) {
    async_ = false;  // e.g. no io_uring on this system after all
  }
  submitted_.pop_back();
  blocking_.push_back(std::move(retry));
}

void AsyncReadBatch::Wait() {
  Submit();
  WaitForSubmitted();
  ReadBlocking();
}

void AsyncReadBatch::WaitForSubmitted() {
  if (submitted_.empty()) {
    return;
  }
  std::vector<void*> handles;
  for (const Request& r : submitted_) {
    if (r.handle != nullptr) {
      handles.push_back(r.handle);
    }
  }
  IOStatus polled;
  bool buffers_free = true;
  if (!handles.empty()) {
#if defined(HYBRIDKV_POSIX_POLL_ABORTS_ON_EINTR)
    polled = PollRetryingInterruptedWaits(handles);
    // Reads may still be in flight, and AbortIO would wait for them on the
    // same ring, aborting on the same errors: their buffers are given up
    // instead.
    buffers_free = polled.ok();
#else
    polled = fs_->Poll(handles, handles.size());
    if (!polled.ok()) {
      // Nothing may write into buffers about to be freed.
      buffers_free = fs_->AbortIO(handles).ok();
    }
#endif
  }
  for (Request& r : submitted_) {
    Finish(r, polled.ok() || r.handle == nullptr ? r.read.status : polled,
           r.read.result);
    if (!buffers_free) {
      r.buffer.Release().release();  // given up, as in SubmitLast
    } else if (r.handle != nullptr && r.delete_handle) {
      r.delete_handle(r.handle);
    }
  }
  submitted_.clear();
}

void AsyncReadBatch::ReadBlocking() {
  if (blocking_.empty()) {
    return;
  }
  RunReadsInParallel(blocking_.size(), [this](size_t i) {
    Request& r = blocking_[i];
    Slice result;
    const IOStatus s = r.file->Read(io_, r.read.offset, r.read.len, &result,
                                    r.read.scratch, /*aligned_buf=*/nullptr);
    Finish(r, s, result);
  });
  blocking_.clear();
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
