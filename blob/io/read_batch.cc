// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "plugin/hybridkv/blob/io/read_batch.h"

#include <string>

#include "file/random_access_file_reader.h"
#include "plugin/hybridkv/blob/io/read_pool.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

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
