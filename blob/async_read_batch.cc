// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "plugin/hybridkv/blob/async_read_batch.h"

#include <vector>

#include "file/file_util.h"
#include "file/random_access_file_reader.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

bool AsyncReadBatch::Supported(FileSystem* fs) {
  return CheckFSFeatureSupport(fs, FSSupportedOps::kAsyncIO);
}

namespace {

// The most requests in flight: RocksDB's POSIX io_uring has 256 entries and
// does not check for a full ring.
constexpr size_t kMaxInFlight = 64;

IOStatus CheckLength(const IOStatus& s, const Slice& result, size_t n) {
  if (s.ok() && result.size() != n) {
    return IOStatus::Corruption("short read of " +
                                std::to_string(result.size()) +
                                " bytes, expected " + std::to_string(n));
  }
  return s;
}

}  // namespace

void AsyncReadBatch::Add(RandomAccessFileReader* file, const IOOptions& io,
                         uint64_t offset, size_t n, Done done) {
  if (in_flight_.size() >= kMaxInFlight) {
    Wait();
  }
  in_flight_.emplace_back();
  Request& r = in_flight_.back();
  r.scratch.reset(new char[n]);
  r.read.offset = offset;
  r.read.len = n;
  r.read.scratch = r.scratch.get();
  r.done = std::move(done);
  IOStatus s = IOStatus::NotSupported();
  if (Supported(fs_)) {
    s = file->ReadAsync(
        r.read, io,
        [](FSReadRequest& completed, void* arg) {
          Request* request = static_cast<Request*>(arg);
          request->read.status = completed.status;
          request->read.result = completed.result;
        },
        &r, &r.handle, &r.delete_handle, /*aligned_buf=*/nullptr);
  }
  if (!s.ok()) {
    // Not submitted (no io_uring on this thread, or a file system without
    // asynchronous reads): read now.
    r.handle = nullptr;
    Slice result;
    s = file->Read(io, offset, n, &result, r.scratch.get(),
                   /*aligned_buf=*/nullptr);
    s = CheckLength(s, result, n);
    r.done(s, s.ok() ? result : Slice());
    in_flight_.pop_back();
  }
}

void AsyncReadBatch::Wait() {
  if (in_flight_.empty()) {
    return;
  }
  std::vector<void*> handles;
  handles.reserve(in_flight_.size());
  for (const Request& r : in_flight_) {
    handles.push_back(r.handle);
  }
  const IOStatus polled = fs_->Poll(handles, handles.size());
  if (!polled.ok()) {
    // Nothing may still write into buffers about to be freed.
    fs_->AbortIO(handles).PermitUncheckedError();
  }
  for (Request& r : in_flight_) {
    IOStatus s = polled.ok() ? r.read.status : polled;
    s = CheckLength(s, r.read.result, r.read.len);
    r.done(s, s.ok() ? r.read.result : Slice());
    if (r.delete_handle) {
      r.delete_handle(r.handle);
    }
  }
  in_flight_.clear();
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
