// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "plugin/hybridkv/blob/blob_cache_warmer.h"
#include "plugin/hybridkv/blob/medium_pointer.h"
#include "plugin/hybridkv/blob/medium_readahead.h"
#include "rocksdb/options.h"
#include "rocksdb/slice_transform.h"
#include "table/internal_iterator.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

// Looks ahead of a user scan over one table and reads the separated values it
// is about to yield, several at once, into the caches their readers look in:
// BlobDB's values (the large class) into the blob cache (BlobCacheWarmer),
// where DBIter's own blob read finds them; medium values into the block
// cache, where HybridIterator resolves them. Without it each such value is one
// synchronous read when the scan reaches it.
//
// Demand-driven: a window is read when the scan wants a separated value past
// the part already warmed, so a table the merged scan takes no such value from
// costs nothing. A second iterator over the same table then runs ahead from
// that entry. After a seek the window starts at the number of entries recent
// scans took from this table (ScanLengthHint), at least kMinWindow, and
// doubles with each window, up to `max_window`. It stops at
// iterate_upper_bound, at the end of the seek key's prefix under
// prefix_same_as_start, and at the table's end; backward moves stop it until
// the next seek. A window's medium records are read by span (one request per
// run of a medium file, which is in key order); its blobs one request each
// (BlobCacheWarmer::AddGroupReads), or by file with RocksDB's MultiRead.
//
// A window's reads are one AsyncReadBatch from the scan's thread where the
// file system reads asynchronously (io_uring), else tasks of the scan's thread
// and a small I/O pool (RunReadsInParallel); either way they are done when a
// call returns. Prefetching only fills a cache: results
// never depend on it, and its errors are dropped (DBIter's own read reports
// them).
class HybridTableReader;

// How many entries recent scans took from one table: the first window of the
// next scan there. Each window is a round trip to the device that the scan
// waits for, and a scan crosses one table per level, so long scans that start
// small wait many times; scans of a few entries that start large read values
// they never yield. Measured (bench/results/issue12-first-window, YCSB Run E,
// scans of 1..100 entries), against a first window of 2: 7-18% more scans per
// second at less CPU, as fast as a fixed 16 with a third to two fifths of its
// reads of values past the scans' ends.
//
// An average weighted 1/4 on the newest scan, in sixteenths of an entry.
// Scans of the table share it without a lock: a lost update only blurs it.
class ScanLengthHint {
 public:
  size_t FirstWindow(size_t min, size_t cap) const {
    const size_t entries = sixteenths_.load(std::memory_order_relaxed) / 16;
    return std::min(cap, std::max(min, entries));
  }
  void Record(size_t entries) {
    const uint32_t old = sixteenths_.load(std::memory_order_relaxed);
    const uint32_t newest =
        static_cast<uint32_t>(std::min<size_t>(entries, kMaxEntries) * 16);
    sixteenths_.store((old / 4) * 3 + newest / 4, std::memory_order_relaxed);
  }

 private:
  static constexpr size_t kMaxEntries = 1 << 16;
  std::atomic<uint32_t> sixteenths_{0};
};

class ScanPrefetcher {
 public:
  static constexpr size_t kMinWindow = 2;

  // For a scan of `table` with these arguments of its NewIterator. BlobDB's
  // values are warmed when the table has a blob warmer (a blob cache), medium
  // values when it has a block cache; the window's cap is the table's
  // scan_prefetch_max. The second iterator is opened once a window is needed.
  ScanPrefetcher(HybridTableReader* table, const ReadOptions& read_options,
                 const SliceTransform* prefix_extractor, bool skip_filters);
  ~ScanPrefetcher();

  // The scan seeks (target: an internal key; null: to the first entry).
  void Seek(const Slice* internal_target);
  // The scan moved one entry forward.
  void Next() { consumed_++; }
  // The scan moved backwards or to the end.
  void Stop();
  // The scan wants the separated value of the entry at `internal_key`, where
  // it now stands.
  void WantValue(const Slice& internal_key) {
    if (active_ && consumed_ >= warmed_end_) Warm(internal_key);
  }

 private:
  // Reads the values of the window starting at the scan's entry.
  void Warm(const Slice& internal_key);
  // Collects the window's separated values into blobs_ and medium_.
  void Collect();
  bool BeyondEnd(const Slice& user_key) const;

  HybridTableReader* const table_;
  const ReadOptions read_options_;  // the lookahead keeps a reference to it
  const bool scan_async_io_;        // the scan's own ReadOptions::async_io
  const MediumReadOptions medium_read_options_;
  const SliceTransform* const prefix_extractor_;
  const bool skip_filters_;
  const size_t max_window_;
  std::unique_ptr<InternalIterator> lookahead_;

  bool active_ = false;
  size_t window_ = 0;
  // Entries since the seek: the scan stands at `consumed_`; the lookahead,
  // when `in_step_`, stands at `warmed_end_`, the first entry not warmed.
  size_t consumed_ = 0;
  size_t warmed_end_ = 0;
  bool in_step_ = false;
  std::string prefix_;  // prefix_same_as_start: the seek key's prefix
  bool has_prefix_ = false;
  // One window's values, reused.
  std::vector<BlobCacheWarmer::Blob> blobs_;
  std::vector<MediumPointer> medium_;
};

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
