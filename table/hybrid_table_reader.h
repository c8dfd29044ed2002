// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// HybridTableReader reads one HybridTable SST through the inner reader, with
// medium_values.h, hybrid_iterator.h and scan_prefetcher.h.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "plugin/hybridkv/blob/io/rocksdb_compat.h"
#include "plugin/hybridkv/table/medium_values.h"
#include "plugin/hybridkv/table/scan_prefetcher.h"
#include "table/table_reader.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

// Presents kTypeBlobIndex pointer entries as kTypeValue: the pointer to
// compactions, so those above the merge level read no medium value; the value
// to others. Without medium refs the inner reader serves all. Forwards every
// virtual: a missing NewRangeTombstoneIterator would revive deleted data.
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
    if (values_.has_medium_refs()) {
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
  // The SST's own checksums, then every medium record it points to.
  Status VerifyChecksum(const ReadOptions& read_options,
                        TableReaderCaller caller
                            HYBRIDKV_VERIFY_CHECKSUM_EXTRA_PARAMS) override;
  void MarkObsolete(uint32_t uncache_aggressiveness) override {
    inner_->MarkObsolete(uncache_aggressiveness);
  }

  bool has_medium_refs() const { return values_.has_medium_refs(); }
  bool medium_refs_known() const { return values_.refs_known(); }
  Status HoldMediumFiles(const std::string& sst_path) {
    return values_.HoldMediumFiles(sst_path);
  }

 private:
  // What Get's one-lookup probe found (see Probe in the .cc).
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
  // Hands `get_context` the entry; kIterator in `*result` if it wants older.
  Status Save(const Slice& key, SequenceNumber seq, ValueType type,
              const Slice& value, GetContext* get_context, ProbeResult* result);
  Status GetByIterator(const ReadOptions& read_options, const Slice& key,
                       GetContext* get_context,
                       const SliceTransform* prefix_extractor,
                       bool skip_filters);
  bool ScanPrefetchApplies(const ReadOptions& read_options,
                           TableReaderCaller caller) const;

  std::unique_ptr<TableReader> inner_;
  TableMediumValues values_;  // after inner_: built from its properties
  ScanLengthHint scan_length_hint_;
};

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
