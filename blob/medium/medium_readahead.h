// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "plugin/hybridkv/blob/format/medium_pointer.h"
#include "plugin/hybridkv/blob/medium/medium_file.h"
#include "rocksdb/options.h"
#include "rocksdb/system_clock.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

// A medium read's share of ReadOptions: tier, fill_cache, deadlines, priority.
class MediumReadOptions {
 public:
  MediumReadOptions() = default;
  explicit MediumReadOptions(const ReadOptions& ro);
  // The IOOptions for a read now; TimedOut once the deadline has passed.
  IOStatus PrepareIO(SystemClock* clock, IOOptions* io) const;

  // A kBlockCacheTier read: no I/O.
  bool block_cache_only() const { return block_cache_only_; }
  bool fill_cache() const { return fill_cache_; }

 private:
  bool block_cache_only_ = false;
  bool fill_cache_ = true;
  // PrepareIO's fields only, copied per lookup or iterator, not per read.
  ReadOptions io_fields_;
};

// Reads pointed-to records arriving in key order (merge-level compactions,
// scans). Offsets within a medium file then move one way, so each file is read
// in chunks, each region once: from `initial_readahead`, doubling to
// `max_readahead` while sequential (short scans skip a megabyte read);
// backward scans read chunks ending at the record. Merging a randomly loaded
// DB draws a few records from each file in turn, so each file keeps a cursor
// (up to kMaxOpenCursors, set high: cursors evicting each other's chunks
// reread them), and `buffer_budget` bounds all buffers. Not thread-safe.
class MediumReadahead {
 public:
  // Supplies open medium files by number.
  using FileProvider =
      std::function<Status(const IOOptions& io, uint64_t number,
                           std::shared_ptr<MediumFileReader>* file)>;

  // Known wants (a compaction knows its inputs' runs): a chunk starting in a
  // known run reads to its end at once, within the file's budget share.
  class Plan {
   public:
    virtual ~Plan() = default;
    // End of the wanted run holding `offset` of file `number`; 0 if unknown.
    virtual uint64_t RunEnd(uint64_t number, uint64_t offset) const = 0;
    // How many medium files the reads draw from.
    virtual size_t FileCount() const = 0;
  };

  // `plan`, when given, must outlive the reader.
  MediumReadahead(FileProvider provider, size_t initial_readahead,
                  size_t max_readahead, size_t buffer_budget,
                  const Plan* plan = nullptr);

  // Reads `pointer`'s value, checking the record's crc and `user_key`.
  Status Read(const IOOptions& io, const MediumPointer& pointer,
              const Slice& user_key, std::string* value);

  uint64_t bytes_read() const { return bytes_read_; }
  uint64_t reads_issued() const { return reads_issued_; }

 private:
  struct Cursor {
    std::shared_ptr<MediumFileReader> file;
    std::string buffer;
    // Counted in buffered_; not capacity(), which is never 0 (SSO).
    size_t accounted = 0;
    uint64_t buffer_offset = 0;  // file offset of data[0]
    Slice data;                  // valid bytes, inside buffer
    size_t next_read_size = 0;
    uint64_t last_use = 0;
  };
  // Open medium files; their buffers are bounded by the budget, not by this.
  static constexpr size_t kMaxOpenCursors = 512;

  Status GetCursor(const IOOptions& io, uint64_t number, Cursor** cursor);
  // Frees LRU buffers, never `keep`'s, until they fit the budget.
  void FreeBuffersOverBudget(const Cursor* keep);

  const FileProvider provider_;
  const Plan* const plan_;
  const size_t initial_readahead_;
  const size_t max_readahead_;
  const size_t buffer_budget_;
  std::map<uint64_t, Cursor> cursors_;
  size_t buffered_ = 0;  // sum of all cursors' `accounted`
  uint64_t clock_ = 0;
  uint64_t bytes_read_ = 0;
  uint64_t reads_issued_ = 0;
};

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
