// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "plugin/hybridkv/table/scan_prefetcher.h"

#include <algorithm>

#include "db/blob/blob_index.h"
#include "db/dbformat.h"
#include "plugin/hybridkv/blob/medium_pointer.h"
#include "rocksdb/comparator.h"
#include "rocksdb/snapshot.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

ScanPrefetcher::ScanPrefetcher(
    std::function<InternalIterator*()> new_lookahead,
                               std::shared_ptr<BlobCacheWarmer> warmer,
                               const ReadOptions& read_options,
                               const Comparator* user_comparator,
                               const SliceTransform* prefix_extractor,
                               size_t max_window)
    : new_lookahead_(std::move(new_lookahead)),
      warmer_(std::move(warmer)),
      read_options_(read_options),
      user_comparator_(user_comparator),
      prefix_extractor_(prefix_extractor),
      max_window_(std::max<size_t>(max_window, 1)) {}

ScanPrefetcher::~ScanPrefetcher() = default;

void ScanPrefetcher::Seek(const Slice* internal_target) {
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
  window_ = std::min(kInitialWindow, max_window_);
  consumed_ = 0;
  warmed_end_ = 0;
  in_step_ = false;
}

bool ScanPrefetcher::BeyondEnd(const Slice& user_key) const {
  if (read_options_.iterate_upper_bound != nullptr &&
      user_comparator_->CompareWithoutTimestamp(
          user_key, /*a_has_ts=*/true, *read_options_.iterate_upper_bound,
          /*b_has_ts=*/false) >= 0) {
    return true;
  }
  return has_prefix_ && (!prefix_extractor_->InDomain(user_key) ||
                         prefix_extractor_->Transform(user_key) != prefix_);
}

void ScanPrefetcher::Warm(const Slice& internal_key) {
  if (!in_step_ || consumed_ != warmed_end_) {
    // The scan left the warmed part by more than one entry (or nothing was
    // warmed since the seek): start where it stands.
    if (lookahead_ == nullptr) {
      lookahead_.reset(new_lookahead_());
    }
    lookahead_->Seek(internal_key);
    warmed_end_ = consumed_;
    in_step_ = true;
  }
  const SequenceNumber visible =
      read_options_.snapshot != nullptr
          ? read_options_.snapshot->GetSequenceNumber()
          : kMaxSequenceNumber;
  blobs_.clear();
  size_t n = 0;
  for (; n < window_ && lookahead_->Valid(); n++, lookahead_->Next()) {
    ParsedInternalKey parsed;
    if (!ParseInternalKey(lookahead_->key(), &parsed, false).ok() ||
        BeyondEnd(parsed.user_key)) {
      break;
    }
    if (parsed.type != kTypeBlobIndex || parsed.sequence > visible) {
      continue;
    }
    const Slice value = lookahead_->value();
    BlobIndex index;
    if (MayBeMediumPointer(value) || !index.DecodeFrom(value).ok() ||
        index.IsInlined()) {
      continue;  // a medium pointer, or nothing BlobDB reads from a file
    }
    blobs_.push_back({parsed.user_key.ToString(), index.file_number(),
                      index.offset(), index.size(), index.compression()});
  }
  warmed_end_ += n;
  if (n < window_) {
    active_ = false;  // the table or the range ended
  }
  window_ = std::min(window_ * 2, max_window_);
  const auto groups = BlobCacheWarmer::GroupByFile(&blobs_);
  RunReadsInParallel(groups.size(), [&](size_t i) {
    warmer_->WarmGroup(read_options_, &blobs_[groups[i].first],
                       groups[i].second - groups[i].first);
  });
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
