// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "plugin/hybridkv/table/hybrid_table_reader.h"

#include <cstring>

#include "db/dbformat.h"
#include "db/merge_context.h"
#include "memory/arena.h"
#include "plugin/hybridkv/blob/async_read_batch.h"
#include "plugin/hybridkv/blob/db_secret.h"
#include "plugin/hybridkv/blob/medium_readahead.h"
#include "plugin/hybridkv/blob/medium_refs.h"
#include "plugin/hybridkv/table/hybrid_iterator.h"
#include "plugin/hybridkv/table/scan_prefetcher.h"
#include "rocksdb/merge_operator.h"
#include "table/get_context.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

// The probe's merge operator: the probe must stop at a merge operand. Without
// ShouldMerge, GetContext would keep collecting operands and, at an older
// BlobDB blob index, fetch the blob as the merge's base value through its
// blob fetcher, which the probe does not have. ShouldMerge makes it merge at
// the first operand, and the merge fails (FullMergeV2 is not implemented):
// the probe ends in a failed state, and the lookup takes the iterator path,
// where the caller's GetContext merges with its own operator.
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
    : inner_(std::move(inner)), context_(std::move(context)) {
  auto props = inner_->GetTableProperties();
  bool known = false;
  // Unknown or undecodable references count as references: the slow path is
  // always correct.
  has_medium_refs_ = props == nullptr ||
                     !GetMediumRefs(*props, &refs_, &known).ok() || !known ||
                     !refs_.empty();
}

bool HybridTableReader::ScanPrefetchApplies(const ReadOptions& read_options,
                                            TableReaderCaller caller) const {
  // Prefetching only warms caches, so it needs one it may fill, and I/O.
  return caller == TableReaderCaller::kUserIterator &&
         context_.scan_prefetch_max > 0 && read_options.fill_cache &&
         read_options.read_tier != kBlockCacheTier &&
         (context_.blob_warmer != nullptr ||
          (has_medium_refs_ && context_.block_cache != nullptr));
}

InternalIterator* HybridTableReader::NewIterator(
    const ReadOptions& read_options, const SliceTransform* prefix_extractor,
    Arena* arena, bool skip_filters, TableReaderCaller caller,
    size_t compaction_readahead_size, bool allow_unprepared_value) {
  InternalIterator* inner = inner_->NewIterator(
      read_options, prefix_extractor, arena, skip_filters, caller,
      compaction_readahead_size, allow_unprepared_value);
  const bool prefetch = ScanPrefetchApplies(read_options, caller);
  if (!has_medium_refs_ && !prefetch) {
    return inner;
  }
  const auto mode = caller == TableReaderCaller::kCompaction
                        ? HybridIterator::Mode::kPointer
                        : HybridIterator::Mode::kResolve;
  // Point lookups read one record; scans read ahead, pointers being in key
  // order.
  const bool scan = caller != TableReaderCaller::kUserGet &&
                    caller != TableReaderCaller::kUserMultiGet;
  SipKey secret;
  if (mode == HybridIterator::Mode::kPointer) {
    Status s = GetSecret(&secret);
    if (!s.ok()) {
      if (arena != nullptr) {
        inner->~InternalIterator();
      } else {
        delete inner;
      }
      return NewErrorInternalIterator<Slice>(s, arena);
    }
  }
  std::unique_ptr<ScanPrefetcher> prefetcher;
  if (prefetch) {
    prefetcher.reset(
        new ScanPrefetcher(this, read_options, prefix_extractor, skip_filters));
  }
  // The caller owns an arena-placed iterator's memory and only runs its
  // destructor, so the wrapper lives in the same arena as the iterator it
  // wraps.
  if (arena != nullptr) {
    return new (arena->AllocateAligned(sizeof(HybridIterator)))
        HybridIterator(inner, /*inner_in_arena=*/true, mode, this,
                       MediumReadOptions(read_options), allow_unprepared_value,
                       secret, scan, std::move(prefetcher));
  }
  return new HybridIterator(inner, /*inner_in_arena=*/false, mode, this,
                            MediumReadOptions(read_options),
                            allow_unprepared_value, secret, scan,
                            std::move(prefetcher));
}

Status HybridTableReader::Get(const ReadOptions& read_options, const Slice& key,
                              GetContext* get_context,
                              const SliceTransform* prefix_extractor,
                              bool skip_filters) {
  if (!has_medium_refs_) {
    return inner_->Get(read_options, key, get_context, prefix_extractor,
                       skip_filters);
  }
  ProbeResult probe;
  Status s = Probe(read_options, key, get_context, prefix_extractor,
                   skip_filters, &probe);
  if (!s.ok() || probe.outcome == ProbeResult::kAnswered) {
    return s;
  }
  return FinishLookup(read_options, MediumReadOptions(read_options), key,
                      get_context, prefix_extractor, skip_filters, &probe);
}

// Each key is probed first; the medium values the probes found are read
// together, one request per span of nearby records and the spans in parallel
// (the scan prefetcher's grouping), into the block cache, where each key's
// resolve then finds its value. Each key then finishes as in Get.
void HybridTableReader::MultiGet(const ReadOptions& read_options,
                                 const MultiGetContext::Range* mget_range,
                                 const SliceTransform* prefix_extractor,
                                 bool skip_filters) {
  if (!has_medium_refs_) {
    inner_->MultiGet(read_options, mget_range, prefix_extractor, skip_filters);
    return;
  }
  struct Unfinished {
    KeyContext* key;
    ProbeResult probe;
  };
  std::vector<Unfinished> unfinished;
  std::vector<MediumPointer> pointers;
  for (auto iter = mget_range->begin(); iter != mget_range->end(); ++iter) {
    ProbeResult probe;
    *iter->s = Probe(read_options, iter->ikey, iter->get_context,
                     prefix_extractor, skip_filters, &probe);
    if (!iter->s->ok() || probe.outcome == ProbeResult::kAnswered) {
      continue;
    }
    if (probe.outcome == ProbeResult::kPointer) {
      pointers.push_back(probe.pointer);
    }
    unfinished.push_back({&*iter, probe});
  }
  const MediumReadOptions medium_options(read_options);
  if (pointers.size() > 1) {
    WarmMediumSpans(medium_options, pointers, GroupIntoReadSpans(&pointers));
  }
  for (Unfinished& u : unfinished) {
    *u.key->s = FinishLookup(read_options, medium_options, u.key->ikey,
                             u.key->get_context, prefix_extractor, skip_filters,
                             &u.probe);
  }
}

// Probes with the inner table's own Get, bloom filter included, and a private
// GetContext that stops at the newest entry of the key (at or below the
// lookup sequence) and reports its sequence number and whether it is a blob
// index. The probe ignores range tombstones and read callbacks, so it sees
// at least the entries the caller would:
// - nothing: the answer is complete (most lookups of upper-level tables);
// - a medium pointer: kPointer; FinishLookup hands the caller's GetContext
//   the value it stands for, exactly as the iterator below would; one lookup;
// - a blob index of BlobDB's own (the large class): handed over as it is;
// - anything else, or a caller that wants an older entry (its read callback
//   rejected this one): kIterator, for the iterator below, which replays
//   every entry.
Status HybridTableReader::Probe(const ReadOptions& read_options,
                                const Slice& key, GetContext* get_context,
                                const SliceTransform* prefix_extractor,
                                bool skip_filters, ProbeResult* result) {
  result->outcome = ProbeResult::kAnswered;
  PinnableSlice probe_value;
  MergeContext probe_merge_context;
  SequenceNumber no_tombstone = 0;
  SequenceNumber found_seq = kMaxSequenceNumber;
  bool is_blob_index = false;
  static const StopAtMergeOperator kStopAtMerge;
  GetContext probe(context_.user_comparator, &kStopAtMerge,
                   /*logger=*/nullptr,
                   /*statistics=*/nullptr, GetContext::kNotFound,
                   ExtractUserKey(key), &probe_value, /*columns=*/nullptr,
                   /*value_found=*/nullptr, &probe_merge_context,
                   /*do_merge=*/true, &no_tombstone,
                   /*clock=*/nullptr, &found_seq,
                   /*_pinned_iters_mgr=*/nullptr, /*callback=*/nullptr,
                   &is_blob_index);
  Status s =
      inner_->Get(read_options, key, &probe, prefix_extractor, skip_filters);
  // The probe's block cache hits and misses are the caller's: Version::Get
  // reports them to the DB's statistics from the caller's GetContext.
  AddGetContextStats(probe.get_context_stats_,
                     &get_context->get_context_stats_);
  if (s.subcode() == Status::SubCode::kMergeOperatorFailed) {
    // The probe stopped at a merge operand, as StopAtMergeOperator makes it
    // (RocksDB 11 reports that as the Get's status; 9.x only in the state).
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
  if (probe.State() != GetContext::kFound || !is_blob_index ||
      context_.timestamp_size != 0) {
    result->outcome = ProbeResult::kIterator;
    return Status::OK();
  }
  result->seq = found_seq;
  if (MayBeMediumPointer(probe_value) &&
      PeekMediumPointer(probe_value, &result->pointer)) {
    result->outcome = ProbeResult::kPointer;
    return Status::OK();
  }
  return Save(key, found_seq, kTypeBlobIndex, probe_value, get_context, result);
}

Status HybridTableReader::FinishLookup(const ReadOptions& read_options,
                                       const MediumReadOptions& medium_options,
                                       const Slice& key,
                                       GetContext* get_context,
                                       const SliceTransform* prefix_extractor,
                                       bool skip_filters, ProbeResult* probe) {
  if (probe->outcome == ProbeResult::kPointer) {
    std::string value;
    Status s = ResolvePointer(medium_options, probe->pointer,
                              ExtractUserKey(key), &value);
    if (!s.ok()) {
      if (medium_options.block_cache_only() && s.IsIncomplete()) {
        get_context->MarkKeyMayExist();
      }
      return s;
    }
    probe->outcome = ProbeResult::kAnswered;
    s = Save(key, probe->seq, kTypeValue, value, get_context, probe);
    if (!s.ok()) {
      return s;
    }
  }
  if (probe->outcome == ProbeResult::kIterator) {
    return GetByIterator(read_options, key, get_context, prefix_extractor,
                         skip_filters);
  }
  return Status::OK();
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

// Drives the caller's GetContext from an iterator, one SaveValue per entry of
// the user key, with the exact parsed key and the resolved value: merges,
// snapshots, read callbacks and range tombstones are all handled by the
// GetContext itself, as for any table.
Status HybridTableReader::GetByIterator(const ReadOptions& read_options,
                                        const Slice& key,
                                        GetContext* get_context,
                                        const SliceTransform* prefix_extractor,
                                        bool skip_filters) {
  ReadOptions ro = read_options;
  ro.iterate_lower_bound = nullptr;
  ro.iterate_upper_bound = nullptr;
  ro.prefix_same_as_start = false;
  // A seek to the key itself: its prefix, when it has one, is the right
  // mode (and the only one some formats, such as PlainTable, implement).
  const Slice lookup_user_key = ExtractUserKey(key);
  ro.total_order_seek = prefix_extractor == nullptr ||
                        !prefix_extractor->InDomain(lookup_user_key);
  std::unique_ptr<InternalIterator> it(
      NewIterator(ro, prefix_extractor, /*arena=*/nullptr, skip_filters,
                  TableReaderCaller::kUserGet));
  for (it->Seek(key); it->Valid(); it->Next()) {
    ParsedInternalKey parsed;
    Status s = ParseInternalKey(it->key(), &parsed, /*log_err_key=*/false);
    if (!s.ok()) {
      return s;
    }
    if (!context_.user_comparator->EqualWithoutTimestamp(parsed.user_key,
                                                         lookup_user_key)) {
      break;
    }
    bool matched = false;
    Status read_status;
    // No pinner: the value may live in a buffer the next step overwrites, so
    // GetContext copies it.
    const bool more =
        get_context->SaveValue(parsed, it->value(), &matched, &read_status,
                               /*value_pinner=*/nullptr);
    if (!read_status.ok()) {
      return read_status;
    }
    if (!more) {
      break;
    }
  }
  Status s = it->status();
  if (read_options.read_tier == kBlockCacheTier && s.IsIncomplete()) {
    get_context->MarkKeyMayExist();
  }
  return s;
}

Status HybridTableReader::VerifyChecksum(
    const ReadOptions& read_options,
    TableReaderCaller caller HYBRIDKV_VERIFY_CHECKSUM_EXTRA_PARAMS) {
  Status s = inner_->VerifyChecksum(read_options,
                                    caller HYBRIDKV_VERIFY_CHECKSUM_EXTRA_ARGS);
  if (!s.ok() || !has_medium_refs_ ||
      HYBRIDKV_VERIFY_CHECKSUM_META_BLOCKS_ONLY) {
    return s;
  }
  // Every record this table points to, read through its pointers: each read
  // checks the record's crc, which covers its key. Not the medium files whole:
  // the runs that no SST points to any more may have been freed (hole
  // punching).
  std::unique_ptr<InternalIterator> it(
      NewIterator(read_options, /*prefix_extractor=*/nullptr,
                  /*arena=*/nullptr, /*skip_filters=*/true,
                  TableReaderCaller::kUserVerifyChecksum));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    if (!it->PrepareValue()) break;
  }
  return it->status();
}

Status HybridTableReader::GetMediumFile(
    const IOOptions& io, uint64_t number,
    std::shared_ptr<MediumFileReader>* file) {
  auto held = held_.find(number);
  if (held != held_.end()) {
    *file = held->second;
    return Status::OK();
  }
  // A table whose references are not known (not built by HybridKV).
  return context_.state->medium_files.Get(
      context_.fs, context_.dirs, context_.file_options, io, number, file);
}

MediumBlockCache HybridTableReader::BlocksOf(uint64_t file_number) const {
  return MediumBlockCache(
      context_.block_cache.get(),
      MediumBlockCache::FileKey(context_.db_id, context_.dirs.front(),
                                file_number),
      file_number);
}

bool HybridTableReader::UncachedSpan(const IOOptions& io,
                                     const MediumBlockCache& blocks,
                                     const MediumPointer* pointers, size_t n,
                                     std::shared_ptr<MediumFileReader>* file,
                                     uint64_t* begin, uint64_t* end) {
  std::string scratch;
  Slice bytes;
  size_t first = 0;
  while (first < n &&
         blocks.Lookup(pointers[first].handle.offset,
                       pointers[first].handle.size, &scratch, &bytes)) {
    first++;
  }
  if (first == n) {
    return false;
  }
  const MediumRecordHandle& last = pointers[n - 1].handle;
  *begin = pointers[first].handle.offset;
  *end = last.offset + last.size;
  return *end >= *begin &&
         GetMediumFile(io, pointers[first].file_number, file).ok() &&
         (*file)->CheckHandle(pointers[first].handle).ok() &&
         (*file)->CheckHandle(last).ok();
}

void HybridTableReader::WarmMediumSpans(
    const MediumReadOptions& options,
    const std::vector<MediumPointer>& pointers,
    const std::vector<std::pair<size_t, size_t>>& spans) {
  IOOptions io;
  if (spans.empty() || options.block_cache_only() || !options.fill_cache() ||
      !options.PrepareIO(context_.clock, &io).ok()) {
    return;
  }
  AsyncReadBatch batch(context_.fs.get(), io);
  AddMediumReads(&batch, io, pointers, spans);
}

void HybridTableReader::AddMediumReads(
    AsyncReadBatch* batch, const IOOptions& io,
    const std::vector<MediumPointer>& pointers,
    const std::vector<std::pair<size_t, size_t>>& spans) {
  if (context_.block_cache == nullptr) {
    return;  // nowhere to keep what would be read
  }
  for (const auto& span : spans) {
    const MediumBlockCache blocks = BlocksOf(pointers[span.first].file_number);
    std::shared_ptr<MediumFileReader> file;
    uint64_t begin = 0;
    uint64_t end = 0;
    if (UncachedSpan(io, blocks, &pointers[span.first],
                     span.second - span.first, &file, &begin, &end)) {
      blocks.ReadAsync(batch, file, begin, end - begin,
                       &context_.state->counters.resolve_bytes_read);
    }
  }
}

std::vector<std::pair<size_t, size_t>> HybridTableReader::GroupIntoReadSpans(
    std::vector<MediumPointer>* pointers) {
  // A gap of up to kMediumRunMergeGap costs less to read through than a
  // second request.
  return SortAndGroup(
      pointers,
      [](const MediumPointer& p) {
        return std::make_pair(p.file_number, p.handle.offset);
      },
      [](const MediumPointer& prev, const MediumPointer& p, size_t) {
        const MediumRecordHandle& h = prev.handle;
        return p.file_number == prev.file_number &&
               p.handle.offset <= h.offset + h.size + kMediumRunMergeGap;
      });
}

Status HybridTableReader::ResolvePointer(const MediumReadOptions& options,
                                         const MediumPointer& pointer,
                                         const Slice& user_key,
                                         std::string* value) {
  const MediumRecordHandle& handle = pointer.handle;
  const MediumBlockCache blocks = BlocksOf(pointer.file_number);
  std::string scratch;
  Slice record;
  uint64_t bytes_read = 0;
  std::shared_ptr<MediumFileReader> file;
  if (!blocks.Lookup(handle.offset, handle.size, &scratch, &record)) {
    if (options.block_cache_only()) {
      return Status::Incomplete(
          "HybridKV: medium value not in the block cache, and the read allows "
          "no I/O (read_tier=kBlockCacheTier)");
    }
    IOOptions io;
    Status s = options.PrepareIO(context_.clock, &io);
    if (s.ok()) {
      s = GetMediumFile(io, pointer.file_number, &file);
    }
    if (s.ok()) {
      s = file->CheckHandle(handle);
    }
    if (s.ok()) {
      s = blocks.Read(io, *file, handle.offset, handle.size,
                      options.fill_cache(), &scratch, &record, &bytes_read);
    }
    if (!s.ok()) {
      return s;
    }
  }
  Slice v;
  if (!DecodeMediumRecord(record, user_key, &v).ok()) {
    // Rare: open the file (if the bytes came from the cache) for an error
    // that names it.
    IOOptions io;
    Status s = file != nullptr ? Status::OK()
                               : GetMediumFile(io, pointer.file_number, &file);
    return s.ok() ? file->DecodeRecord(handle.offset, record, user_key, value)
                  : s;
  }
  value->assign(v.data(), v.size());
  RecordResolved(value->size(), bytes_read);
  return Status::OK();
}

void HybridTableReader::RecordResolved(uint64_t value_bytes,
                                       uint64_t bytes_read) {
  DbCounters& counters = context_.state->counters;
  counters.medium_values_resolved++;
  counters.medium_bytes_resolved += value_bytes;
  counters.resolve_bytes_read += bytes_read;
}

namespace {

bool HoldsAnyMediumFile(const std::shared_ptr<FileSystem>& fs,
                        const std::string& dir) {
  std::vector<std::string> children;
  if (!fs->GetChildren(dir, IOOptions(), &children, nullptr).ok()) return true;
  for (const std::string& child : children) {
    if (MediumNumberOf(child) != 0) return true;
  }
  return false;
}

}  // namespace

HybridTableReader::~HybridTableReader() {
  for (const auto& [number, file] : held_) {
    context_.state->medium_files.Release(number, context_.session_id);
  }
}

Status HybridTableReader::HoldMediumFiles(const std::string& sst_path) {
  MediumFileCache& cache = context_.state->medium_files;
  for (const auto& [number, ref] : refs_) {
    std::shared_ptr<MediumFileReader> file;
    Status s = cache.Get(context_.fs, context_.dirs, context_.file_options,
                         IOOptions(), number, &file);
    if (s.IsNotSupported()) {
      return Status::NotSupported(
          "HybridKV: the DB's file system cannot read medium file " +
          std::to_string(number) + ".medium (" + s.ToString() +
          "). DB::OpenAsFollower's OnDemandFileSystem serves only table "
          "files, so a follower cannot read a HybridKV DB's medium values; "
          "follow it with a secondary instance (DB::OpenAsSecondary) instead.");
    }
    if (!s.ok()) {
      if (!HoldsAnyMediumFile(context_.fs, context_.dirs.front())) {
        // No medium file at all: a copy made without HybridKV's files.
        return MissingMediumFile(context_.fs, context_.dirs.front(), number,
                                 "SST " + sst_path);
      }
      // One file damaged or lost: the table opens, and reads of the values
      // stored in that file fail, naming it.
      continue;
    }
    cache.Hold(number, context_.session_id);
    held_.emplace(number, std::move(file));
  }
  // A table this DB session wrote (a flush's or compaction's output) was not
  // deleted by another instance: no stat on the write path.
  const auto props = inner_->GetTableProperties();
  const bool written_here =
      props != nullptr && props->db_session_id == context_.session_id;
  if (!held_.empty() && !written_here &&
      context_.fs->FileExists(sst_path, IOOptions(), nullptr).IsNotFound()) {
    return Status::PathNotFound(
        "HybridKV: SST " + sst_path +
        " was deleted while its table was being opened (on a secondary "
        "instance: by the primary, since the last TryCatchUpWithPrimary; catch "
        "up and retry)");
  }
  return Status::OK();
}

Status HybridTableReader::GetSecret(SipKey* secret) {
  Status s = GetDbSecret(context_.fs, context_.dirs.front(), context_.db_id,
                         /*create=*/false, secret);
  if (s.IsNotFound()) {
    return Status::Corruption(
        "HybridKV: " + context_.dirs.front() + "/" + kSecretFileName +
        " is missing, but SSTs hold medium pointers, which cannot be told "
        "from values without it. This DB was probably copied by a tool that "
        "does not know HybridKV's files: restore it with "
        "hybridkv::RestoreDBFromBackup from a backup made by "
        "hybridkv::CreateNewBackup, or copy it with Checkpoint on the handle "
        "of hybridkv::Open.");
  }
  return s;
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
