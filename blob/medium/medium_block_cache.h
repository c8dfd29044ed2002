// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "cache/cache_key.h"
#include "plugin/hybridkv/blob/io/read_batch.h"
#include "plugin/hybridkv/blob/medium/medium_file.h"
#include "rocksdb/advanced_cache.h"
#include "rocksdb/io_status.h"
#include "rocksdb/slice.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

// One medium file's blocks in RocksDB's block cache, aligned like data
// blocks: a cold point read costs one block read either way (direct I/O reads
// whole blocks, buffered a page) and brings key-order neighbours along. Blocks
// hold bytes as read, holes included (nothing reads punched records).
// Keys: OffsetableCacheKey(DB id, session id, file number | kMediumKeyBit)
// offset by block index. Session ids are unique and a number names one file
// per session, even when reused after a failed flush and reopen. The bit
// separates keys from the same-numbered SST and blob files (file numbers stay
// below 2^62). The session is the reader's, as pointers do not name their
// writer's: a reopen finds no earlier session's blocks.
class MediumBlockCache {
 public:
  static constexpr uint64_t kBlockSize = 4096;
  static constexpr uint64_t kMediumKeyBit = uint64_t{1} << 63;

  // `cache` may be null, and is unused without a session id (a table opened
  // outside a DB has no unique keys): lookups miss, reads take just the bytes.
  MediumBlockCache(Cache* cache, const std::string& db_id,
                   const std::string& db_session_id, uint64_t file_number);

  // Cached [offset, offset + n) in `*bytes` (in `*scratch`); false on a miss.
  bool Lookup(uint64_t offset, size_t n, std::string* scratch,
              Slice* bytes) const;

  // Reads the covering blocks in one request, caching them if `fill_cache`;
  // `*bytes` as in Lookup, `*bytes_read` the bytes the request read.
  IOStatus Read(const IOOptions& io, const MediumFileReader& file,
                uint64_t offset, size_t n, bool fill_cache,
                std::string* scratch, Slice* bytes, uint64_t* bytes_read) const;

  // Read with `fill_cache`, queued on `batch`; adds to `*bytes_read` (which
  // must outlive the batch's Wait). Errors are dropped: warming only.
  void ReadInBatch(ReadBatch* batch,
                 const std::shared_ptr<MediumFileReader>& file, uint64_t offset,
                 size_t n, std::atomic<uint64_t>* bytes_read) const;

 private:
  CacheKey BlockKey(uint64_t block_index) const {
    return file_key_.WithOffset(block_index);
  }
  // Whole blocks covering [offset, offset + n), never into the footer.
  static void BlockSpan(const MediumFileReader& file, uint64_t offset, size_t n,
                        uint64_t* begin, uint64_t* end);
  // Caches `bytes`, the blocks from `begin` on.
  void Insert(uint64_t begin, const Slice& bytes) const;

  Cache* const cache_;
  const OffsetableCacheKey file_key_;
};

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
