// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "plugin/hybridkv/table/hybrid_table_builder.h"

#include "db/dbformat.h"
#include "logging/logging.h"
#include "options/cf_options.h"
#include "plugin/hybridkv/blob/format/medium_pointer.h"
#include "plugin/hybridkv/blob/io/rocksdb_compat.h"
#include "plugin/hybridkv/blob/lifecycle/db_secret.h"
#include "plugin/hybridkv/blob/lifecycle/medium_lifecycle.h"
#include "plugin/hybridkv/table/compaction_pointer.h"
#include "plugin/hybridkv/table/compaction_scope.h"
#include "plugin/hybridkv/table/hybridkv_partitioner.h"
#include "plugin/hybridkv/table/medium_values.h"
#include "table/block_based/block_based_table_factory.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

HybridTableBuilder::HybridTableBuilder(
    const HybridTableOptions& options,
    const BlockBasedTableFactory& inner_factory,
    const TableBuilderOptions& tbo, WritableFileWriter* file)
    : options_(options),
      // Flushes write SSTs, and so medium files, in the first path.
      home_(tbo.ioptions.cf_paths.empty() ? DirName(file->file_name())
                                          : tbo.ioptions.cf_paths.front().path),
      file_number_(tbo.cur_file_num != 0 ? tbo.cur_file_num
                                         : SstNumberOf(file->file_name())),
      timestamp_size_(
          tbo.internal_comparator.user_comparator()->timestamp_size()),
      fs_(tbo.ioptions.fs),
      logger_(tbo.ioptions.logger) {
  status_ = DbStateForPaths(tbo.ioptions.cf_paths, home_, &state_);
  if (state_ == nullptr) state_ = DbStateFor(home_);  // refused: status_
  if (tbo.internal_tbl_prop_coll_factories != nullptr) {
    for (const auto& f : *tbo.internal_tbl_prop_coll_factories) {
      collector_factories_.emplace_back(
          new ForwardingCollectorFactory(f.get()));
    }
  }
  collector_factories_.emplace_back(
      new MediumRefsCollectorFactory(refs_.refs()));
  // Not virtual: the factory may be a HybridTable, a BlockBasedTable itself.
  inner_.reset(inner_factory.BlockBasedTableFactory::NewTableBuilder(
      CopyWithCollectors(tbo, &collector_factories_), file));

  medium_sync_.use_fsync = tbo.ioptions.use_fsync;
  // A flush job itself fsyncs the SST's directory, holding the medium file.
  medium_sync_.sync_directory = tbo.reason != TableFileCreationReason::kFlush;
  // Charge medium I/O to the DB's rate limiter at the job's priority.
  medium_file_options_.rate_limiter = tbo.ioptions.rate_limiter.get();
  medium_file_options_.use_direct_writes =
      tbo.ioptions.use_direct_io_for_flush_and_compaction;
  medium_file_options_.use_direct_reads =
      tbo.ioptions.use_direct_io_for_flush_and_compaction;
  mode_ = ChooseMode(tbo);
  if (mode_ == Mode::kPassThrough) {
    return;  // SstFileWriter and friends: never extract, never resolve
  }
  // Read only here: SstFileWriter (returned above) passes short-lived options.
  write_io_.io_activity = tbo.write_options.io_activity;
  write_io_.rate_limiter_priority = tbo.write_options.rate_limiter_priority;
  merge_io_.io_activity = tbo.read_options.io_activity;
  merge_io_.rate_limiter_priority = tbo.read_options.rate_limiter_priority;
  // Remote compaction workers write outside cf_paths: the primary counts them.
  if (tbo.ioptions.cf_paths.empty() ||
      IsOneOfPaths(DirName(file->file_name()), tbo.ioptions.cf_paths)) {
    tracker_ = &state_->tracker();
    tracker_->SetFileSystem(fs_, tbo.ioptions.sst_file_manager);
    tracker_->BuildStarted(file_number_, tbo.db_session_id);
  }
  // Flushes MAC their pointers with the DB secret, created on first use.
  if (mode_ == Mode::kExtract && status_.ok()) {
    status_ = GetDbSecret(fs_, home_, tbo.db_id, /*create=*/true, &secret_);
  }
  if (mode_ != Mode::kExtract && status_.ok()) {
    status_ = CheckBlobThreshold(tbo);
  }
  if (mode_ == Mode::kInline) {
    OpenMergeReader(tbo);
  }
}

// Compactions move values of min_blob_size bytes or more into blob files
// before the output table sees them, losing a compaction pointer's value. If
// so, inputs hand values (the scope decides), or if one already handed a
// pointer (SetOptions lowered min_blob_size meanwhile) it is refused.
Status HybridTableBuilder::CheckBlobThreshold(const TableBuilderOptions& tbo) {
  const MutableCFOptions& o = tbo.moptions;
  if (!o.enable_blob_files || o.min_blob_size > kMaxCompactionPointerSize ||
      tbo.level_at_creation < o.blob_file_starting_level) {
    return Status::OK();
  }
  if (scope_ == nullptr) {
    scope_ = CompactionScope::Enter(MediumRefs());
  }
  if (scope_->HandOffValues(true)) {
    return Status::OK();
  }
  return Status::InvalidArgument(
      "HybridKV: a compaction of column family '" + tbo.column_family_name +
      "' was picked with min_blob_size=" + std::to_string(o.min_blob_size) +
      ", at which BlobDB would take the medium pointers its inputs had "
      "already handed it, and is refused before writing anything "
      "(SetOptions changed min_blob_size while it was being picked). Reopen "
      "the DB; compactions then follow the current min_blob_size.");
}

HybridTableBuilder::Mode HybridTableBuilder::ChooseMode(
    const TableBuilderOptions& tbo) {
  switch (tbo.reason) {
    case TableFileCreationReason::kFlush:
    case TableFileCreationReason::kRecovery:
      return Mode::kExtract;
    case TableFileCreationReason::kCompaction:
      scope_ = CompactionScope::Current();
      state_->counters.NoteLevel(tbo.column_family_id, tbo.level_at_creation);
      return tbo.level_at_creation >= ResolveMergeLevelNow(tbo)
                 ? Mode::kInline
                 : Mode::kKeepPointers;
    default:
      return Mode::kPassThrough;
  }
}

int HybridTableBuilder::ResolveMergeLevelNow(const TableBuilderOptions& tbo) {
  const uint32_t cf = tbo.column_family_id;
  const int base_level = state_->counters.BaseLevel(cf);
  // Last level: num_levels - 1 once anything left L0 under dynamic level
  // sizing (RocksDB 9's default), else the deepest seen; base level: leveled.
  const ImmutableOptions& io = tbo.ioptions;
  const bool leveled = io.compaction_style == kCompactionStyleLevel;
  const int level = ResolveMergeLevel(
      options_.merge_level,
      leveled && io.level_compaction_dynamic_level_bytes
          ? io.num_levels - 1
          : state_->counters.DeepestLevel(cf),
      leveled ? base_level : 0);
  // Trivial moves are vetoed from where the merge level is now (it may move).
  const SstPartitionerFactory* factory =
      tbo.ioptions.sst_partitioner_factory.get();
  const auto* partitioner =
      factory == nullptr ? nullptr
                         : factory->CheckedCast<HybridKVPartitionerFactory>();
  if (partitioner != nullptr && partitioner->SetMergeLevel(state_, cf, level)) {
    ROCKS_LOG_INFO(logger_,
                   "[HybridKV] column family %s: medium values go back inline "
                   "at L%d and below (merge_level=%s, base level L%d)",
                   tbo.column_family_name.c_str(), level,
                   MergeLevelToString(options_.merge_level).c_str(),
                   base_level);
  }
  return level;
}

void HybridTableBuilder::OpenMergeReader(const TableBuilderOptions& tbo) {
  // Reads grow from 4 KiB to 1 MiB while sequential (merge-level compactions
  // need few records per file), following the inputs' runs, for all outputs.
  CompactionScope* scope = scope_.get();
  auto make = [&]() {
    return std::make_shared<MediumReadahead>(
        [fs = fs_, dirs = MediumFileDirs(home_, tbo.ioptions),
         fo = medium_file_options_, files = &state_->medium_files](
            const IOOptions& io, uint64_t number,
            std::shared_ptr<MediumFileReader>* out) {
          return files->Get(fs, dirs, fo, io, number, out);
        },
        4 << 10, 1 << 20, /*buffer_budget=*/32 << 20, scope);
  };
  merge_reader_ = scope != nullptr ? scope->MergeReader(make) : make();
  merge_bytes_read_before_ = merge_reader_->bytes_read();
  merge_reads_before_ = merge_reader_->reads_issued();
}

void HybridTableBuilder::Add(const Slice& key, const Slice& value) {
  if (!status_.ok()) {
    return;
  }
  const ValueType type = ExtractValueType(key);
  if (mode_ == Mode::kPassThrough || type != kTypeValue) {
    if (type == kTypeBlobIndex) {
      if (mode_ == Mode::kExtract) {
        large_values_++;  // BlobDB took it at flush, before us
      }
      // Already typed (not from our input iterators, which retype them).
      MediumPointer pointer;
      if (PeekMediumPointer(value, &pointer)) NoteReference(pointer);
    }
    inner_->Add(key, value);
    return;
  }
  const Slice user_key = ExtractUserKey(key);
  // MACs bind the user key without its timestamp (compaction_pointer.cc).
  const Slice mac_key(user_key.data(), user_key.size() - timestamp_size_);
  CompactionPointer pointer;
  switch (mode_) {
    case Mode::kExtract:
      switch (options_.Classify(user_key.size(), value.size())) {
        case ValueClass::kMedium:
          ExtractMedium(key, mac_key, value);
          return;
        case ValueClass::kSmall:
          small_values_++;
          small_bytes_ += value.size();
          break;
        case ValueClass::kLarge:
          large_values_++;
          break;
      }
      break;
    case Mode::kKeepPointers:
      if (IsCompactionPointer(value, &pointer)) {
        if (!status_.ok()) return;  // another DB's pointer
        kept_++;
        NoteReference(pointer.pointer);
        AddRetyped(key, kTypeBlobIndex, pointer.stored);
        return;
      }
      break;
    case Mode::kInline:
      if (IsCompactionPointer(value, &pointer)) {
        if (!status_.ok()) return;  // another DB's pointer
        status_ = merge_reader_->Read(merge_io_, pointer.pointer, mac_key,
                                      &value_buffer_);
        if (status_.ok()) {
          inlined_++;
          inlined_bytes_ += value_buffer_.size();
          inner_->Add(key, value_buffer_);
        }
        return;
      }
      break;
    case Mode::kPassThrough:
      break;
  }
  inner_->Add(key, value);
}

bool HybridTableBuilder::IsCompactionPointer(const Slice& value,
                                             CompactionPointer* pointer) {
  if (!DecodeCompactionPointer(value, pointer)) return false;
  // Only this DB's input tables reach its compactions.
  if (pointer->table->context().state != state_) {
    status_ = Status::Corruption(
        "HybridKV: a compaction of " + home_ +
        " was handed a medium pointer of another DB; nothing was written. "
        "Report this as a bug.");
  }
  return true;
}

void HybridTableBuilder::ExtractMedium(const Slice& key, const Slice& mac_key,
                                       const Slice& value) {
  if (medium_ == nullptr) {
    IOStatus s =
        MediumFileWriter::Create(fs_, MediumFileName(home_, file_number_),
                                 medium_file_options_, &medium_, write_io_);
    if (!s.ok()) {
      status_ = medium_io_status_ = s;
      return;
    }
  }
  MediumPointer pointer;
  pointer.file_number = file_number_;
  IOStatus s = medium_->Add(mac_key, value, &pointer.handle);
  if (!s.ok()) {
    status_ = medium_io_status_ = s;
    return;
  }
  NoteReference(pointer);
  value_buffer_.clear();
  EncodeMediumPointer(secret_, pointer, mac_key, &value_buffer_);
  AddRetyped(key, kTypeBlobIndex, value_buffer_);
}

void HybridTableBuilder::NoteReference(const MediumPointer& pointer) {
  refs_.AddRecord(pointer.file_number, pointer.handle.offset,
                  pointer.handle.size);
}

void HybridTableBuilder::AddRetyped(const Slice& key, ValueType type,
                                    const Slice& value) {
  key_buffer_.assign(key.data(), key.size());
  UpdateInternalKey(&key_buffer_, GetInternalKeySeqno(key), type);
  inner_->Add(key_buffer_, value);
}

Status HybridTableBuilder::status() const {
  return status_.ok() ? inner_->status() : status_;
}

IOStatus HybridTableBuilder::io_status() const {
  return medium_io_status_.ok() ? inner_->io_status() : medium_io_status_;
}

HybridTableBuilder::~HybridTableBuilder() {
  if (tracker_ != nullptr) {
    tracker_->BuildFinished(file_number_);
  }
}

Status HybridTableBuilder::Finish() {
  // The medium file is durable before the SST exists, so before it goes live.
  if (status_.ok() && medium_ != nullptr) {
    status_ = medium_io_status_ = medium_->Finish(medium_sync_);
  }
  if (!status_.ok()) {
    // RocksDB may call Finish without checking status(): close both files.
    Abandon();
    return status_;
  }
  closed_ = true;
  Status s = inner_->Finish();
  if (!s.ok()) {
    if (medium_ != nullptr) medium_->Abandon();
    return s;
  }
  DbCounters& c = state_->counters;
  switch (mode_) {
    case Mode::kExtract:
      c.small_values_flushed += small_values_;
      c.small_bytes_flushed += small_bytes_;
      c.large_values_flushed += large_values_;
      if (medium_ != nullptr) {
        c.medium_values_extracted += medium_->num_records();
        c.medium_bytes_extracted += medium_->value_bytes();
        c.medium_files_created++;
        tracker_->MediumFileWritten(file_number_);
        ROCKS_LOG_INFO(
            logger_,
            "[HybridKV] SST #%" PRIu64 ": %" PRIu64 " medium values (%" PRIu64
            " bytes) to %s; %" PRIu64 " small, %" PRIu64 " large kept",
            file_number_, medium_->num_records(), medium_->value_bytes(),
            medium_->path().c_str(), small_values_, large_values_);
      }
      break;
    case Mode::kKeepPointers:
      c.pointers_kept += kept_;
      break;
    case Mode::kInline: {
      const uint64_t bytes_read =
          merge_reader_->bytes_read() - merge_bytes_read_before_;
      const uint64_t reads =
          merge_reader_->reads_issued() - merge_reads_before_;
      c.medium_values_inlined += inlined_;
      c.medium_bytes_inlined += inlined_bytes_;
      c.merge_bytes_read += bytes_read;
      c.merge_reads += reads;
      if (inlined_ > 0) {
        ROCKS_LOG_INFO(
            logger_,
            "[HybridKV] SST #%" PRIu64 ": %" PRIu64 " medium values (%" PRIu64
            " bytes) written back inline; %" PRIu64 " bytes read in %" PRIu64
            " reads",
            file_number_, inlined_, inlined_bytes_, bytes_read, reads);
      }
      break;
    }
    case Mode::kPassThrough:
      break;
  }
  return s;
}

void HybridTableBuilder::Abandon() {
  if (closed_) {
    return;
  }
  closed_ = true;
  if (medium_ != nullptr) {
    medium_->Abandon();
  }
  inner_->Abandon();
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
