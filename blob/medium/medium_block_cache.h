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

// One medium file's blocks in RocksDB's block cache, cached by aligned block
// as RocksDB caches data blocks: a cold point read costs one block read either
// way (direct I/O reads whole blocks, buffered I/O a page), and the block
// brings the record's key-order neighbours along. Blocks hold bytes as read,
// holes included: nothing reads punched records.
//
// Keys are RocksDB's OffsetableCacheKey of (DB id, DB session id, file number
// | kMediumKeyBit), offset by block index. Session ids are unique and a file
// number names one file within a session, so a key names one file's bytes
// even where a number is reused after a failed flush and a reopen. The bit
// keeps keys apart from the SST of the same number and from blob files
// (RocksDB's file numbers stay below 2^62). The session is the reader's, as a
// pointer does not say which session wrote its file: a reopen finds none of
// an earlier session's blocks.
class MediumBlockCache {
 public:
  static constexpr uint64_t kBlockSize = 4096;
  static constexpr uint64_t kMediumKeyBit = uint64_t{1} << 63;

  // The blocks of medium file `file_number` of the DB `db_id`, as its session
  // `db_session_id` sees them. `cache` may be null, and is not used without a
  // session id (a table opened outside a DB, which has no unique keys): every
  // lookup misses and reads take only the bytes asked for.
  MediumBlockCache(Cache* cache, const std::string& db_id,
                   const std::string& db_session_id, uint64_t file_number);

  // The bytes [offset, offset + n) of the file, from cached blocks, in
  // `*bytes` (pointing into `*scratch`); false when a block is missing.
  bool Lookup(uint64_t offset, size_t n, std::string* scratch,
              Slice* bytes) const;

  // Reads the blocks that cover [offset, offset + n) with one request, caches
  // them when `fill_cache`, and sets `*bytes` to [offset, offset + n) (in
  // `*scratch`). `*bytes_read` is the number of bytes the request read.
  IOStatus Read(const IOOptions& io, const MediumFileReader& file,
                uint64_t offset, size_t n, bool fill_cache,
                std::string* scratch, Slice* bytes, uint64_t* bytes_read) const;

  // The same read as Read's with `fill_cache`, added to `batch`: caches the
  // blocks when it completes, and adds the bytes it read to `*bytes_read`
  // (which must outlive the batch's Wait). Errors are dropped: warming only.
  void ReadInBatch(ReadBatch* batch,
                 const std::shared_ptr<MediumFileReader>& file, uint64_t offset,
                 size_t n, std::atomic<uint64_t>* bytes_read) const;

 private:
  CacheKey BlockKey(uint64_t block_index) const {
    return file_key_.WithOffset(block_index);
  }
  // The whole blocks that cover [offset, offset + n) of `file`, never past
  // its data region (the footer follows it).
  static void BlockSpan(const MediumFileReader& file, uint64_t offset, size_t n,
                        uint64_t* begin, uint64_t* end);
  // Caches `bytes`, the blocks from `begin` on.
  void Insert(uint64_t begin, const Slice& bytes) const;

  Cache* const cache_;
  const OffsetableCacheKey file_key_;
};

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
