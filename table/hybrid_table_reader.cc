// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "plugin/hybridkv/table/hybrid_table_reader.h"

#include <cstring>

#include "db/dbformat.h"
#include "db/merge_context.h"
#include "memory/arena.h"
#include "plugin/hybridkv/blob/medium/medium_readahead.h"
#include "plugin/hybridkv/table/hybrid_iterator.h"
#include "plugin/hybridkv/table/scan_prefetcher.h"
#include "rocksdb/merge_operator.h"
#include "table/get_context.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

// Stops the probe at a merge operand (its BlobDB base needs a blob fetcher the
// probe lacks) by failing the merge, so the iterator path's GetContext merges.
class StopAtMergeOperator : public MergeOperator {
 public:
  const char* Name() const override { return "HybridKVProbeStopAtMerge"; }
  bool ShouldMerge(const std::vector<Slice>& /*operands*/) const override {
    return true;
  }
};

void AddGetContextStats(const GetContextStats& from, GetContextStats* to) {
  // Every member is a uint64_t counter (9.10 through 11.8).
  constexpr size_t kCounters = sizeof(GetContextStats) / sizeof(uint64_t);
  static_assert(kCounters * sizeof(uint64_t) == sizeof(GetContextStats),
                "GetContextStats holds more than uint64_t counters");
  uint64_t sum[kCounters];
  uint64_t add[kCounters];
  memcpy(sum, to, sizeof(sum));
  memcpy(add, &from, sizeof(add));
  for (size_t i = 0; i < kCounters; i++) {
    sum[i] += add[i];
  }
  memcpy(to, sum, sizeof(sum));
}

}  // namespace

HybridTableReader::HybridTableReader(std::unique_ptr<TableReader> inner,
                                     MediumReadContext context)
    : inner_(std::move(inner)),
      values_(std::move(context), inner_->GetTableProperties().get()) {}

HybridTableReader::~HybridTableReader() = default;

bool HybridTableReader::ScanPrefetchApplies(const ReadOptions& read_options,
                                            TableReaderCaller caller) const {
  // Prefetching only warms caches, so it needs one it may fill, and I/O.
  return caller == TableReaderCaller::kUserIterator &&
         values_.context().scan_prefetch_max > 0 && read_options.fill_cache &&
         read_options.read_tier != kBlockCacheTier &&
         values_.has_medium_refs() && values_.context().block_cache != nullptr;
}

InternalIterator* HybridTableReader::NewIterator(
    const ReadOptions& read_options, const SliceTransform* prefix_extractor,
    Arena* arena, bool skip_filters, TableReaderCaller caller,
    size_t compaction_readahead_size, bool allow_unprepared_value) {
  InternalIterator* inner = inner_->NewIterator(
      read_options, prefix_extractor, arena, skip_filters, caller,
      compaction_readahead_size, allow_unprepared_value);
  const bool prefetch = ScanPrefetchApplies(read_options, caller);
  if (!values_.has_medium_refs() && !prefetch) {
    return inner;
  }
  const auto mode = caller == TableReaderCaller::kCompaction
                        ? HybridIterator::Mode::kPointer
                        : HybridIterator::Mode::kResolve;
  // Scans read ahead: pointers are in key order.
  const bool scan = caller != TableReaderCaller::kUserGet &&
                    caller != TableReaderCaller::kUserMultiGet;
  std::unique_ptr<ScanPrefetcher> prefetcher;
  if (prefetch) {
    prefetcher.reset(new ScanPrefetcher(&values_, inner_.get(),
                                        &scan_length_hint_, read_options,
                                        prefix_extractor, skip_filters));
  }
  // Arena iterators are destroyed, never freed: the wrapper lives there too.
  if (arena != nullptr) {
    return new (arena->AllocateAligned(sizeof(HybridIterator)))
        HybridIterator(inner, /*inner_in_arena=*/true, mode, &values_,
                       MediumReadOptions(read_options), allow_unprepared_value,
                       scan, std::move(prefetcher));
  }
  return new HybridIterator(inner, /*inner_in_arena=*/false, mode, &values_,
                            MediumReadOptions(read_options),
                            allow_unprepared_value, scan,
                            std::move(prefetcher));
}

Status HybridTableReader::Get(const ReadOptions& read_options, const Slice& key,
                              GetContext* get_context,
                              const SliceTransform* prefix_extractor,
                              bool skip_filters) {
  if (!values_.has_medium_refs()) {
    return inner_->Get(read_options, key, get_context, prefix_extractor,
                       skip_filters);
  }
  ProbeResult probe;
  Status s = Probe(read_options, key, get_context, prefix_extractor,
                   skip_filters, &probe);
  if (!s.ok() || probe.outcome == ProbeResult::kAnswered) {
    return s;
  }
  if (probe.outcome == ProbeResult::kPointer) {
    // Skip the read if a read callback hides it or a tombstone covers it.
    const SequenceNumber* tombstone = get_context->max_covering_tombstone_seq();
    if (!get_context->CheckCallback(probe.seq)) {
      probe.outcome = ProbeResult::kIterator;
    } else if (tombstone != nullptr && *tombstone > probe.seq) {
      return Save(key, probe.seq, kTypeDeletion, Slice(), get_context, &probe);
    }
  }
  if (probe.outcome == ProbeResult::kPointer) {
    const MediumReadOptions medium_options(read_options);
    std::string value;
    s = values_.ResolvePointer(medium_options, probe.pointer,
                               ExtractUserKey(key), &value);
    if (!s.ok()) {
      if (medium_options.block_cache_only() && s.IsIncomplete()) {
        get_context->MarkKeyMayExist();
      }
      return s;
    }
    probe.outcome = ProbeResult::kAnswered;
    s = Save(key, probe.seq, kTypeValue, value, get_context, &probe);
    if (!s.ok()) {
      return s;
    }
  }
  if (probe.outcome == ProbeResult::kIterator) {
    return GetByIterator(read_options, key, get_context, prefix_extractor,
                         skip_filters);
  }
  return Status::OK();
}

void HybridTableReader::MultiGet(const ReadOptions& read_options,
                                 const MultiGetContext::Range* mget_range,
                                 const SliceTransform* prefix_extractor,
                                 bool skip_filters) {
  if (values_.has_medium_refs()) {  // key by key, through Get
    TableReader::MultiGet(read_options, mget_range, prefix_extractor,
                          skip_filters);
  } else {
    inner_->MultiGet(read_options, mget_range, prefix_extractor, skip_filters);
  }
}

// Probes with the inner Get (bloom filter included) and a private GetContext
// stopping at the newest entry at or below the lookup seq; ignoring range
// tombstones and read callbacks, it sees at least what the caller would. A
// medium pointer is kPointer (one read); merges, entities with non-default or
// blob columns, and entries the read callback rejects are kIterator; nothing,
// a value, a deletion or a blob index is handed over as is.
Status HybridTableReader::Probe(const ReadOptions& read_options,
                                const Slice& key, GetContext* get_context,
                                const SliceTransform* prefix_extractor,
                                bool skip_filters, ProbeResult* result) {
  result->outcome = ProbeResult::kAnswered;
  PinnableWideColumns probe_columns;
  MergeContext probe_merge_context;
  SequenceNumber no_tombstone = 0;
  SequenceNumber found_seq = kMaxSequenceNumber;
  bool is_blob_index = false;
  static const StopAtMergeOperator kStopAtMerge;
  GetContext probe(values_.context().user_comparator, &kStopAtMerge,
                   /*logger=*/nullptr,
                   /*statistics=*/nullptr, GetContext::kNotFound,
                   ExtractUserKey(key), /*value=*/nullptr, &probe_columns,
                   /*value_found=*/nullptr, &probe_merge_context,
                   /*do_merge=*/true, &no_tombstone,
                   /*clock=*/nullptr, &found_seq,
                   /*_pinned_iters_mgr=*/nullptr, /*callback=*/nullptr,
                   &is_blob_index);
  Status s =
      inner_->Get(read_options, key, &probe, prefix_extractor, skip_filters);
  // Version::Get reports block cache stats from the caller's GetContext.
  AddGetContextStats(probe.get_context_stats_,
                     &get_context->get_context_stats_);
  // Stopped at a merge operand (RocksDB 11; 9.x leaves kMerge) or an entity
  // with blob columns (11, no blob fetcher): the iterator path resolves them.
  if (s.subcode() == Status::SubCode::kMergeOperatorFailed ||
      s.IsCorruption()) {
    result->outcome = ProbeResult::kIterator;
    return Status::OK();
  }
  if (!s.ok()) {
    if (read_options.read_tier == kBlockCacheTier && s.IsIncomplete()) {
      get_context->MarkKeyMayExist();
    }
    return s;
  }
  if (probe.State() == GetContext::kNotFound) {
    return s;
  }
  if (values_.context().timestamp_size != 0) {
    result->outcome = ProbeResult::kIterator;
    return Status::OK();
  }
  result->seq = found_seq;
  if (probe.State() == GetContext::kDeleted) {
    return Save(key, found_seq, kTypeDeletion, Slice(), get_context, result);
  }
  const WideColumns& columns = probe_columns.columns();
  if (probe.State() != GetContext::kFound || columns.size() != 1 ||
      columns[0].name() != kDefaultWideColumnName) {
    result->outcome = ProbeResult::kIterator;
    return Status::OK();
  }
  const Slice value = columns[0].value();
  if (!is_blob_index) {
    // A plain value and a default-column-only entity differ only as a merge
    // base (the operator is told which); only the iterator tells them apart.
    if (get_context->State() == GetContext::kMerge) {
      result->outcome = ProbeResult::kIterator;
      return Status::OK();
    }
    return Save(key, found_seq, kTypeValue, value, get_context, result);
  }
  if (MayBeMediumPointer(value) && PeekMediumPointer(value, &result->pointer)) {
    result->outcome = ProbeResult::kPointer;
    return Status::OK();
  }
  return Save(key, found_seq, kTypeBlobIndex, value, get_context, result);
}

Status HybridTableReader::Save(const Slice& key, SequenceNumber seq,
                               ValueType type, const Slice& value,
                               GetContext* get_context, ProbeResult* result) {
  bool matched = false;
  Status read_status;
  const ParsedInternalKey found(ExtractUserKey(key), seq, type);
  // The caller's read callback may reject this entry and want an older one.
  if (get_context->SaveValue(found, value, &matched, &read_status,
                             /*value_pinner=*/nullptr)) {
    result->outcome = ProbeResult::kIterator;
  }
  return read_status;
}

// Feeds the caller's GetContext one SaveValue per entry of the user key, so it
// handles merges, snapshots, read callbacks and range tombstones as for any
// table. All entries it takes are resolved first, so a replay log (the row
// cache's, kept whatever the status by TableCache::MultiGet) is never partial.
Status HybridTableReader::GetByIterator(const ReadOptions& read_options,
                                        const Slice& key,
                                        GetContext* get_context,
                                        const SliceTransform* prefix_extractor,
                                        bool skip_filters) {
  ReadOptions ro = read_options;
  ro.iterate_lower_bound = nullptr;
  ro.iterate_upper_bound = nullptr;
  ro.prefix_same_as_start = false;
  // One Seek: an async first pass would leave it awaiting a second Seek.
  ro.async_io = false;
  // Seeking the key itself, its prefix (if any) is the right mode.
  const Slice lookup_user_key = ExtractUserKey(key);
  ro.total_order_seek = prefix_extractor == nullptr ||
                        !prefix_extractor->InDomain(lookup_user_key);
  std::unique_ptr<InternalIterator> it(
      NewIterator(ro, prefix_extractor, /*arena=*/nullptr, skip_filters,
                  TableReaderCaller::kUserGet, /*compaction_readahead_size=*/0,
                  /*allow_unprepared_value=*/true));
  struct Entry {
    std::string internal_key;
    std::string value;
  };
  std::vector<Entry> entries;
  const SequenceNumber* tombstone = get_context->max_covering_tombstone_seq();
  for (it->Seek(key); it->Valid(); it->Next()) {
    ParsedInternalKey parsed;
    Status s = ParseInternalKey(it->key(), &parsed, /*log_err_key=*/false);
    if (!s.ok()) {
      return s;
    }
    if (!values_.context().user_comparator->EqualWithoutTimestamp(
            parsed.user_key, lookup_user_key)) {
      break;
    }
    if (!get_context->CheckCallback(parsed.sequence)) {
      continue;
    }
    if (!it->PrepareValue()) {
      break;  // its status says why
    }
    entries.push_back({it->key().ToString(), it->value().ToString()});
    if (parsed.type != kTypeMerge ||
        (tombstone != nullptr && *tombstone > parsed.sequence)) {
      break;
    }
  }
  Status s = it->status();
  if (!s.ok()) {
    if (read_options.read_tier == kBlockCacheTier && s.IsIncomplete()) {
      get_context->MarkKeyMayExist();
    }
    return s;
  }
  for (const Entry& entry : entries) {
    ParsedInternalKey parsed;
    s = ParseInternalKey(entry.internal_key, &parsed, /*log_err_key=*/false);
    bool matched = false;
    Status read_status;
    // No pinner: GetContext copies the value.
    const bool more = s.ok() && get_context->SaveValue(
                                    parsed, entry.value, &matched, &read_status,
                                    /*value_pinner=*/nullptr);
    if (!s.ok() || !read_status.ok()) {
      return s.ok() ? read_status : s;
    }
    if (!more) {
      break;
    }
  }
  return Status::OK();
}

Status HybridTableReader::VerifyChecksum(
    const ReadOptions& read_options,
    TableReaderCaller caller HYBRIDKV_VERIFY_CHECKSUM_EXTRA_PARAMS) {
  Status s = inner_->VerifyChecksum(read_options,
                                    caller HYBRIDKV_VERIFY_CHECKSUM_EXTRA_ARGS);
  if (!s.ok() || !values_.has_medium_refs() ||
      HYBRIDKV_VERIFY_CHECKSUM_META_BLOCKS_ONLY) {
    return s;
  }
  // Via the pointers (crcs cover the key); dead runs of files may be punched.
  std::unique_ptr<InternalIterator> it(
      NewIterator(read_options, /*prefix_extractor=*/nullptr,
                  /*arena=*/nullptr, /*skip_filters=*/true,
                  TableReaderCaller::kUserVerifyChecksum));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    if (!it->PrepareValue()) break;
  }
  return it->status();
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
