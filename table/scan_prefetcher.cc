// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "plugin/hybridkv/table/scan_prefetcher.h"

#include <algorithm>

#include "db/dbformat.h"
#include "plugin/hybridkv/blob/io/read_batch.h"
#include "plugin/hybridkv/blob/medium/medium_readahead.h"
#include "rocksdb/comparator.h"
#include "rocksdb/snapshot.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

ScanPrefetcher::ScanPrefetcher(TableMediumValues* table, TableReader* inner,
                               ScanLengthHint* hint,
                               const ReadOptions& read_options,
                               const SliceTransform* prefix_extractor,
                               bool skip_filters)
    : table_(table),
      inner_(inner),
      hint_(hint),
      read_options_(read_options),
      visible_seq_(read_options.snapshot != nullptr
                       ? read_options.snapshot->GetSequenceNumber()
                       : kMaxSequenceNumber),
      medium_read_options_(read_options),
      prefix_extractor_(prefix_extractor),
      skip_filters_(skip_filters),
      max_window_(std::max<size_t>(table->context().scan_prefetch_max, 1)) {
  // async_io would leave block reads in flight on this thread's io_uring
  // between calls, which RocksDB 9.x shares with MultiRead (MultiGet).
  read_options_.async_io = false;
}

ScanPrefetcher::~ScanPrefetcher() { Stop(); }

void ScanPrefetcher::Stop() {
  if (active_) {
    hint_->Record(consumed_ + 1);  // with its last entry
  }
  if (values_collected_ > 0 || values_used_ > 0) {
    DbCounters& counters = table_->context().state->counters;
    counters.scan_values_prefetched += values_collected_;
    counters.scan_values_used += values_used_;
    values_collected_ = 0;
    values_used_ = 0;
  }
  active_ = false;
}

void ScanPrefetcher::Seek(const Slice* internal_target) {
  Stop();  // the scan before this seek ended here
  table_->context().state->counters.scan_table_seeks++;
  has_prefix_ = false;
  if (internal_target != nullptr && read_options_.prefix_same_as_start &&
      prefix_extractor_ != nullptr) {
    const Slice user_target = ExtractUserKey(*internal_target);
    if (prefix_extractor_->InDomain(user_target)) {
      has_prefix_ = true;
      prefix_ = prefix_extractor_->Transform(user_target).ToString();
    }
  }
  active_ = true;
  exhausted_ = false;
  window_ = hint_->FirstWindow(kMinWindow, max_window_);
  consumed_ = 0;
  collected_end_ = 0;
  next_step_at_ = 0;
  in_step_ = false;
  last_used_ = SIZE_MAX;
}

void ScanPrefetcher::CountUse() {
  const std::vector<size_t>& at = window_state_.collected_at;
  if (in_step_ && consumed_ != last_used_ &&
      std::binary_search(at.begin(), at.end(), consumed_)) {
    values_used_++;
    last_used_ = consumed_;
  }
}

bool ScanPrefetcher::BeyondEnd(const Slice& user_key) const {
  if (read_options_.iterate_upper_bound != nullptr &&
      table_->context().user_comparator->CompareWithoutTimestamp(
          user_key, /*a_has_ts=*/true, *read_options_.iterate_upper_bound,
          /*b_has_ts=*/false) >= 0) {
    return true;
  }
  return has_prefix_ && (!prefix_extractor_->InDomain(user_key) ||
                         prefix_extractor_->Transform(user_key) != prefix_);
}

void ScanPrefetcher::Step(const Slice& internal_key) {
  // The scan is past every window read: reseek the lookahead to it unless
  // a window was read since the seek and the scan stands right after it.
  const bool reseek = !in_step_ || consumed_ != collected_end_;
  if (!reseek && exhausted_) {
    next_step_at_ = SIZE_MAX;
    return;
  }
  if (reseek) {
    if (lookahead_ == nullptr) {
      // It sees every entry, as the scan's own iterator does.
      lookahead_.reset(inner_->NewIterator(
          read_options_, prefix_extractor_, /*arena=*/nullptr, skip_filters_,
          TableReaderCaller::kUserIterator, /*compaction_readahead_size=*/0,
          /*allow_unprepared_value=*/false));
    }
    lookahead_->Seek(internal_key);
    collected_end_ = consumed_;
    in_step_ = true;
    exhausted_ = false;
  }
  IOOptions io;
  if (!medium_read_options_.PrepareIO(table_->context().clock, &io).ok()) {
    // Past the deadline: each value's own read says so.
    exhausted_ = true;
    next_step_at_ = SIZE_MAX;
    return;
  }
  Window& w = window_state_;
  Collect();
  const auto spans = TableMediumValues::GroupIntoReadSpans(&w.medium);
  ReadBatch batch(io);
  table_->AddMediumReads(&batch, io, w.medium, spans);
  batch.Wait();
  next_step_at_ = collected_end_;  // the window's end
}

void ScanPrefetcher::Collect() {
  Window& w = window_state_;
  w.medium.clear();
  w.collected_at.clear();
  size_t n = 0;
  for (; n < window_ && lookahead_->Valid(); n++, lookahead_->Next()) {
    ParsedInternalKey parsed;
    if (!ParseInternalKey(lookahead_->key(), &parsed, false).ok() ||
        BeyondEnd(parsed.user_key)) {
      break;
    }
    if (parsed.type != kTypeBlobIndex || parsed.sequence > visible_seq_) {
      continue;
    }
    const Slice value = lookahead_->value();
    MediumPointer pointer;
    if (MayBeMediumPointer(value) && PeekMediumPointer(value, &pointer)) {
      w.medium.push_back(pointer);
      w.collected_at.push_back(collected_end_ + n);
    }
  }
  values_collected_ += w.medium.size();
  collected_end_ += n;
  if (n < window_) {
    exhausted_ = true;  // the table or the range ended
  }
  window_ = std::min(window_ * 2, max_window_);
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
