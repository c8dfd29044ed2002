// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// One table's medium values: which medium files its SST points into (held
// open for the table's life), and how its pointers are resolved, cached and
// read ahead. HybridTableReader owns one; its iterators (hybrid_iterator.h)
// and scan prefetcher (scan_prefetcher.h) read through it.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "plugin/hybridkv/blob/io/read_batch.h"
#include "plugin/hybridkv/blob/lifecycle/db_state.h"
#include "plugin/hybridkv/blob/medium/medium_block_cache.h"
#include "plugin/hybridkv/blob/medium/medium_file.h"
#include "plugin/hybridkv/blob/medium/medium_pointer.h"
#include "plugin/hybridkv/blob/medium/medium_readahead.h"
#include "plugin/hybridkv/blob/medium/medium_refs.h"
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
  // `props`: the table's properties (null when unknown); its medium
  // references come from them. Unknown or undecodable references count as
  // references: the slow path is always correct.
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
  // request of `batch` (which reads through the table's file system) per span.
  // `pointers` must outlive its Wait. Errors are dropped: each value's own
  // read reports them.
  void AddMediumReads(ReadBatch* batch, const IOOptions& io,
                      const std::vector<MediumPointer>& pointers,
                      const std::vector<std::pair<size_t, size_t>>& spans);
  // Sorts `pointers` by file and offset and splits them into the spans that
  // AddMediumReads reads with one request each: [first, last) index pairs.
  static std::vector<std::pair<size_t, size_t>> GroupIntoReadSpans(
      std::vector<MediumPointer>* pointers);
  // The DB secret, to check pointers handed to compactions; Corruption if it is
  // missing.
  Status GetSecret(SipKey* secret);
  const MediumReadContext& context() const { return context_; }
  // Opens and holds, for this object's life, every medium file this table
  // points into, as RocksDB holds the SST open: a file another process
  // deletes stays readable, and none is punched while held. Fails when one
  // is missing and the directory holds no medium file at all, so that a DB
  // copied without HybridKV's files fails at open, saying how to copy it (one
  // lost file among others fails only the reads of its values). Fails too
  // when the SST at `sst_path` is gone once they are held: a secondary's
  // primary deleted it, and perhaps its medium data, since the last catch-up.
  Status HoldMediumFiles(const std::string& sst_path);
  // The medium files this table points into, with the runs of its records.
  const MediumRefs& medium_refs() const { return refs_; }
  // False when the table's properties say it points into no medium file: its
  // reads need none of this.
  bool has_medium_refs() const { return has_medium_refs_; }
  // False when the table's properties do not say what it references (an SST
  // written without HybridKV, perhaps from a DB that was HybridKV's).
  bool refs_known() const { return refs_known_; }
  Status GetMediumFile(const IOOptions& io, uint64_t number,
                       std::shared_ptr<MediumFileReader>* file);
  // Counts a value resolved, and the `reads` requests of `bytes_read` bytes
  // made for it (0 when it came from a cache or an earlier read).
  void RecordResolved(uint64_t value_bytes, uint64_t bytes_read,
                      uint64_t reads);

 private:
  // HoldMediumFiles' error for medium file `number` of `sst_path` missing
  // while the home holds no medium file at all.
  Status NoMediumFiles(uint64_t number, const std::string& sst_path);
  // The part of the span pointers[0, n) (one medium file, by offset, whose
  // cached blocks are `blocks`) that is not cached, [*begin, *end), and its
  // open file; false when all of it is cached or it cannot be read.
  bool UncachedSpan(const IOOptions& io, const MediumBlockCache& blocks,
                    const MediumPointer* pointers, size_t n,
                    std::shared_ptr<MediumFileReader>* file, uint64_t* begin,
                    uint64_t* end);
  // Medium file `file_number`'s blocks in the block cache.
  MediumBlockCache BlocksOf(uint64_t file_number) const;

  const MediumReadContext context_;
  bool has_medium_refs_ = false;
  bool refs_known_ = false;
  // The DB session that opens the table wrote it (its properties say so).
  bool written_here_ = false;
  MediumRefs refs_;  // from the table properties, when known
  // The medium files of refs_, held by HoldMediumFiles; read-only after it.
  std::map<uint64_t, std::shared_ptr<MediumFileReader>> held_;
};

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
