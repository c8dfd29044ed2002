// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "plugin/hybridkv/blob/io/async_read_batch.h"
#include "plugin/hybridkv/blob/medium/medium_file.h"
#include "rocksdb/advanced_cache.h"
#include "rocksdb/io_status.h"
#include "rocksdb/slice.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

// One medium file's blocks in RocksDB's block cache.
//
// Medium values are cached the way RocksDB caches data blocks: by aligned
// block of their file (kMediumCacheBlockSize bytes), not value by value. A
// cold point read costs one block read either way (direct I/O reads whole
// aligned blocks, buffered I/O one page), and the block brings the record's
// key-order neighbours with it. Cached value by value, every first read of a
// key was a device read of its own. Measured (scripts/ab, small MD run,
// bench/results/issue11-medium-blocks), Run C: read requests per Get 0.38 ->
// 0.31 and throughput 25131 -> 31509 ops/s; Run B, D and A gained 11-25%.
//
// A cached block holds bytes as read, holes included: records that no SST
// points to may since have been punched out, and nothing reads them.
class MediumBlockCache {
 public:
  static constexpr uint64_t kBlockSize = 4096;

  // `cache` may be null (no block cache: every lookup misses and reads take
  // only the bytes asked for). `file_key` names the file among every DB that
  // shares the cache: see FileKey.
  MediumBlockCache(Cache* cache, uint64_t file_key, uint64_t file_number)
      : cache_(cache), file_key_(file_key), file_number_(file_number) {}

  // A 64-bit name for medium file `number` of the DB with id `db_id` in
  // directory `dir`. A checkpoint keeps its source's DB id but numbers new
  // files on its own: the directory tells them apart.
  static uint64_t FileKey(const std::string& db_id, const std::string& dir,
                          uint64_t number);

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
  void ReadAsync(AsyncReadBatch* batch,
                 const std::shared_ptr<MediumFileReader>& file, uint64_t offset,
                 size_t n, std::atomic<uint64_t>* bytes_read) const;

 private:
  std::string BlockKey(uint64_t block_index) const;
  // The whole blocks that cover [offset, offset + n) of `file`, never past
  // its data region (the footer follows it).
  static void BlockSpan(const MediumFileReader& file, uint64_t offset, size_t n,
                        uint64_t* begin, uint64_t* end);
  // Caches `bytes`, the blocks from `begin` on.
  void Insert(uint64_t begin, const Slice& bytes) const;

  Cache* const cache_;
  const uint64_t file_key_;
  const uint64_t file_number_;
};

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
