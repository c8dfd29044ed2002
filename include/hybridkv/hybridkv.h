// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// HybridKV's public API. Depends on RocksDB's public headers only.
//
// Built with ROCKSDB_PLUGINS=hybridkv, the plugin registers its components
// with every ObjectRegistry, so options strings and OPTIONS files name them
// without calling this header: table_factory={id=HybridTable;block_size=8192}
#pragma once

#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "rocksdb/db.h"
#include "rocksdb/options.h"
#include "rocksdb/status.h"
#include "rocksdb/table.h"
#include "rocksdb/utilities/backup_engine.h"
#include "rocksdb/utilities/stackable_db.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

// Registry ids of HybridKV's components (also for IsInstanceOf).
const char* const kHybridTableId = "HybridTable";
const char* const kListenerId = "HybridKVListener";
const char* const kPartitionerId = "HybridKVPartitioner";
const char* const kCompactionFilterId = "HybridKVCompactionFilter";
const char* const kMergeOperatorId = "HybridKVMergeOperator";

// HybridTableOptions::merge_level chosen by the LSM's shape, as it grows.
constexpr int kAutoMergeLevel = std::numeric_limits<int>::min();

// How values are sorted into the small, medium and large classes.
enum class ClassifyBy : char {
  kSize,   // by value size
  kRatio,  // by key/(key+value), Parallax's T_SM and T_ML
};

enum class ValueClass : char { kSmall, kMedium, kLarge };

// Also set by `table_factory={id=HybridTable;...}`; names and defaults are
// public interface (README.md).
struct HybridTableOptions {
  static const char* kName() { return "HybridTableOptions"; }

  ClassifyBy classify_by = ClassifyBy::kSize;
  // With kSize: values of [medium_min_value_size, medium_max_value_size] bytes
  // are medium; larger ones are large and go to BlobDB.
  uint32_t medium_min_value_size = 96;
  uint32_t medium_max_value_size = 999;
  // With kRatio: key/(key+value) above small_medium_ratio is small, at or below
  // medium_large_ratio is large, medium in between.
  double small_medium_ratio = 0.2;
  double medium_large_ratio = 0.02;
  // Compactions whose output level is at or below this write medium values
  // back inline. >= 0: absolute; < 0: from the deepest non-empty level (-1).
  // kAutoMergeLevel (`auto`): -2 once a level lies between the base and the
  // penultimate level, else -1 (ResolveMergeLevel, README.md).
  int merge_level = kAutoMergeLevel;
  // The DB must list HybridKVListener, which deletes unreferenced medium
  // files, unless false (for tools that replace listeners, e.g. db_stress):
  // such files then wait for an open with it; nothing else changes.
  bool require_listener = true;
  // Iterators read the medium values they will yield ahead, several at once,
  // into the block cache (so it needs one). Never with fill_cache=false or
  // read_tier=kBlockCacheTier. Results never depend on it.
  bool scan_prefetch = true;
  // Cap on the entries a scan looks ahead. After a seek the window starts at
  // what recent scans took from the table (at least 2) and doubles each time
  // the scan reaches its end; larger caps read values no scan yields.
  uint32_t scan_prefetch_max = 16;
  // Above 0, after each flush and compaction HybridKVListener turns
  // enable_blob_garbage_collection on while the blob files GC would relocate
  // hold at least this share of garbage, off below half of it. 0: left as
  // set. ConfigureOptions sets it from HybridOptions.
  double blob_garbage_collection_min_garbage_ratio = 0;
  // A BlockBasedTable factory whose table options HybridTable takes (null:
  // defaults); other formats are refused at open. Not kept: read the options
  // back with GetOptions<BlockBasedTableOptions>().
  std::shared_ptr<TableFactory> inner;

  ValueClass Classify(size_t key_size, size_t value_size) const;
};

// Everything HybridKV needs, for ConfigureOptions.
struct HybridOptions {
  HybridTableOptions table;  // HybridTable's options
  // The large class: RocksDB's integrated BlobDB, with min_blob_size =
  // table.medium_max_value_size + 1. GC runs inside compactions.
  bool enable_blob_files = true;
  bool enable_blob_garbage_collection = true;
  double blob_garbage_collection_age_cutoff = 0.25;
  // GC runs only while the files it would relocate hold at least this share
  // of garbage; 0 runs it always, as stock BlobDB. 0.2 copies <= 4 bytes of
  // live blobs per byte of garbage (8 while on: off below 0.1). Copied-out
  // blobs count as garbage of their old file, which stays eligible till empty.
  double blob_garbage_collection_min_garbage_ratio = 0.2;
  // Readahead for GC's blob reads, which go in key order; RocksDB's default 0
  // issues one request per relocated blob.
  uint64_t blob_compaction_readahead_size = 2 << 20;
};

// Sets every option HybridKV needs on `options`: the HybridTable factory,
// partitioner and listener, wrappers for the merge operator and compaction
// filter, and the large tier. Returns InvalidArgument, leaving `options`
// unchanged, when `hybrid` is inconsistent.
Status ConfigureOptions(Options* options,
                        const HybridOptions& hybrid = HybridOptions());

// HybridKV's counters for one DB, since the process started. Flush counts each
// value once, by class; the rest count work done on medium values.
struct HybridStatistics {
  uint64_t small_values_flushed = 0;
  uint64_t small_bytes_flushed = 0;
  uint64_t medium_values_extracted = 0;  // written to .medium files at flush
  uint64_t medium_bytes_extracted = 0;
  uint64_t medium_files_created = 0;
  uint64_t large_values_flushed = 0;  // left to BlobDB
  uint64_t pointers_kept = 0;  // copied by compactions above the merge level
  uint64_t medium_values_inlined = 0;  // written back inline at the merge level
  uint64_t medium_bytes_inlined = 0;
  uint64_t merge_bytes_read = 0;        // by merge-level compactions
  uint64_t merge_reads = 0;             // ... in this many I/Os
  uint64_t medium_values_resolved = 0;  // by Get, MultiGet and iterators
  uint64_t medium_bytes_resolved = 0;
  uint64_t resolve_bytes_read = 0;
  uint64_t resolve_reads = 0;  // ... in this many read requests
  // Scan prefetch: medium values read ahead, those then yielded, and seeks
  // followed (one per table a seek reached).
  uint64_t scan_values_prefetched = 0;
  uint64_t scan_values_used = 0;
  uint64_t scan_table_seeks = 0;
  // On disk now (allocated bytes: punched ranges do not count).
  uint64_t live_medium_files = 0;
  uint64_t live_medium_bytes = 0;
  // Of the live SSTs (this handle's current Version): their pointers, the
  // on-disk bytes of the medium files they point into, and the bytes of the
  // records they point to. Dead records stay when they share a block or small
  // gap with live ones, sit in files a backup or checkpoint links, or holes
  // cannot be punched (docs/medium_space.md).
  uint64_t medium_pointers = 0;
  uint64_t referenced_medium_file_bytes = 0;
  uint64_t referenced_medium_live_bytes = 0;
  uint64_t medium_bytes_punched = 0;  // freed in place
  uint64_t medium_punch_failures = 0;
  // referenced_medium_file_bytes / referenced_medium_live_bytes; 1 when none.
  double medium_space_amplification() const;

  std::string ToString() const;
};

// Fills `*stats` for `db`; an error if its SSTs or directories are unreadable.
Status GetStatistics(DB* db, HybridStatistics* stats);

// HybridKV's DB handle, for where RocksDB's tools take a DB*. Its
// GetLiveFilesStorageInfo and GetLiveFiles also list the medium files the
// listed SSTs point into and HYBRIDKV-SECRET, so Checkpoint::Create(handle)
// and replication that copies the listed files make complete copies. It
// answers the `hybridkv.*` properties below; all else passes through.
//
// DB::Open, returning the handle, which owns the DB.
Status Open(const Options& options, const std::string& name,
            StackableDB** dbptr);
Status Open(const DBOptions& db_options, const std::string& name,
            const std::vector<ColumnFamilyDescriptor>& column_families,
            std::vector<ColumnFamilyHandle*>* handles, StackableDB** dbptr);
// DB::OpenAsSecondary. Until it catches up, a secondary holds the medium
// files of its open tables and the primary does not punch them; a catch-up
// that meets a table the primary deleted keeps its Version, the next moves on
// (docs/deployability.md). NotSupported with enable_blob_files: BlobDB does
// not support secondaries (facebook/rocksdb#13296).
Status OpenAsSecondary(const Options& options, const std::string& name,
                       const std::string& secondary_path, StackableDB** dbptr);
// DB::OpenAsFollower (RocksDB 9.2+). The follower links the leader's medium
// files into its directory, as RocksDB links SSTs, so they outlive the
// leader's deletes and are not punched meanwhile; it deletes only its links
// and never punches the leader's bytes. NotSupported with enable_blob_files:
// RocksDB's follower does not serve blob files.
Status OpenAsFollower(const Options& options, const std::string& name,
                      const std::string& leader_path, StackableDB** dbptr);
// A handle over a `db` opened otherwise (read-only, TransactionDB, ...);
// `db` stays the caller's and must outlive it. A TransactionDB can also wrap
// Open's handle (TransactionDB::WrapStackableDB).
std::unique_ptr<StackableDB> NewHandle(DB* db);

// Properties the handle answers (GetIntProperty, GetProperty), for the whole
// DB whatever the column family.
const char* const kPropertyPrefix = "hybridkv.";
// Medium files on disk, and the bytes they occupy (punched ranges excluded).
const char* const kPropertyMediumFiles = "hybridkv.medium-files";
const char* const kPropertyMediumFileBytes = "hybridkv.medium-file-bytes";
// Bytes of the medium records live SSTs point to.
const char* const kPropertyMediumLiveBytes = "hybridkv.medium-live-bytes";
// Pointers in live SSTs (medium values not yet inlined).
const char* const kPropertyMediumPointers = "hybridkv.medium-pointers";
// Dead medium bytes freed in place since the process started.
const char* const kPropertyMediumBytesPunched = "hybridkv.medium-bytes-punched";

// Incremental backups on RocksDB's BackupEngine, whose other calls work on
// them. Medium files are held as "<n>.blob" and the secret in the app
// metadata; hybridkv::RestoreDBFromBackup puts both back.
//
// Like BackupEngine::CreateNewBackup; `db` may be any handle of the DB. Each
// medium file is hard-linked in the DB directory during the backup (links a
// crash leaves go at the first flush or compaction after the next open).
Status CreateNewBackup(BackupEngine* engine, DB* db,
                       const CreateBackupOptions& options = {},
                       BackupID* new_backup_id = nullptr);
// Like BackupEngine::RestoreDBFromBackup, but first returns Corruption naming
// the missing files if the backup lacks a medium file its SSTs point into
// (e.g. one made by RocksDB's CreateNewBackup). `db_env`: the Env given to
// BackupEngine::Open.
Status RestoreDBFromBackup(BackupEngineReadOnlyBase* engine, BackupID backup_id,
                           const std::string& db_dir,
                           const std::string& wal_dir,
                           const RestoreOptions& options = RestoreOptions(),
                           Env* db_env = Env::Default());
Status RestoreDBFromLatestBackup(
    BackupEngineReadOnlyBase* engine, const std::string& db_dir,
    const std::string& wal_dir,
    const RestoreOptions& options = RestoreOptions(),
    Env* db_env = Env::Default());
// BackupEngine::VerifyBackup, and the check above.
Status VerifyBackup(BackupEngineReadOnlyBase* engine, BackupID backup_id,
                    bool verify_with_checksum = false);

// Checkpoint::CreateCheckpoint on NewHandle(db), so the checkpoint holds the
// medium files and secret too. `checkpoint_dir` must not exist yet.
Status CreateCheckpoint(DB* db, const std::string& checkpoint_dir);

// Makes HybridKV DB `name` one stock RocksDB reads: opens it (`families` as
// DB::Open takes them) at merge level 0, fully compacts every column family
// (NotSupported for FIFO), fails with Incomplete if a pointer is left, and
// deletes the medium files and secret. Large values stay in BlobDB. Then open
// it with BlockBasedTable, without HybridKV's listener and partitioner.
Status ConvertToStockDB(const DBOptions& db_options, const std::string& name,
                        const std::vector<ColumnFamilyDescriptor>& families);
Status ConvertToStockDB(const Options& options, const std::string& name);

// Like DestroyDB, and also removes the DB's medium files and secret. Fails,
// removing nothing of HybridKV's, while the DB is open.
Status DestroyDB(const std::string& name, const Options& options);

// A HybridTable factory with `inner`'s BlockBasedTable options (null: default).
std::shared_ptr<TableFactory> NewHybridTableFactory(
    std::shared_ptr<TableFactory> inner = nullptr);
std::shared_ptr<TableFactory> NewHybridTableFactory(
    const HybridTableOptions& options);

// merge_level as options strings spell it: "auto" or an integer level.
Status ParseMergeLevel(const std::string& value, int* merge_level);
std::string MergeLevelToString(int merge_level);

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
