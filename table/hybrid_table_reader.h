// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "plugin/hybridkv/blob/blob_cache_warmer.h"
#include "plugin/hybridkv/blob/db_state.h"
#include "plugin/hybridkv/blob/medium_block_cache.h"
#include "plugin/hybridkv/blob/medium_file.h"
#include "plugin/hybridkv/blob/medium_pointer.h"
#include "plugin/hybridkv/blob/medium_readahead.h"
#include "plugin/hybridkv/blob/medium_refs.h"
#include "plugin/hybridkv/blob/rocksdb_compat.h"
#include "plugin/hybridkv/table/scan_prefetcher.h"
#include "rocksdb/advanced_cache.h"
#include "table/table_reader.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

// Where a table's medium files are and how to read them.
struct MediumReadContext {
  std::shared_ptr<FileSystem> fs;
  std::vector<std::string> dirs;  // candidates, the SST's own directory first
  FileOptions file_options;
  const Comparator* user_comparator = nullptr;
  size_t timestamp_size = 0;
  std::string
      db_id;  // from the table's properties; finds the secret for compactions
  std::shared_ptr<Cache>
      block_cache;               // the inner table's; null when it has none
  DbState* state = nullptr;      // the DB's counters and open medium files
  std::string session_id;        // of the DB session that opened the table
  SystemClock* clock = nullptr;  // for ReadOptions::deadline
  // User scans warm BlobDB's values up to this many entries ahead
  // (ScanPrefetcher); 0: off.
  size_t scan_prefetch_max = 0;
  // Null without a blob cache.
  std::shared_ptr<BlobCacheWarmer> blob_warmer;
};

// Reads one HybridTable SST through the inner format's reader.
//
// Pointer entries are stored as kTypeBlobIndex. Iterators present them as
// kTypeValue: to compactions (caller kCompaction) as the pointer itself, so
// that compactions above the merge level never read medium values; to everyone
// else as the resolved value. An SST that references no medium file (its
// properties say so) is served by the inner reader directly.
//
// Every virtual is forwarded, including those TableReader gives a default body:
// a missing NewRangeTombstoneIterator would silently bring deleted data back, a
// missing VerifyChecksum breaks DB::VerifyChecksum.
class HybridTableReader : public TableReader {
 public:
  HybridTableReader(std::unique_ptr<TableReader> inner,
                    MediumReadContext context);
  ~HybridTableReader() override;

  InternalIterator* NewIterator(const ReadOptions& read_options,
                                const SliceTransform* prefix_extractor,
                                Arena* arena, bool skip_filters,
                                TableReaderCaller caller,
                                size_t compaction_readahead_size = 0,
                                bool allow_unprepared_value = false) override;

  FragmentedRangeTombstoneIterator* NewRangeTombstoneIterator(
      const ReadOptions& read_options) override {
    return inner_->NewRangeTombstoneIterator(read_options);
  }
  FragmentedRangeTombstoneIterator* NewRangeTombstoneIterator(
      SequenceNumber read_seqno, const Slice* timestamp) override {
    return inner_->NewRangeTombstoneIterator(read_seqno, timestamp);
  }
  uint64_t ApproximateOffsetOf(const ReadOptions& read_options,
                               const Slice& key,
                               TableReaderCaller caller) override {
    return inner_->ApproximateOffsetOf(read_options, key, caller);
  }
  uint64_t ApproximateSize(const ReadOptions& read_options, const Slice& start,
                           const Slice& end,
                           TableReaderCaller caller) override {
    return inner_->ApproximateSize(read_options, start, end, caller);
  }
  Status ApproximateKeyAnchors(const ReadOptions& read_options,
                               std::vector<Anchor>& anchors) override {
    return inner_->ApproximateKeyAnchors(read_options, anchors);
  }
  void SetupForCompaction() override { inner_->SetupForCompaction(); }
  std::shared_ptr<const TableProperties> GetTableProperties() const override {
    return inner_->GetTableProperties();
  }
  void Prepare(const Slice& target) override { inner_->Prepare(target); }
  size_t ApproximateMemoryUsage() const override {
    return inner_->ApproximateMemoryUsage();
  }
  Status Get(const ReadOptions& read_options, const Slice& key,
             GetContext* get_context, const SliceTransform* prefix_extractor,
             bool skip_filters = false) override;
  Status MultiGetFilter(const ReadOptions& read_options,
                        const SliceTransform* prefix_extractor,
                        MultiGetContext::Range* mget_range) override {
    return inner_->MultiGetFilter(read_options, prefix_extractor, mget_range);
  }
  void MultiGet(const ReadOptions& read_options,
                const MultiGetContext::Range* mget_range,
                const SliceTransform* prefix_extractor,
                bool skip_filters = false) override;
#if USE_COROUTINES
  folly::coro::Task<void> MultiGetCoroutine(
      const ReadOptions& read_options, const MultiGetContext::Range* mget_range,
      const SliceTransform* prefix_extractor,
      bool skip_filters = false) override {
    if (has_medium_refs_) {
      return TableReader::MultiGetCoroutine(read_options, mget_range,
                                            prefix_extractor, skip_filters);
    }
    return inner_->MultiGetCoroutine(read_options, mget_range, prefix_extractor,
                                     skip_filters);
  }
#endif  // USE_COROUTINES
  Status Prefetch(const ReadOptions& read_options, const Slice* begin,
                  const Slice* end) override {
    return inner_->Prefetch(read_options, begin, end);
  }
  Status DumpTable(
      WritableFile* out_file HYBRIDKV_DUMP_TABLE_EXTRA_PARAMS) override {
    return inner_->DumpTable(out_file HYBRIDKV_DUMP_TABLE_EXTRA_ARGS);
  }
  // The SST's own checksums, then every record of every medium file it
  // references.
  Status VerifyChecksum(const ReadOptions& read_options,
                        TableReaderCaller caller
                            HYBRIDKV_VERIFY_CHECKSUM_EXTRA_PARAMS) override;
  void MarkObsolete(uint32_t uncache_aggressiveness) override {
    inner_->MarkObsolete(uncache_aggressiveness);
  }

  // Reads the value `pointer` refers to for `user_key` (without timestamp).
  // Incomplete when `options` allow the block cache only and it misses.
  Status ResolvePointer(const MediumReadOptions& options,
                        const MediumPointer& pointer, const Slice& user_key,
                        std::string* value);
  // Reads the records that `pointers` point to, by span (GroupIntoReadSpans:
  // one request per span, all in flight together, AsyncReadBatch), into the
  // block cache. Values already cached are not read. Errors are dropped: each
  // value's own read reports them.
  void WarmMediumSpans(const MediumReadOptions& options,
                       const std::vector<MediumPointer>& pointers,
                       const std::vector<std::pair<size_t, size_t>>& spans);
  // WarmMediumSpans's reads as requests of `batch` (which reads through the
  // table's file system); `pointers` must outlive its Wait.
  void AddMediumReads(AsyncReadBatch* batch, const IOOptions& io,
                      const std::vector<MediumPointer>& pointers,
                      const std::vector<std::pair<size_t, size_t>>& spans);
  // Sorts `pointers` by file and offset and splits them into the spans that
  // WarmMediumSpans reads with one request each: [first, last) index pairs.
  static std::vector<std::pair<size_t, size_t>> GroupIntoReadSpans(
      std::vector<MediumPointer>* pointers);
  // The DB secret, to check pointers handed to compactions; Corruption if it is
  // missing.
  Status GetSecret(SipKey* secret);
  const MediumReadContext& context() const { return context_; }
  // Opens and holds, for the reader's life, every medium file this table
  // points into, as RocksDB holds the SST open: a medium file that another
  // process deletes stays readable, and none is punched while held
  // (MediumFileCache). Fails when one is missing and the directory holds no
  // medium file at all: a DB copied without HybridKV's files then fails at
  // open, where its table readers are opened, with a message that says how to
  // copy it. (One damaged or lost file among others is not fatal: reads of the
  // values stored there fail, naming it.) Fails too when the SST at
  // `sst_path` is gone once they are held: on a secondary instance, the
  // primary deleted it, and perhaps freed its medium data, since the last
  // catch-up.
  Status HoldMediumFiles(const std::string& sst_path);
  // The wrapped format's reader (ScanPrefetcher's lookahead reads through it).
  TableReader* inner() const { return inner_.get(); }
  // The medium files this table points into, with the runs of its records.
  const MediumRefs& medium_refs() const { return refs_; }
  Status GetMediumFile(const IOOptions& io, uint64_t number,
                       std::shared_ptr<MediumFileReader>* file);
  // Counts a value resolved by a read.
  void RecordResolved(uint64_t value_bytes, uint64_t bytes_read);
  ScanLengthHint& scan_length_hint() { return scan_length_hint_; }

 private:
  // The part of the span pointers[0, n) (one medium file, by offset, whose
  // cached blocks are `blocks`) that is not cached, [*begin, *end), and its
  // open file; false when all of it is cached or it cannot be read.
  bool UncachedSpan(const IOOptions& io, const MediumBlockCache& blocks,
                    const MediumPointer* pointers, size_t n,
                    std::shared_ptr<MediumFileReader>* file, uint64_t* begin,
                    uint64_t* end);
  // What Get's one-lookup probe found for a key.
  struct ProbeResult {
    enum Outcome {
      kAnswered,  // the caller's GetContext has its answer from this table
      kPointer,   // the newest entry is `pointer`, at sequence `seq`
      kIterator,  // only GetByIterator can answer (merges, read callbacks...)
    };
    Outcome outcome = kAnswered;
    MediumPointer pointer;
    SequenceNumber seq = 0;
  };
  Status Probe(const ReadOptions& read_options, const Slice& key,
               GetContext* get_context, const SliceTransform* prefix_extractor,
               bool skip_filters, ProbeResult* result);
  // Completes a lookup after its probe: resolves a kPointer probe's value
  // and hands it over, and replays kIterator keys through GetByIterator.
  Status FinishLookup(const ReadOptions& read_options,
                      const MediumReadOptions& medium_options, const Slice& key,
                      GetContext* get_context,
                      const SliceTransform* prefix_extractor, bool skip_filters,
                      ProbeResult* probe);
  // Hands `get_context` the entry (key's user key, seq, type) with `value`;
  // kIterator in `*result` when it wants older entries too.
  Status Save(const Slice& key, SequenceNumber seq, ValueType type,
              const Slice& value, GetContext* get_context, ProbeResult* result);
  Status GetByIterator(const ReadOptions& read_options, const Slice& key,
                       GetContext* get_context,
                       const SliceTransform* prefix_extractor,
                       bool skip_filters);
  // Medium file `file_number`'s blocks in the block cache.
  MediumBlockCache BlocksOf(uint64_t file_number) const;
  bool ScanPrefetchApplies(const ReadOptions& read_options,
                           TableReaderCaller caller) const;

  std::unique_ptr<TableReader> inner_;
  const MediumReadContext context_;
  ScanLengthHint scan_length_hint_;
  bool has_medium_refs_ = false;
  MediumRefs refs_;  // from the table properties, when known
  // The medium files of refs_, held by HoldMediumFiles; read-only after it.
  std::map<uint64_t, std::shared_ptr<MediumFileReader>> held_;
};

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
