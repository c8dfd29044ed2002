// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// One table's medium values: the medium files its SST points into, held open
// for its life, and how pointers are resolved, cached and read ahead. Owned
// by HybridTableReader; its iterators and prefetcher use it.
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
  // References from `props` (null: unknown); unknown or undecodable ones count
  // as references, as the slow path is always correct.
  TableMediumValues(MediumReadContext context, const TableProperties* props);
  ~TableMediumValues();
  TableMediumValues(const TableMediumValues&) = delete;
  TableMediumValues& operator=(const TableMediumValues&) = delete;

  // Reads `pointer`'s value for `user_key` (no timestamp); Incomplete when
  // `options` allow only the block cache and it misses.
  Status ResolvePointer(const MediumReadOptions& options,
                        const MediumPointer& pointer, const Slice& user_key,
                        std::string* value);
  // Reads the uncached records `pointers` point to into the block cache, one
  // `batch` request per span (`pointers` must outlive its Wait); errors are
  // dropped, as each value's own read reports them.
  void AddMediumReads(ReadBatch* batch, const IOOptions& io,
                      const std::vector<MediumPointer>& pointers,
                      const std::vector<std::pair<size_t, size_t>>& spans);
  // Sorts `pointers` (file, offset) into AddMediumReads' [first, last) spans.
  static std::vector<std::pair<size_t, size_t>> GroupIntoReadSpans(
      std::vector<MediumPointer>* pointers);
  // The DB secret, for checking compaction pointers; Corruption if missing.
  Status GetSecret(SipKey* secret);
  const MediumReadContext& context() const { return context_; }
  // Holds every medium file this table points into, as RocksDB holds the SST:
  // readable if another process deletes it, never punched. Fails if one is
  // missing and the home has none, so a DB copied without them fails at open
  // saying how to copy it (one lost file fails only its reads), or if
  // `sst_path` is gone once held (a secondary's primary deleted it).
  Status HoldMediumFiles(const std::string& sst_path);
  // The medium files this table points into, with the runs of its records.
  const MediumRefs& medium_refs() const { return refs_; }
  bool has_medium_refs() const { return has_medium_refs_; }
  // False when not written by HybridKV (the properties list no references).
  bool refs_known() const { return refs_known_; }
  Status GetMediumFile(const IOOptions& io, uint64_t number,
                       std::shared_ptr<MediumFileReader>* file);
  // Counts a value resolved and the reads made for it (0 if already cached).
  void RecordResolved(uint64_t value_bytes, uint64_t bytes_read,
                      uint64_t reads);

 private:
  Status NoMediumFiles(uint64_t number, const std::string& sst_path);
  // The uncached part [*begin, *end) of span pointers[0, n) (one file, by
  // offset, cached `blocks`) and its file; false if all cached or unreadable.
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
