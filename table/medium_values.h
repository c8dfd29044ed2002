// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// One table's medium values: the medium files its SST points into (held open
// for the table's life), and how its pointers are resolved, cached and read
// ahead. Owned by HybridTableReader; its iterators and prefetcher use it.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "plugin/hybridkv/blob/format/medium_pointer.h"
#include "plugin/hybridkv/blob/format/medium_refs.h"
#include "plugin/hybridkv/blob/io/read_batch.h"
#include "plugin/hybridkv/blob/lifecycle/db_state.h"
#include "plugin/hybridkv/blob/medium/medium_block_cache.h"
#include "plugin/hybridkv/blob/medium/medium_file.h"
#include "plugin/hybridkv/blob/medium/medium_readahead.h"
#include "rocksdb/advanced_cache.h"
#include "rocksdb/table_properties.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

// Where a table's medium files are and how to read them.
struct MediumReadContext {
  std::shared_ptr<FileSystem> fs;
  std::vector<std::string> dirs;  // candidates, the SST's own directory first
  FileOptions file_options;
  const Comparator* user_comparator = nullptr;
  size_t timestamp_size = 0;
  std::string db_id;  // from the table's properties; keys the secret
  std::shared_ptr<Cache> block_cache;  // the inner table's, or null
  DbState* state = nullptr;       // the DB's counters and open medium files
  uint32_t column_family_id = 0;  // from the table's properties
  std::string session_id;         // of the DB session that opened the table
  SystemClock* clock = nullptr;   // for ReadOptions::deadline
  size_t scan_prefetch_max = 0;   // ScanPrefetcher's window cap; 0: off
};

class TableMediumValues {
 public:
  // Medium references come from `props` (null when unknown). Unknown or
  // undecodable ones count as references: the slow path is always correct.
  TableMediumValues(MediumReadContext context, const TableProperties* props);
  ~TableMediumValues();
  TableMediumValues(const TableMediumValues&) = delete;
  TableMediumValues& operator=(const TableMediumValues&) = delete;

  // Reads the value `pointer` refers to for `user_key` (without timestamp).
  // Incomplete when `options` allow the block cache only and it misses.
  Status ResolvePointer(const MediumReadOptions& options,
                        const MediumPointer& pointer, const Slice& user_key,
                        std::string* value);
  // Reads the uncached records `pointers` point to into the block cache, one
  // `batch` request per span; `pointers` must outlive its Wait. Errors are
  // dropped: each value's own read reports them.
  void AddMediumReads(ReadBatch* batch, const IOOptions& io,
                      const std::vector<MediumPointer>& pointers,
                      const std::vector<std::pair<size_t, size_t>>& spans);
  // Sorts `pointers` (file, offset) into AddMediumReads' [first, last) spans.
  static std::vector<std::pair<size_t, size_t>> GroupIntoReadSpans(
      std::vector<MediumPointer>* pointers);
  // The DB secret, for checking compaction pointers; Corruption if missing.
  Status GetSecret(SipKey* secret);
  const MediumReadContext& context() const { return context_; }
  // Holds every medium file this table points into for this object's life,
  // as RocksDB holds the SST: one another process deletes stays readable, and
  // none is punched while held. Fails if one is missing and the home has no
  // medium file at all, so a DB copied without them fails at open, saying
  // how to copy it (one lost file fails only reads of its values); or if
  // `sst_path` is gone once held (a secondary's primary deleted it).
  Status HoldMediumFiles(const std::string& sst_path);
  // The medium files this table points into, with the runs of its records.
  const MediumRefs& medium_refs() const { return refs_; }
  // False when the properties say the table points into no medium file.
  bool has_medium_refs() const { return has_medium_refs_; }
  // False when the properties list no references (not written by HybridKV).
  bool refs_known() const { return refs_known_; }
  Status GetMediumFile(const IOOptions& io, uint64_t number,
                       std::shared_ptr<MediumFileReader>* file);
  // Counts a value resolved, and the `reads` requests of `bytes_read` bytes
  // made for it (0 when it came from a cache or an earlier read).
  void RecordResolved(uint64_t value_bytes, uint64_t bytes_read,
                      uint64_t reads);

 private:
  Status NoMediumFiles(uint64_t number, const std::string& sst_path);
  // The part of the span pointers[0, n) (one medium file, by offset, whose
  // cached blocks are `blocks`) that is not cached, [*begin, *end), and its
  // open file; false when all of it is cached or it cannot be read.
  bool UncachedSpan(const IOOptions& io, const MediumBlockCache& blocks,
                    const MediumPointer* pointers, size_t n,
                    std::shared_ptr<MediumFileReader>* file, uint64_t* begin,
                    uint64_t* end);
  MediumBlockCache BlocksOf(uint64_t file_number) const;

  const MediumReadContext context_;
  bool has_medium_refs_ = false;
  bool refs_known_ = false;
  bool written_here_ = false;  // by the DB session that opens the table
  MediumRefs refs_;            // from the table properties, when known
  // The medium files of refs_, held by HoldMediumFiles; read-only after it.
  std::map<uint64_t, std::shared_ptr<MediumFileReader>> held_;
};

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
