// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// HybridKV's public API. Depends on RocksDB's public headers only. Built with
// ROCKSDB_PLUGINS=hybridkv, its components are in every ObjectRegistry, so
// options strings name them too: table_factory={id=HybridTable;block_size=8192}
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

// Names and defaults are public (README.md): table_factory={id=HybridTable;...}
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
  // Compactions into this level or below write medium values back inline.
  // >= 0: absolute; < 0: from the deepest non-empty level (-1). Default `auto`:
  // -2 once a level lies between base and penultimate, else -1 (README.md).
  int merge_level = kAutoMergeLevel;
  // Requires HybridKVListener, which deletes unreferenced medium files; false
  // (tools that replace listeners) defers those deletes to an open with it.
  bool require_listener = true;
  // Iterators read the medium values they will yield, several at once, into
  // the block cache (needed); off for fill_cache=false or kBlockCacheTier.
  bool scan_prefetch = true;
  // Max entries a scan reads ahead: from a seek, what recent scans took (>= 2),
  // doubling as the scan reaches it; more reads values no scan yields.
  uint32_t scan_prefetch_max = 16;
  // If > 0, HybridKVListener turns enable_blob_garbage_collection on after
  // flushes and compactions while GC's files hold this share of garbage, off
  // below half of it; 0 leaves it. ConfigureOptions sets it from HybridOptions.
  double blob_garbage_collection_min_garbage_ratio = 0;
  // A BlockBasedTable factory whose options HybridTable takes (null: defaults;
  // others fail open). Not kept: read GetOptions<BlockBasedTableOptions>().
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
  // GC runs only while the files it would relocate hold this share of garbage
  // (0: always, as stock BlobDB); 0.2 copies <= 4 live bytes per garbage byte,
  // 8 while on (off below 0.1). Relocated blobs are their old file's garbage.
  double blob_garbage_collection_min_garbage_ratio = 0.2;
  // Readahead for GC's key-ordered blob reads; RocksDB's 0 reads blob by blob.
  uint64_t blob_compaction_readahead_size = 2 << 20;
};

// Sets every option HybridKV needs: the HybridTable factory, partitioner,
// listener, merge operator and compaction filter wrappers, and large tier.
// InvalidArgument, leaving `options` unchanged, if `hybrid` is inconsistent.
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
  // Scan prefetch: values read ahead, those yielded, seeks (per table reached).
  uint64_t scan_values_prefetched = 0;
  uint64_t scan_values_used = 0;
  uint64_t scan_table_seeks = 0;
  // On disk now (allocated bytes: punched ranges do not count).
  uint64_t live_medium_files = 0;
  uint64_t live_medium_bytes = 0;
  // Of live SSTs (this handle's Version): pointers, on-disk bytes of medium
  // files they point into, and bytes of records they point to. Dead records
  // stay if they share a block or small gap with live ones, a backup or
  // checkpoint links their file, or punching fails (docs/medium_space.md).
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

// HybridKV's DB handle, for RocksDB tools taking a DB*: its
// GetLiveFilesStorageInfo and GetLiveFiles also list HYBRIDKV-SECRET and the
// medium files of listed SSTs, so Checkpoint and file-copying replication make
// complete copies; it answers `hybridkv.*` properties, passing all else on.
// Open: DB::Open, returning the handle, which owns the DB.
Status Open(const Options& options, const std::string& name,
            StackableDB** dbptr);
Status Open(const DBOptions& db_options, const std::string& name,
            const std::vector<ColumnFamilyDescriptor>& column_families,
            std::vector<ColumnFamilyHandle*>* handles, StackableDB** dbptr);
// DB::OpenAsSecondary. Until it catches up, a secondary holds its tables'
// medium files, unpunched; a catch-up meeting a table the primary deleted
// keeps its Version, the next moves on (docs/deployability.md). NotSupported
// with enable_blob_files: BlobDB has no secondaries (facebook/rocksdb#13296).
Status OpenAsSecondary(const Options& options, const std::string& name,
                       const std::string& secondary_path, StackableDB** dbptr);
// DB::OpenAsFollower (RocksDB 9.2+). Like SSTs, the leader's medium files are
// linked into the follower's directory, outliving the leader's deletes
// unpunched; the follower deletes only its links, never punching. NotSupported
// with enable_blob_files: RocksDB's follower does not serve blob files.
Status OpenAsFollower(const Options& options, const std::string& name,
                      const std::string& leader_path, StackableDB** dbptr);
// A handle over a `db` opened otherwise (read-only, TransactionDB, ...);
// `db` stays the caller's and must outlive it. A TransactionDB can also wrap
// Open's handle (TransactionDB::WrapStackableDB).
std::unique_ptr<StackableDB> NewHandle(DB* db);

// Whole-DB properties the handle answers (GetIntProperty, GetProperty).
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

// Incremental backups on BackupEngine, whose other calls work on them: medium
// files as "<n>.blob", the secret in app metadata; RestoreDBFromBackup below
// puts both back. CreateNewBackup: `db` may be any handle; medium files are
// hard-linked in the DB directory meanwhile (links a crash leaves go at the
// first flush or compaction after the next open).
Status CreateNewBackup(BackupEngine* engine, DB* db,
                       const CreateBackupOptions& options = {},
                       BackupID* new_backup_id = nullptr);
// BackupEngine::RestoreDBFromBackup, but first Corruption naming any medium
// file the backup's SSTs need and it lacks (as RocksDB's CreateNewBackup
// makes). `db_env`: the Env given to BackupEngine::Open.
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

// Makes DB `name` stock RocksDB's: opens it at merge level 0, fully compacts
// each column family (NotSupported for FIFO; Incomplete if a pointer is left)
// and deletes the medium files and secret; large values stay in BlobDB. Then
// open it with BlockBasedTable, without HybridKV's listener and partitioner.
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
