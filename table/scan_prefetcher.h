// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "plugin/hybridkv/blob/format/medium_pointer.h"
#include "plugin/hybridkv/blob/medium/medium_readahead.h"
#include "plugin/hybridkv/table/medium_values.h"
#include "rocksdb/options.h"
#include "rocksdb/slice_transform.h"
#include "table/internal_iterator.h"
#include "table/table_reader.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

// Reads the medium values a user scan of one table is about to yield into the
// block cache, several at once, for HybridIterator; else each is a synchronous
// read. BlobDB values are left to DBIter: a blob is one request either way.
// A window is read only when the scan wants a value past those read, so a
// table the merged scan takes none from costs nothing. A seek's first window
// is ScanLengthHint's, each next doubles up to `max_window`. Lookahead stops
// at iterate_upper_bound, the seek prefix's end (prefix_same_as_start) and the
// table's end; a backward move stops it till the next seek. A window issues
// one request per medium file run, all in flight at once (ReadBatch). It only
// fills a cache: results never depend on it, its errors are dropped.

// Entries recent scans took from one table: the next scan's first window, as
// each window is a round trip (long scans starting small wait often, short
// ones starting large read values never yielded). A 1/4-weighted moving
// average in 1/16 entries, lock-free: a lost update only blurs it.
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

  // For a scan of `table` with these NewIterator arguments; the lookahead over
  // `inner` opens once a window is needed. The scan updates `hint`.
  ScanPrefetcher(TableMediumValues* table, TableReader* inner,
                 ScanLengthHint* hint, const ReadOptions& read_options,
                 const SliceTransform* prefix_extractor, bool skip_filters);
  ~ScanPrefetcher();

  // The scan seeks (target: an internal key; null: to the first entry).
  void Seek(const Slice* internal_target);
  void Next() { consumed_++; }
  void Stop();  // the scan moved backwards or to the end
  // The scan wants the medium value of the entry it stands at.
  void WantValue(const Slice& internal_key) {
    if (!active_) return;
    if (consumed_ >= next_step_at_) Step(internal_key);
    CountUse();
  }

 private:
  // One window's medium values; the vectors are reused across windows.
  struct Window {
    std::vector<MediumPointer> medium;
    std::vector<size_t> collected_at;  // the entries of `medium`, in order
  };

  void Step(const Slice& internal_key);  // reads the window at the scan
  void Collect();  // moves the lookahead over a window into window_state_
  bool BeyondEnd(const Slice& user_key) const;
  // Counts a wanted, collected value once per entry (DBIter may ask twice).
  void CountUse();

  TableMediumValues* const table_;
  TableReader* const inner_;
  ScanLengthHint* const hint_;
  ReadOptions read_options_;  // the lookahead keeps a reference to it
  // The scan's newest visible seq, read at its start: its snapshot may be
  // released while the iterator lives.
  const SequenceNumber visible_seq_;
  const MediumReadOptions medium_read_options_;
  const SliceTransform* const prefix_extractor_;
  const bool skip_filters_;
  const size_t max_window_;
  std::unique_ptr<InternalIterator> lookahead_;

  bool active_ = false;     // between a seek and a backward move or the end
  bool exhausted_ = false;  // the lookahead reached the end of the range
  size_t window_ = 0;
  // Entries since the seek: the scan stands at `consumed_`; the lookahead,
  // when `in_step_`, at `collected_end_`, the first entry of no window.
  size_t consumed_ = 0;
  size_t collected_end_ = 0;
  size_t next_step_at_ = 0;  // where the scan next calls Step
  bool in_step_ = false;
  std::string prefix_;  // prefix_same_as_start: the seek key's prefix
  bool has_prefix_ = false;
  Window window_state_;  // the last window collected (one at a time)
  // Since the seek; added to the DB's counters at Stop.
  uint64_t values_collected_ = 0;
  uint64_t values_used_ = 0;
  size_t last_used_ = SIZE_MAX;
};

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
