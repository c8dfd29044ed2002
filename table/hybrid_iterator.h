// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#pragma once

#include "table/internal_iterator.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

// An iterator over one HybridTable SST. It forwards every InternalIterator virtual, defaulted
// ones included, so that bounds checks, lazy values (PrepareValue), pinning, readahead state
// and range-deletion sentinels behave exactly as in the inner format.
class HybridIterator : public InternalIterator {
 public:
  // `inner_in_arena`: the inner iterator was placement-new'ed into an arena, so only its
  // destructor may run.
  HybridIterator(InternalIterator* inner, bool inner_in_arena)
      : inner_(inner), inner_in_arena_(inner_in_arena) {}
  ~HybridIterator() override {
    if (inner_in_arena_) {
      inner_->~InternalIterator();
    } else {
      delete inner_;
    }
  }

  void SetRangeDelReadSeqno(SequenceNumber read_seqno) override {
    inner_->SetRangeDelReadSeqno(read_seqno);
  }
  bool Valid() const override { return inner_->Valid(); }
  void SeekToFirst() override { inner_->SeekToFirst(); }
  void SeekToLast() override { inner_->SeekToLast(); }
  void Seek(const Slice& target) override { inner_->Seek(target); }
  void SeekForPrev(const Slice& target) override { inner_->SeekForPrev(target); }
  void Next() override { inner_->Next(); }
  bool NextAndGetResult(IterateResult* result) override {
    return inner_->NextAndGetResult(result);
  }
  void Prev() override { inner_->Prev(); }
  Slice key() const override { return inner_->key(); }
  uint64_t write_unix_time() const override { return inner_->write_unix_time(); }
  Slice user_key() const override { return inner_->user_key(); }
  Slice value() const override { return inner_->value(); }
  Status status() const override { return inner_->status(); }
  bool PrepareValue() override { return inner_->PrepareValue(); }
  bool MayBeOutOfLowerBound() override { return inner_->MayBeOutOfLowerBound(); }
  IterBoundCheck UpperBoundCheckResult() override {
    return inner_->UpperBoundCheckResult();
  }
  void SetPinnedItersMgr(PinnedIteratorsManager* pinned_iters_mgr) override {
    inner_->SetPinnedItersMgr(pinned_iters_mgr);
  }
  bool IsKeyPinned() const override { return inner_->IsKeyPinned(); }
  bool IsValuePinned() const override { return inner_->IsValuePinned(); }
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
  InternalIterator* const inner_;
  const bool inner_in_arena_;
};

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
