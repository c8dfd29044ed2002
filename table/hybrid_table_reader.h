// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#pragma once

#include <memory>

#include "table/table_reader.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

// Reads one HybridTable SST through the inner format's reader. Every virtual is forwarded,
// including those TableReader gives a default body: a missing NewRangeTombstoneIterator would
// silently bring deleted data back, a missing VerifyChecksum breaks DB::VerifyChecksum.
class HybridTableReader : public TableReader {
 public:
  explicit HybridTableReader(std::unique_ptr<TableReader> inner)
      : inner_(std::move(inner)) {}

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
                           const Slice& end, TableReaderCaller caller) override {
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
             bool skip_filters = false) override {
    return inner_->Get(read_options, key, get_context, prefix_extractor,
                       skip_filters);
  }
  Status MultiGetFilter(const ReadOptions& read_options,
                        const SliceTransform* prefix_extractor,
                        MultiGetContext::Range* mget_range) override {
    return inner_->MultiGetFilter(read_options, prefix_extractor, mget_range);
  }
  void MultiGet(const ReadOptions& read_options,
                const MultiGetContext::Range* mget_range,
                const SliceTransform* prefix_extractor,
                bool skip_filters = false) override {
    inner_->MultiGet(read_options, mget_range, prefix_extractor, skip_filters);
  }
#if USE_COROUTINES
  folly::coro::Task<void> MultiGetCoroutine(
      const ReadOptions& read_options, const MultiGetContext::Range* mget_range,
      const SliceTransform* prefix_extractor, bool skip_filters = false) override {
    return inner_->MultiGetCoroutine(read_options, mget_range, prefix_extractor,
                                     skip_filters);
  }
#endif  // USE_COROUTINES
  Status Prefetch(const ReadOptions& read_options, const Slice* begin,
                  const Slice* end) override {
    return inner_->Prefetch(read_options, begin, end);
  }
  Status DumpTable(WritableFile* out_file) override {
    return inner_->DumpTable(out_file);
  }
  Status VerifyChecksum(const ReadOptions& read_options,
                        TableReaderCaller caller) override {
    return inner_->VerifyChecksum(read_options, caller);
  }
  void MarkObsolete(uint32_t uncache_aggressiveness) override {
    inner_->MarkObsolete(uncache_aggressiveness);
  }

 private:
  std::unique_ptr<TableReader> inner_;
};

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
