// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "plugin/hybridkv/table/scan_prefetcher.h"

#include <algorithm>

#include "db/blob/blob_index.h"
#include "db/dbformat.h"
#include "plugin/hybridkv/blob/async_read_batch.h"
#include "plugin/hybridkv/blob/medium_readahead.h"
#include "plugin/hybridkv/blob/medium_refs.h"
#include "plugin/hybridkv/table/hybrid_table_reader.h"
#include "rocksdb/comparator.h"
#include "rocksdb/snapshot.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
ScanPrefetcher::ScanPrefetcher(HybridTableReader* table,
                               const ReadOptions& read_options,
                               const SliceTransform* prefix_extractor,
                               bool skip_filters)
    : table_(table),
      read_options_(read_options),
      medium_read_options_(read_options),
      prefix_extractor_(prefix_extractor),
      skip_filters_(skip_filters),
      max_window_(std::max<size_t>(table->context().scan_prefetch_max, 1)) {}

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
      table_->context().user_comparator->CompareWithoutTimestamp(
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
      // It sees every entry, as the scan's own iterator does.
      lookahead_.reset(table_->inner()->NewIterator(
          read_options_, prefix_extractor_, /*arena=*/nullptr, skip_filters_,
          TableReaderCaller::kUserIterator, /*compaction_readahead_size=*/0,
          /*allow_unprepared_value=*/false));
    }
    lookahead_->Seek(internal_key);
    warmed_end_ = consumed_;
    in_step_ = true;
  }
  Collect();
  const auto groups = SortAndGroup(
      &blobs_,
      [](const BlobCacheWarmer::Blob& b) {
        return std::make_pair(b.file_number, b.offset);
      },
      [](const BlobCacheWarmer::Blob& prev, const BlobCacheWarmer::Blob& b,
         size_t group_size) {
        return b.file_number == prev.file_number &&
               group_size < BlobCacheWarmer::kMaxGroup;
      });
  const auto spans = HybridTableReader::GroupIntoReadSpans(&medium_);
  BlobCacheWarmer* warmer = table_->context().blob_warmer.get();
  FileSystem* fs = table_->context().fs.get();
  IOOptions io;
  // Where the file system reads asynchronously, every read of the window is
  // one batch from this thread. Asynchronous reads bypass RocksDB's rate
  // limiter, so a rate-limited scan takes the other way.
  if (AsyncReadBatch::Supported(fs) &&
      medium_read_options_.PrepareIO(table_->context().clock, &io).ok() &&
      io.rate_limiter_priority == Env::IO_TOTAL) {
    std::vector<std::pair<size_t, size_t>> unbatched;
    {
      AsyncReadBatch batch(fs);
      for (const auto& group : groups) {
        if (!warmer->AddGroupReads(&batch, fs, io, &blobs_[group.first],
                                   group.second - group.first)) {
          unbatched.push_back(group);
        }
      }
      table_->AddMediumReads(&batch, io, medium_, spans);
    }  // waits for the batch
    RunReadsInParallel(unbatched.size(), [&](size_t i) {
      warmer->WarmGroup(read_options_, &blobs_[unbatched[i].first],
                        unbatched[i].second - unbatched[i].first);
    });
    return;
  }
  // Otherwise one task of the I/O pool per blob file's group (MultiRead),
  // and one for all the medium spans (WarmMediumSpans).
  RunReadsInParallel(groups.size() + (spans.empty() ? 0 : 1), [&](size_t i) {
    if (i < groups.size()) {
      warmer->WarmGroup(read_options_, &blobs_[groups[i].first],
                        groups[i].second - groups[i].first);
    } else {
      table_->WarmMediumSpans(medium_read_options_, medium_, spans);
    }
  });
}

void ScanPrefetcher::Collect() {
  const SequenceNumber visible =
      read_options_.snapshot != nullptr
          ? read_options_.snapshot->GetSequenceNumber()
          : kMaxSequenceNumber;
  const bool want_medium = table_->context().block_cache != nullptr;
  blobs_.clear();
  medium_.clear();
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
    MediumPointer pointer;
    BlobIndex index;
    if (MayBeMediumPointer(value)) {
      if (want_medium && PeekMediumPointer(value, &pointer)) {
        medium_.push_back(pointer);
      }
    } else if (table_->context().blob_warmer != nullptr &&
               index.DecodeFrom(value).ok() && !index.IsInlined() &&
               index.file_number() != 0) {
      // (File number 0: RocksDB 11's blob in the SST itself, no blob file.)
      blobs_.push_back({parsed.user_key.ToString(), index.file_number(),
                        index.offset(), index.size(), index.compression()});
    }
  }
  warmed_end_ += n;
  if (n < window_) {
    active_ = false;  // the table or the range ended
  }
  window_ = std::min(window_ * 2, max_window_);
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
