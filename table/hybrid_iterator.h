// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#pragma once

#include <memory>
#include <string>

#include "db/pinned_iterators_manager.h"
#include "plugin/hybridkv/blob/format/medium_pointer.h"
#include "plugin/hybridkv/blob/medium/medium_readahead.h"
#include "plugin/hybridkv/table/compaction_scope.h"
#include "plugin/hybridkv/table/medium_values.h"
#include "plugin/hybridkv/table/scan_prefetcher.h"
#include "table/internal_iterator.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

// Presents a HybridTable SST's pointer entries as kTypeValue: a compaction
// pointer (kPointer) or the value (kResolve), read in PrepareValue() under
// allow_unprepared_value so skipped entries cost nothing. Forwards virtuals.
class HybridIterator : public InternalIterator {
 public:
  enum class Mode { kPointer, kResolve };

  // `inner_in_arena`: only destroy `inner`. kPointer fails on pointers the
  // DB's secret does not verify rather than hand them to a compaction. `scan`:
  // a readahead buffer per medium file. `prefetcher` (user scans) may be null.
  HybridIterator(InternalIterator* inner, bool inner_in_arena, Mode mode,
                 TableMediumValues* table, const MediumReadOptions& read,
                 bool allow_unprepared_value, bool scan,
                 std::unique_ptr<ScanPrefetcher> prefetcher = nullptr);
  ~HybridIterator() override;

  void SetRangeDelReadSeqno(SequenceNumber read_seqno) override {
    inner_->SetRangeDelReadSeqno(read_seqno);
  }
  bool Valid() const override { return inner_->Valid() && status_.ok(); }
  void SeekToFirst() override {
    if (prefetcher_ != nullptr) prefetcher_->Seek(nullptr);
    inner_->SeekToFirst();
    Update();
  }
  void SeekToLast() override {
    if (prefetcher_ != nullptr) prefetcher_->Stop();
    inner_->SeekToLast();
    Update();
  }
  void Seek(const Slice& target) override {
    // With async_io, MergingIterator re-seeks after TryAgain: the same scan.
    if (prefetcher_ != nullptr && !inner_->status().IsTryAgain()) {
      prefetcher_->Seek(&target);
    }
    inner_->Seek(target);
    Update();
  }
  void SeekForPrev(const Slice& target) override {
    if (prefetcher_ != nullptr) prefetcher_->Stop();
    inner_->SeekForPrev(target);
    Update();
  }
  void Next() override {
    if (prefetcher_ != nullptr) prefetcher_->Next();
    inner_->Next();
    Update();
  }
  bool NextAndGetResult(IterateResult* result) override;
  void Prev() override {
    if (prefetcher_ != nullptr) prefetcher_->Stop();
    inner_->Prev();
    Update();
  }
  Slice key() const override {
    return is_pointer_ ? Slice(RewrittenKey()) : inner_->key();
  }
  uint64_t write_unix_time() const override {
    return inner_->write_unix_time();
  }
  Slice user_key() const override { return inner_->user_key(); }
  Slice value() const override;
  Status status() const override {
    return status_.ok() ? inner_->status() : status_;
  }
  bool PrepareValue() override;
  bool MayBeOutOfLowerBound() override {
    return inner_->MayBeOutOfLowerBound();
  }
  IterBoundCheck UpperBoundCheckResult() override {
    return inner_->UpperBoundCheckResult();
  }
  void SetPinnedItersMgr(PinnedIteratorsManager* pinned_iters_mgr) override {
    pinned_iters_mgr_ = pinned_iters_mgr;
    inner_->SetPinnedItersMgr(pinned_iters_mgr);
  }
  // A rewritten key is pinned if the inner key is and the caller pins; an
  // owned value goes to a pinning PinnedIteratorsManager at the next move.
  bool IsKeyPinned() const override {
    return is_pointer_ ? pinned_key_ != nullptr : inner_->IsKeyPinned();
  }
  bool IsValuePinned() const override {
    if (is_pointer_) {
      return pinned_iters_mgr_ != nullptr &&
             pinned_iters_mgr_->PinningEnabled();
    }
    return inner_->IsValuePinned();
  }
  Status GetProperty(std::string prop_name, std::string* prop) override {
    return inner_->GetProperty(std::move(prop_name), prop);
  }
  void GetReadaheadState(ReadaheadFileInfo* readahead_file_info) override {
    inner_->GetReadaheadState(readahead_file_info);
  }
  void SetReadaheadState(ReadaheadFileInfo* readahead_file_info) override {
    inner_->SetReadaheadState(readahead_file_info);
  }
  bool IsDeleteRangeSentinelKey() const override {
    return inner_->IsDeleteRangeSentinelKey();
  }

 private:
  void Update();  // classifies the inner iterator's current entry
  // Before a move: keeps the resolved value alive for a pinning caller.
  void ReleaseValue();
  bool Resolve();
  // Values for a compaction whose output would drop pointers (new table
  // factory, or BlobDB would take them).
  void ResolveFromNowOn();
  void MakeReadahead();
  Slice MacKey() const;
  void ReleaseKey();
  const std::string& RewrittenKey() const {
    return pinned_key_ != nullptr ? *pinned_key_ : key_buffer_;
  }

  InternalIterator* const inner_;
  const bool inner_in_arena_;
  Mode mode_;  // kPointer turns kResolve for good (ResolveFromNowOn)
  TableMediumValues* const table_;
  const bool allow_unprepared_value_;
  const MediumReadOptions read_;
  Status status_;
  PinnedIteratorsManager* pinned_iters_mgr_ = nullptr;
  bool is_pointer_ = false;
  bool mac_checked_ = false;  // kPointer: this table's MACs verify
  bool resolved_ = false;

  MediumPointer pointer_;
  // A pointer entry's key retyped kTypeValue: in pinned_key_ while pinned.
  std::string key_buffer_;
  std::unique_ptr<std::string> pinned_key_;
  std::unique_ptr<std::string> value_;  // resolved value or compaction pointer
  std::unique_ptr<MediumReadahead> readahead_;  // scans only
  std::shared_ptr<CompactionScope> scope_;      // kPointer only
  std::unique_ptr<ScanPrefetcher> prefetcher_;  // user scans only
};

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
