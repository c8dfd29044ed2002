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

// What a medium read takes from the caller's ReadOptions: the read tier,
// fill_cache, deadlines and I/O priority.
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
  // Only what PrepareIO needs (deadline, io_timeout, priority, activity),
  // copied once per lookup or iterator rather than per read.
  ReadOptions io_fields_;
};

// Reads pointed-to records when pointers arrive in key order: in merge-level
// compactions and scans. A medium file holds its records in key order, so
// within one file the offsets move one way, and each file is read in chunks,
// each region once. A chunk starts at `initial_readahead` and doubles, up to
// `max_readahead`, while reads stay sequential, so a short scan does not pay
// for a whole megabyte. Backward scans read chunks that end at the record.
//
// A merge-level compaction of a randomly loaded DB draws a few records at a
// time from every medium file in turn. So a cursor stays open per file (up to
// kMaxOpenCursors, set high: cursors that evict each other's chunks read them
// again), and `buffer_budget` bounds their buffers together. Not thread-safe.
class MediumReadahead {
 public:
  // Supplies open medium files by number.
  using FileProvider =
      std::function<Status(const IOOptions& io, uint64_t number,
                           std::shared_ptr<MediumFileReader>* file)>;

  // What the reads will want, when known (a compaction knows the runs its
  // inputs point to): a chunk that starts in a known run reads to its end at
  // once, within each file's share of the budget.
  class Plan {
   public:
    virtual ~Plan() = default;
    // The end of the run of wanted records that holds `offset` of medium file
    // `number`; 0 when unknown.
    virtual uint64_t RunEnd(uint64_t number, uint64_t offset) const = 0;
    // How many medium files the reads draw from.
    virtual size_t FileCount() const = 0;
  };

  // `plan`, when given, must outlive the reader.
  MediumReadahead(FileProvider provider, size_t initial_readahead,
                  size_t max_readahead, size_t buffer_budget,
                  const Plan* plan = nullptr);

  // Sets `*value` to the value `pointer` refers to, after checking the
  // record's crc and that it belongs to `user_key`.
  Status Read(const IOOptions& io, const MediumPointer& pointer,
              const Slice& user_key, std::string* value);

  uint64_t bytes_read() const { return bytes_read_; }
  uint64_t reads_issued() const { return reads_issued_; }

 private:
  struct Cursor {
    std::shared_ptr<MediumFileReader> file;
    std::string buffer;
    // The bytes of `buffer` counted in buffered_. Not its capacity(), which
    // is never 0 (an empty std::string has its small-string capacity).
    size_t accounted = 0;
    uint64_t buffer_offset = 0;  // file offset of data[0]
    Slice data;                  // valid bytes, inside buffer
    size_t next_read_size = 0;
    uint64_t last_use = 0;
  };
  // Open medium files; their buffers are bounded by the budget, not by this.
  static constexpr size_t kMaxOpenCursors = 512;

  Status GetCursor(const IOOptions& io, uint64_t number, Cursor** cursor);
  // Frees the least recently used buffers, never `keep`'s, until the buffers
  // fit the budget.
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
