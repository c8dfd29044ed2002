// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// blob/blobdb/: what HybridKV adds to RocksDB's integrated BlobDB, which holds
// the large class: scan prefetch of blobs into the blob cache (this header)
// and the policy that runs BlobDB's GC only where there is garbage
// (blob_gc_policy.h).
//
// May depend on: blob/lifecycle/ (the per-DB state), blob/io/, HybridKV's
// public options, RocksDB (public and internal headers).
//
// Warms a column family's blob cache with values of RocksDB's integrated
// BlobDB (HybridKV's large class) before its own reader asks for them.
//
// Why: RocksDB's DBIter reads each blob of a scan synchronously, one request
// at a time (db/db_iter.cc passes no prefetch buffer). A scan that knows which
// blobs it is about to yield can read them together and leave them in the blob
// cache, where DBIter's own read finds them.
//
// How: through a private BlobSource built with the same ImmutableOptions, DB id
// and DB session id as the column family's. BlobSource keys the cache by
// (DB id, DB session id, blob file number, offset) and stores BlobContents, so
// the entries it inserts are exactly the ones DBIter's BlobSource looks up;
// reusing it, rather than copying its key and cache-item code, keeps that true
// across RocksDB versions. AddGroupReads reads and checks the records itself,
// so that they can join an AsyncReadBatch (BlobSource reads only
// synchronously), and inserts them with BlobSource's key, typed cache
// interface, priority and tier. Warming only fills a cache: every error is
// dropped, and the reader that needs the value reads it again and reports the
// error as it would have without warming.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "options/cf_options.h"
#include "plugin/hybridkv/blob/io/async_read_batch.h"
#include "rocksdb/compression_type.h"
#include "rocksdb/file_system.h"
#include "rocksdb/options.h"

namespace ROCKSDB_NAMESPACE {

class BlobFileCache;
class BlobSource;
class Cache;
class CacheKey;
class RandomAccessFileReader;
class Statistics;

namespace hybridkv {

class BlobCacheWarmer {
 public:
  // One blob a scan is about to yield, from its BlobIndex.
  struct Blob {
    std::string user_key;  // as stored in the SST, timestamp included
    uint64_t file_number = 0;
    uint64_t offset = 0;
    uint64_t size = 0;
    CompressionType compression = kNoCompression;
  };

  // The warmer of one column family in one DB session, shared by its table
  // readers; null when the column family has no blob cache. `inner` is the
  // wrapped table factory, through which BlobSource finds whether blob cache
  // memory is charged to the block cache.
  static std::shared_ptr<BlobCacheWarmer> For(
      const ImmutableOptions& ioptions, const FileOptions& file_options,
      const std::shared_ptr<TableFactory>& inner, uint32_t column_family_id,
      const std::string& db_id, const std::string& db_session_id);

  // Closes the cached reader of a deleted blob file in every warmer of its
  // directory, so that its space is freed (HybridKVListener, plugin/, calls
  // it).
  static void ForgetBlobFile(const std::string& path);

  ~BlobCacheWarmer();

  // The most blobs of one group: BlobSource reads one file's blobs with one
  // MultiRead (io_uring where RocksDB was built with it), up to
  // MultiGetContext::MAX_BATCH_SIZE at a time.
  static constexpr size_t kMaxGroup = 32;

  // Reads blobs[0, count) of one group (one file, by offset, at most
  // kMaxGroup) into the blob cache. Blobs already cached cost a lookup.
  // Thread-safe.
  void WarmGroup(const ReadOptions& read_options, const Blob* blobs,
                 size_t count);

  // WarmGroup's work as requests of `batch`: each blob not yet cached is read
  // (its record, as BlobFileReader reads it), checked as BlobFileReader
  // checks it (file header; record header, key, size and crc) and inserted
  // into the blob cache under BlobSource's key, as BlobSource would, when its
  // read completes. `blobs` must outlive the batch's Wait. False, with nothing
  // added, when only WarmGroup can: compressed blobs, a rate-limited read
  // (BlobSource's reader charges the limiter), or a file that does not open.
  // The files are opened through ReadFileSystemFor(the column family's file
  // system). Thread-safe.
  bool AddGroupReads(AsyncReadBatch* batch, const IOOptions& io,
                     const Blob* blobs, size_t count);

 private:
  BlobCacheWarmer(const ImmutableOptions& ioptions,
                  const FileOptions& file_options,
                  const std::shared_ptr<TableFactory>& inner,
                  uint32_t column_family_id, std::string db_id,
                  std::string db_session_id);

  // Blob file `number`, open, for AddGroupReads, and the compression its
  // header declares; null if it does not open or its header is not this
  // column family's.
  struct OpenBlobFile {
    std::shared_ptr<RandomAccessFileReader> reader;
    CompressionType compression = kNoCompression;
  };
  OpenBlobFile OpenFile(uint64_t number);
  // Inserts `blob`'s value into the blob cache under `key` (BlobSource's key
  // of the blob) when `record`, its whole record, checks out.
  void InsertRecord(const CacheKey& key, const Blob& blob,
                    const Slice& record) const;

  const std::shared_ptr<FileSystem> fs_;
  const std::string blob_dir_;
  const uint32_t column_family_id_;
  SystemClock* const clock_;
  Statistics* const statistics_;
  // The column family's blob cache itself, not BlobSource's view of it: with
  // blob cache memory charged to the block cache, every BlobSource charges
  // through its own ChargedCache, and the DB's catches up on its next insert.
  const std::shared_ptr<Cache> blob_cache_;
  const CacheTier lowest_used_cache_tier_;
  std::mutex files_mu_;
  std::unordered_map<uint64_t, OpenBlobFile> files_;  // guarded by files_mu_

  // BlobSource and BlobFileCache keep references to these.
  const std::string db_id_;
  const std::string db_session_id_;
  const FileOptions file_options_;
  std::shared_ptr<Cache> reader_cache_;  // open blob files
  std::unique_ptr<BlobFileCache> blob_file_cache_;
  std::unique_ptr<BlobSource> blob_source_;
};

// Sorts `items` by `key` and returns the [begin, end) ranges of neighbours
// that `together(previous, item, size of its group so far)` keeps in one
// group: the batches of one read each.
template <typename T, typename Key, typename Together>
std::vector<std::pair<size_t, size_t>> SortAndGroup(std::vector<T>* items,
                                                    Key key,
                                                    Together together) {
  std::sort(items->begin(), items->end(),
            [&](const T& a, const T& b) { return key(a) < key(b); });
  std::vector<std::pair<size_t, size_t>> groups;
  for (size_t i = 0; i < items->size(); i++) {
    if (groups.empty() ||
        !together((*items)[i - 1], (*items)[i], i - groups.back().first)) {
      groups.emplace_back(i, i);
    }
    groups.back().second = i + 1;
  }
  return groups;
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
