// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "plugin/hybridkv/table/hybrid_table_factory.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <limits>
#include <unordered_map>

#include "options/cf_options.h"
#include "options/db_options.h"
#include "options/options_helper.h"
#include "plugin/hybridkv/blob/format/medium_pointer.h"
#include "plugin/hybridkv/blob/io/rocksdb_compat.h"
#include "plugin/hybridkv/blob/lifecycle/db_state.h"
#include "plugin/hybridkv/blob/lifecycle/follower_file_system.h"
#include "plugin/hybridkv/blob/lifecycle/medium_lifecycle.h"
#include "plugin/hybridkv/blob/lifecycle/secondary_file_system.h"
#include "plugin/hybridkv/blob/lifecycle/sst_refs.h"
#include "plugin/hybridkv/compaction_filter/wrappers.h"
#include "plugin/hybridkv/table/compaction_pointer.h"
#include "plugin/hybridkv/table/hybrid_table_builder.h"
#include "plugin/hybridkv/table/hybrid_table_reader.h"
#include "plugin/hybridkv/table/hybridkv_partitioner.h"
#include "rocksdb/utilities/options_type.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

// An empty value or unknown id is an error whatever the ConfigOptions say:
// ignoring it would silently drop the user's table options.
Status ParseInner(const ConfigOptions& config_options, const std::string& value,
                  std::shared_ptr<TableFactory>* inner) {
  ConfigOptions strict = config_options;
  strict.ignore_unsupported_options = false;
  Status s = value.empty() || value == "nullptr"
                 ? Status::InvalidArgument("empty")
                 : TableFactory::CreateFromString(strict, value, inner);
  if (s.ok() && *inner == nullptr) {
    s = Status::NotFound("no table factory created");
  }
  if (!s.ok()) {
    return Status::InvalidArgument(
        "HybridTable: cannot take the table options in inner='" + value +
        "': " + s.ToString() +
        ". HybridTable is a BlockBasedTable: set its options directly "
        "(table_factory={id=HybridTable;block_size=8192}), or drop inner.");
  }
  return Status::OK();
}

std::unordered_map<std::string, ClassifyBy> classify_by_names = {
    {"size", ClassifyBy::kSize}, {"ratio", ClassifyBy::kRatio}};

std::unordered_map<std::string, OptionTypeInfo> hybrid_table_type_info = {
    {"classify_by",
     OptionTypeInfo::Enum<ClassifyBy>(
         offsetof(struct HybridTableOptions, classify_by), &classify_by_names)},
    {"medium_min_value_size",
     {offsetof(struct HybridTableOptions, medium_min_value_size),
      OptionType::kUInt32T, OptionVerificationType::kNormal,
      OptionTypeFlags::kNone}},
    {"medium_max_value_size",
     {offsetof(struct HybridTableOptions, medium_max_value_size),
      OptionType::kUInt32T, OptionVerificationType::kNormal,
      OptionTypeFlags::kNone}},
    {"small_medium_ratio",
     {offsetof(struct HybridTableOptions, small_medium_ratio),
      OptionType::kDouble, OptionVerificationType::kNormal,
      OptionTypeFlags::kNone}},
    {"medium_large_ratio",
     {offsetof(struct HybridTableOptions, medium_large_ratio),
      OptionType::kDouble, OptionVerificationType::kNormal,
      OptionTypeFlags::kNone}},
    {"merge_level",
     OptionTypeInfo(offsetof(struct HybridTableOptions, merge_level),
                    OptionType::kInt, OptionVerificationType::kNormal,
                    OptionTypeFlags::kNone)
         .SetParseFunc([](const ConfigOptions&, const std::string&,
                          const std::string& value, void* addr) {
           return ParseMergeLevel(value, static_cast<int*>(addr));
         })
         .SetSerializeFunc([](const ConfigOptions&, const std::string&,
                              const void* addr, std::string* value) {
           *value = MergeLevelToString(*static_cast<const int*>(addr));
           return Status::OK();
         })},
    // Ignored; parsed so that OPTIONS files that set it still load.
    {"max_medium_garbage_ratio",
     {0, OptionType::kDouble, OptionVerificationType::kDeprecated,
      OptionTypeFlags::kNone}},
    {"require_listener",
     {offsetof(struct HybridTableOptions, require_listener),
      OptionType::kBoolean, OptionVerificationType::kNormal,
      OptionTypeFlags::kNone}},
    {"scan_prefetch",
     {offsetof(struct HybridTableOptions, scan_prefetch), OptionType::kBoolean,
      OptionVerificationType::kNormal, OptionTypeFlags::kNone}},
    {"scan_prefetch_max",
     {offsetof(struct HybridTableOptions, scan_prefetch_max),
      OptionType::kUInt32T, OptionVerificationType::kNormal,
      OptionTypeFlags::kNone}},
    // Removed (docs/measurements.md); old OPTIONS files still name it.
    {"prepopulate_medium_cache",
     {0, OptionType::kBoolean, OptionVerificationType::kDeprecated,
      OptionTypeFlags::kNone}},
    {"blob_garbage_collection_min_garbage_ratio",
     {offsetof(struct HybridTableOptions,
               blob_garbage_collection_min_garbage_ratio),
      OptionType::kDouble, OptionVerificationType::kNormal,
      OptionTypeFlags::kNone}},
    // Parsed by ParseOption, never serialized: the options are our own.
    {"inner",
     {0, OptionType::kUnknown, OptionVerificationType::kNormal,
      OptionTypeFlags::kDontSerialize | OptionTypeFlags::kCompareNever}},
};

// min_blob_size above the medium band and every compaction pointer.
Status ValidateLargeThreshold(const HybridTableOptions& o,
                              const ColumnFamilyOptions& cf_opts) {
  if (!cf_opts.enable_blob_files) {
    return Status::OK();
  }
  const uint64_t floor =
      o.classify_by == ClassifyBy::kSize
          ? std::max<uint64_t>(uint64_t{o.medium_max_value_size} + 1,
                               kMaxCompactionPointerSize + 1)
          : kMaxCompactionPointerSize + 1;
  if (cf_opts.min_blob_size >= floor) {
    return Status::OK();
  }
  return Status::InvalidArgument(
      "HybridTable: min_blob_size=" + std::to_string(cf_opts.min_blob_size) +
      (o.classify_by == ClassifyBy::kSize &&
               cf_opts.min_blob_size <= o.medium_max_value_size
           ? " overlaps the medium band (medium_max_value_size=" +
                 std::to_string(o.medium_max_value_size) +
                 "): BlobDB would take medium values, and the pointers "
                 "compactions carry."
           : " would make BlobDB take the medium pointers that compactions "
             "carry (up to " +
                 std::to_string(kMaxCompactionPointerSize) + " bytes).") +
      " Set min_blob_size=" + std::to_string(floor) + " or more" +
      (o.classify_by == ClassifyBy::kSize
           ? ", as hybridkv::ConfigureOptions does."
           : "."));
}

Status ValidatePlacement(const HybridTableOptions& o,
                         const ColumnFamilyOptions& cf_opts) {
  if (o.medium_min_value_size <= kMaxMediumPointerSize) {
    return Status::InvalidArgument(
        "HybridTable: medium_min_value_size=" +
        std::to_string(o.medium_min_value_size) +
        " is not larger than a medium pointer (up to " +
        std::to_string(kMaxMediumPointerSize) +
        " bytes), so separating such values would grow the SSTs. Set "
        "medium_min_value_size above " +
        std::to_string(kMaxMediumPointerSize) + ".");
  }
  // medium_max_value_size = medium_min_value_size - 1 says "no medium
  // class" (HybridTable for scan prefetching only); a wider gap is a mistake.
  if (uint64_t{o.medium_max_value_size} + 1 < o.medium_min_value_size) {
    return Status::InvalidArgument(
        "HybridTable: medium_min_value_size=" +
        std::to_string(o.medium_min_value_size) +
        " > medium_max_value_size=" + std::to_string(o.medium_max_value_size) +
        ". Make medium_min_value_size the smaller, or set "
        "medium_max_value_size=medium_min_value_size-1 for no medium class.");
  }
  if (o.classify_by == ClassifyBy::kRatio &&
      !(0 < o.medium_large_ratio &&
        o.medium_large_ratio < o.small_medium_ratio &&
        o.small_medium_ratio < 1)) {
    return Status::InvalidArgument(
        "HybridTable: with classify_by=ratio, need 0 < medium_large_ratio < "
        "small_medium_ratio < 1; got medium_large_ratio=" +
        std::to_string(o.medium_large_ratio) +
        ", small_medium_ratio=" + std::to_string(o.small_medium_ratio) + ".");
  }
  Status s = ValidateLargeThreshold(o, cf_opts);
  if (!s.ok()) return s;
  if (o.scan_prefetch && o.scan_prefetch_max == 0) {
    return Status::InvalidArgument(
        "HybridTable: scan_prefetch_max=0 leaves scan prefetching nothing to "
        "read. Set scan_prefetch=false to turn it off, or scan_prefetch_max to "
        "at least 1 (default 16).");
  }
  const int num_levels = cf_opts.num_levels;
  if (o.merge_level != kAutoMergeLevel &&
      (o.merge_level >= num_levels || o.merge_level < -num_levels)) {
    return Status::InvalidArgument(
        "HybridTable: merge_level=" + std::to_string(o.merge_level) +
        " is outside [" + std::to_string(-num_levels) + ", " +
        std::to_string(num_levels - 1) +
        "] for num_levels=" + std::to_string(num_levels) +
        ". Set a level in that range, or merge_level=auto.");
  }
  return Status::OK();
}

// What HybridTable cannot do yet.
Status ValidateSupported(const DBOptions& db_opts,
                         const ColumnFamilyOptions& cf_opts) {
  if (cf_opts.comparator != nullptr &&
      cf_opts.comparator->timestamp_size() > 0 &&
      !cf_opts.persist_user_defined_timestamps) {
    // RocksDB rewrites these timestamps at flush and reads back the minimum
    // one; medium reads and pointer checks are unproven under that.
    return Status::NotSupported(
        "HybridTable does not support user-defined timestamps that are not "
        "persisted (persist_user_defined_timestamps=false). Persist them, or "
        "use a comparator without timestamps.");
  }
  if (VerifiesCompactionOutputEntries(cf_opts)) {
    return Status::NotSupported(
        "HybridTable does not support paranoid_file_checks, nor "
        "verify_output_flags with kVerifyIteration for local compactions: a "
        "compaction that writes medium values back inline, or copies their "
        "pointers, writes other bytes than the entries it hashed, so the "
        "check would fail it. Set paranoid_file_checks=false and leave "
        "kVerifyIteration out of verify_output_flags (kVerifyBlockChecksum "
        "and kVerifyFileChecksum work).");
  }
  if (db_opts.compaction_service != nullptr && cf_opts.enable_blob_files) {
    return Status::NotSupported(
        "HybridTable does not support compaction_service (remote "
        "compaction) with the large class on (enable_blob_files=true): "
        "RocksDB does not install the blob files a remote compaction writes. "
        "Set enable_blob_files=false (HybridOptions::enable_blob_files), or "
        "unset compaction_service.");
  }
  return Status::OK();
}

// The companions every HybridTable column family needs (see the messages).
Status ValidateCompanions(const HybridTableOptions& o, const DBOptions& db_opts,
                          const ColumnFamilyOptions& cf_opts) {
  if (!HasHybridKVListener(db_opts) && o.require_listener) {
    return Status::InvalidArgument(
        "HybridTable needs its companion HybridKVListener in the DB's "
        "`listeners`: it deletes medium files once no SST references them. Add "
        "listeners=HybridKVListener to the DB options, or use "
        "hybridkv::ConfigureOptions. (Tools that replace the listeners, such "
        "as db_stress, can set require_listener=false: medium files are then "
        "kept until the next open with the listener.)");
  }
  if (cf_opts.merge_operator != nullptr &&
      !cf_opts.merge_operator->IsInstanceOf(
          HybridKVMergeOperator::kClassName())) {
    return Status::InvalidArgument(
        "HybridTable: merge operator " +
        std::string(cf_opts.merge_operator->Name()) +
        " would see medium pointers instead of values in compactions. Wrap it: "
        "merge_operator={id=HybridKVMergeOperator;inner=" +
        cf_opts.merge_operator->Name() +
        "}, or use hybridkv::ConfigureOptions.");
  }
  if (cf_opts.compaction_filter != nullptr) {
    return Status::InvalidArgument(
        "HybridTable: compaction filter " +
        std::string(cf_opts.compaction_filter->Name()) +
        " would see medium pointers instead of values. Let "
        "hybridkv::ConfigureOptions wrap it, or give it as "
        "compaction_filter_factory={id=HybridKVCompactionFilter;inner=...}.");
  }
  if (cf_opts.compaction_filter_factory != nullptr &&
      !cf_opts.compaction_filter_factory->IsInstanceOf(
          HybridKVCompactionFilterFactory::kClassName())) {
    return Status::InvalidArgument(
        "HybridTable: compaction filter factory " +
        std::string(cf_opts.compaction_filter_factory->Name()) +
        " would see medium pointers instead of values. Wrap it: "
        "compaction_filter_factory={id=HybridKVCompactionFilter;inner=" +
        cf_opts.compaction_filter_factory->Name() +
        "}, or use hybridkv::ConfigureOptions.");
  }
  const SstPartitionerFactory* partitioner =
      cf_opts.sst_partitioner_factory.get();
  if (partitioner == nullptr ||
      !partitioner->IsInstanceOf(HybridKVPartitionerFactory::kClassName())) {
    return Status::InvalidArgument(
        "HybridTable needs its companion "
        "sst_partitioner_factory=HybridKVPartitioner, which keeps trivial "
        "moves from carrying medium pointers past the merge level; this column "
        "family has " +
        std::string(partitioner ? partitioner->Name() : "none") +
        ". Set it in the options string, or use hybridkv::ConfigureOptions.");
  }
  return Status::OK();
}

// The BlockBasedTable options of `inner`; null for another table format.
const BlockBasedTableOptions* BlockBasedOptionsOf(const TableFactory& inner) {
  return inner.IsInstanceOf(TableFactory::kBlockBasedTableName()) &&
                 !inner.IsInstanceOf(HybridTableFactory::kClassName())
             ? inner.GetOptions<BlockBasedTableOptions>()
             : nullptr;
}

std::string UnsupportedInnerMessage(const std::string& inner) {
  return "HybridTable is a BlockBasedTable and cannot wrap " + inner +
         ". Leave inner unset or make it a BlockBasedTable, or use " + inner +
         " without HybridKV.";
}

BlockBasedTableOptions InitialOptions(const std::shared_ptr<TableFactory>& t) {
  const BlockBasedTableOptions* bbto =
      t != nullptr ? BlockBasedOptionsOf(*t) : nullptr;
  return bbto != nullptr ? *bbto : BlockBasedTableOptions();
}

}  // namespace

bool HasHybridKVListener(const DBOptions& db_opts) {
  return std::any_of(db_opts.listeners.begin(), db_opts.listeners.end(),
                     [](const std::shared_ptr<EventListener>& l) {
                       return l != nullptr && l->IsInstanceOf(kListenerId);
                     });
}

Status ParseMergeLevel(const std::string& value, int* merge_level) {
  if (value == "auto") {
    *merge_level = kAutoMergeLevel;
    return Status::OK();
  }
  errno = 0;
  char* end = nullptr;
  const long level = std::strtol(value.c_str(), &end, 10);
  if (value.empty() || *end != '\0' || errno != 0 ||
      level < std::numeric_limits<int>::min() + 1 ||
      level > std::numeric_limits<int>::max()) {
    return Status::InvalidArgument(
        "HybridTable: merge_level=" + value +
        " is not a level. Set auto, a level (0 is L0), or a negative number "
        "counted from the deepest level (-1 is the deepest).");
  }
  *merge_level = static_cast<int>(level);
  return Status::OK();
}

std::string MergeLevelToString(int merge_level) {
  return merge_level == kAutoMergeLevel ? "auto" : std::to_string(merge_level);
}

ValueClass HybridTableOptions::Classify(size_t key_size,
                                        size_t value_size) const {
  if (classify_by == ClassifyBy::kSize) {
    if (value_size < medium_min_value_size) return ValueClass::kSmall;
    return value_size <= medium_max_value_size ? ValueClass::kMedium
                                               : ValueClass::kLarge;
  }
  const double ratio =
      static_cast<double>(key_size) /
      static_cast<double>(key_size + value_size + (key_size + value_size == 0));
  if (ratio > small_medium_ratio) return ValueClass::kSmall;
  return ratio > medium_large_ratio ? ValueClass::kMedium : ValueClass::kLarge;
}

// The base sets up cache reservations from the options it is built with.
HybridTableFactory::HybridTableFactory(HybridTableOptions options)
    : BlockBasedTableFactory(InitialOptions(options.inner)),
      options_(std::move(options)) {
  if (options_.inner != nullptr &&
      BlockBasedOptionsOf(*options_.inner) == nullptr) {
    unsupported_inner_ = options_.inner->Name();
  }
  options_.inner.reset();  // taken: the factory's own options hold them now
  RegisterOptions(&options_, &hybrid_table_type_info);
}

Status HybridTableFactory::ParseOption(const ConfigOptions& config_options,
                                       const OptionTypeInfo& opt_info,
                                       const std::string& opt_name,
                                       const std::string& opt_value,
                                       void* opt_ptr) {
  if (opt_name != "inner") {
    return BlockBasedTableFactory::ParseOption(config_options, opt_info,
                                               opt_name, opt_value, opt_ptr);
  }
  if (config_options.mutable_options_only) {
    return Status::InvalidArgument(
        "Option not changeable: inner. Change HybridTable's BlockBasedTable "
        "options by their names, e.g. table_factory.block_size.");
  }
  std::shared_ptr<TableFactory> inner;
  Status s = ParseInner(config_options, opt_value, &inner);
  if (!s.ok()) return s;
  const BlockBasedTableOptions* bbto = BlockBasedOptionsOf(*inner);
  if (bbto == nullptr) {
    return Status::InvalidArgument(UnsupportedInnerMessage(inner->Name()));
  }
  *GetOptions<BlockBasedTableOptions>() = *bbto;
  return Status::OK();
}

Status HybridTableFactory::PrepareOptions(const ConfigOptions& config_options) {
  if (!unsupported_inner_.empty()) {
    return Status::NotSupported(UnsupportedInnerMessage(unsupported_inner_));
  }
  return BlockBasedTableFactory::PrepareOptions(config_options);
}

Status HybridTableFactory::ValidateOptions(
    const DBOptions& db_opts, const ColumnFamilyOptions& cf_opts) const {
  if (!unsupported_inner_.empty()) {
    return Status::NotSupported(UnsupportedInnerMessage(unsupported_inner_));
  }
  const double gc_ratio = options_.blob_garbage_collection_min_garbage_ratio;
  if (!(gc_ratio >= 0 && gc_ratio <= 1)) {
    return Status::InvalidArgument(
        "HybridTable: blob_garbage_collection_min_garbage_ratio=" +
        std::to_string(gc_ratio) +
        " is not a share of garbage. Set it within [0, 1]; 0 leaves "
        "enable_blob_garbage_collection as set.");
  }
  Status s = ValidatePlacement(options_, cf_opts);
  if (s.ok()) s = ValidateSupported(db_opts, cf_opts);
  if (s.ok()) s = ValidateCompanions(options_, db_opts, cf_opts);
  if (s.ok()) s = BlockBasedTableFactory::ValidateOptions(db_opts, cf_opts);
  if (s.ok()) {
    // The partitioner cannot see num_levels: give it the merge level, or veto
    // all moves while one counted from the deepest level is unknown (static).
    const bool last_level_fixed =
        cf_opts.compaction_style == kCompactionStyleLevel &&
        cf_opts.level_compaction_dynamic_level_bytes;
    static_cast<const HybridKVPartitionerFactory*>(
        cf_opts.sst_partitioner_factory.get())
        ->SetMergeLevelAtOpen(options_.merge_level >= 0 || last_level_fixed
                                  ? ResolveMergeLevel(options_.merge_level,
                                                      cf_opts.num_levels - 1,
                                                      /*base_level=*/0)
                                  : 1);
  }
  return s;
}

Status HybridTableFactory::NewTableReader(
    const ReadOptions& ro, const TableReaderOptions& table_reader_options,
    std::unique_ptr<RandomAccessFileReader>&& file, uint64_t file_size,
    std::unique_ptr<TableReader>* table_reader,
    bool prefetch_index_and_filter_in_cache) const {
  const std::string sst_path = file->file_name();  // before `file` moves
  const std::string dir = DirName(sst_path);
  std::unique_ptr<TableReader> inner_reader;
  Status s = BlockBasedTableFactory::NewTableReader(
      ro, table_reader_options, std::move(file), file_size, &inner_reader,
      prefetch_index_and_filter_in_cache);
  if (!s.ok()) {
    return s;
  }
  const ImmutableOptions& io = table_reader_options.ioptions;
  // Secondaries' and followers' file systems adapt the real one to RocksDB
  // (vanished tables, table files only); HybridKV uses the one beneath.
  const std::shared_ptr<FileSystem> fs = UnwrapFollower(UnwrapSecondary(io.fs));
  MediumReadContext context;
  context.fs = fs;
  // Medium files live in the column family's first path.
  context.dirs =
      MediumFileDirs(io.cf_paths.empty() ? dir : io.cf_paths.front().path, io);
  context.file_options = FileOptions(table_reader_options.env_options);
  context.user_comparator =
      table_reader_options.internal_comparator.user_comparator();
  context.timestamp_size = context.user_comparator->timestamp_size();
  // Standalone readers (SstFileReader, sst_dump): the SST's directory is home.
  DbState* state = nullptr;
  s = DbStateForPaths(io.cf_paths, dir, &state);
  if (!s.ok()) return s;
  context.state = state;
  context.session_id = table_reader_options.cur_db_session_id;
  context.clock = io.clock;
  context.block_cache = GetOptions<BlockBasedTableOptions>()->block_cache;
  state->tracker().SetFileSystem(fs, io.sst_file_manager, /*replace=*/false);
  if (auto props = inner_reader->GetTableProperties()) {
    context.db_id = props->db_id;
    context.column_family_id = props->column_family_id;
    if (options_.scan_prefetch) {
      context.scan_prefetch_max = options_.scan_prefetch_max;
    }
    if (table_reader_options.level >= 0) {
      state->counters.NoteLevel(props->column_family_id,
                                table_reader_options.level);
    }
  }
  auto reader = std::make_unique<HybridTableReader>(std::move(inner_reader),
                                                    std::move(context));
  // A table with pointers outside cf_paths is imported or ingested
  // (CreateColumnFamilyWithImport). One written without HybridKV names no refs;
  // its entries tell if it holds pointers anyway (from a former HybridKV DB).
  MediumRefs scanned;
  if (reader->has_medium_refs() && !io.cf_paths.empty() &&
      !IsOneOfPaths(dir, io.cf_paths) &&
      (reader->medium_refs_known() ||
       !ScanMediumRefs(fs, sst_path, &scanned).ok() || !scanned.empty())) {
    return Status::NotSupported(
        "HybridKV: " + sst_path +
        " holds medium pointers and is outside the column family's paths "
        "(" +
        io.cf_paths.front().path + (io.cf_paths.size() > 1 ? ", ..." : "") +
        "): importing or ingesting such an SST is not supported, even into the "
        "DB that wrote it (its medium files would not count it as a reader). "
        "Copy the data with an iterator and writes instead.");
  }
  // Remote compaction outputs get no listener event but the primary opens each
  // before inputs go: count them here (workers have no compaction_service).
  const TableProperties* props = reader->GetTableProperties().get();
  if (io.compaction_service != nullptr && props != nullptr &&
      IsOneOfPaths(dir, io.cf_paths)) {
    state->tracker().AddSst(SstNumberOf(sst_path), sst_path, *props);
  }
  s = reader->HoldMediumFiles(sst_path);
  if (s.ok()) *table_reader = std::move(reader);
  return s;
}

TableBuilder* HybridTableFactory::NewTableBuilder(
    const TableBuilderOptions& table_builder_options,
    WritableFileWriter* file) const {
  auto* builder = new HybridTableBuilder(options_, *this,
                                         table_builder_options, file);
  if (table_builder_options.reason != TableFileCreationReason::kMisc) {
    Status s = CheckBuilderOptions(table_builder_options);
    if (!s.ok()) builder->Refuse(s);
  }
  return builder;
}

// RocksDB validates table options only at DB::Open, so a column family created
// or changed since could hand pointers to an unwrapped merge operator or
// filter: refuse its flushes and compactions, stopping writes before harm.
// Placement checks stay at DB::Open, as RocksDB's sanitizing (FIFO's one
// level) would fail them here. A lowered min_blob_size makes compactions
// resolve pointers instead (HybridKVListener, CheckBlobThreshold).
Status HybridTableFactory::CheckBuilderOptions(
    const TableBuilderOptions& tbo) const {
  const DBOptions db_opts = BuildDBOptions(tbo.ioptions, MutableDBOptions());
  ColumnFamilyOptions cf_opts;
  UpdateColumnFamilyOptions(
      static_cast<const ImmutableCFOptions&>(tbo.ioptions), &cf_opts);
  UpdateColumnFamilyOptions(tbo.moptions, &cf_opts);
  Status s = ValidateSupported(db_opts, cf_opts);
  if (s.ok()) s = ValidateCompanions(options_, db_opts, cf_opts);
  if (s.ok()) {
    return s;
  }
  return Status::InvalidArgument(
      "HybridTable refuses to write an SST of column family '" +
          tbo.column_family_name +
          "': its options, as CreateColumnFamily or SetOptions left them, "
          "fail the check DB::Open makes",
      s.ToString() +
          " Reopen the DB with options that pass (drop and recreate a column "
          "family created so with hybridkv::ConfigureOptions).");
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
