// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// HybridKV's public API. Depends on RocksDB's public headers only.
//
// The plugin registers itself with every ObjectRegistry when RocksDB is built
// with ROCKSDB_PLUGINS=hybridkv, so options strings and OPTIONS files can name
// its components without any call into this header:
//
//   table_factory={id=HybridTable;block_size=8192}
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

// The ids HybridKV's components register under, for options strings and
// OPTIONS files (and Customizable::IsInstanceOf).
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

// Options of HybridTable, as set by `table_factory={id=HybridTable;...}`
// strings and OPTIONS files. Names and defaults are part of the public
// interface; see README.md.
struct HybridTableOptions {
  static const char* kName() { return "HybridTableOptions"; }

  ClassifyBy classify_by = ClassifyBy::kSize;
  // With kSize: values of [medium_min_value_size, medium_max_value_size] bytes
  // are medium. Larger ones are large, and belong to BlobDB (min_blob_size =
  // medium_max_value_size + 1).
  uint32_t medium_min_value_size = 96;
  uint32_t medium_max_value_size = 999;
  // With kRatio: key/(key+value) above small_medium_ratio is small, at or below
  // medium_large_ratio is large, medium in between.
  double small_medium_ratio = 0.2;
  double medium_large_ratio = 0.02;
  // Compactions whose output level is at or below the merge level write
  // medium values back inline. >= 0: an absolute level. < 0: counted from the
  // deepest non-empty level of the column family (-1 is that level, -2 the one
  // above it). kAutoMergeLevel (`merge_level=auto` in options strings): -2 once
  // at least one level lies between the base level (where L0 compacts to) and
  // the penultimate level, else -1; see ResolveMergeLevel and README.md.
  int merge_level = kAutoMergeLevel;
  // The DB must list HybridKVListener, which deletes medium files once no SST
  // references them. false lets a DB open without it, for tools that replace
  // the listeners (db_stress): medium files are then never deleted while that
  // DB is open, and the next open with the listener deletes the unreferenced
  // ones. Reads and compactions are unaffected.
  bool require_listener = true;
  // User scans (iterators) read the medium values they are about to yield
  // ahead of time, several at once, into the block cache, where their reads
  // find them. Needs a block cache; fill_cache=false and
  // read_tier=kBlockCacheTier reads never prefetch. Results never depend on it.
  bool scan_prefetch = true;
  // The most entries a scan looks ahead in one step. After a seek the window
  // starts at the entries recent scans took from the table (at least 2) and
  // doubles each time the scan reaches its end. Larger caps read values no
  // scan yields.
  uint32_t scan_prefetch_max = 16;
  // Above 0, HybridKV switches the column family's
  // enable_blob_garbage_collection after each flush and compaction (needs
  // HybridKVListener): on while the blob files BlobDB's GC would relocate hold
  // at least this share of garbage, off below half of it. 0: the option stays
  // as set. ConfigureOptions sets it from HybridOptions.
  double blob_garbage_collection_min_garbage_ratio = 0;
  // A BlockBasedTable factory whose table options HybridTable takes when it is
  // built (HybridTable is a BlockBasedTable; null: the default options). Any
  // other table format is refused at open. Not kept: read the options back
  // with GetOptions<BlockBasedTableOptions>().
  std::shared_ptr<TableFactory> inner;

  ValueClass Classify(size_t key_size, size_t value_size) const;
};

// Everything HybridKV needs, for ConfigureOptions.
struct HybridOptions {
  // The table options; `table.inner` null means BlockBasedTable's defaults.
  HybridTableOptions table;
  // The large class: RocksDB's integrated BlobDB, with min_blob_size set to
  // table.medium_max_value_size + 1. Its garbage collection runs inside
  // compactions.
  bool enable_blob_files = true;
  bool enable_blob_garbage_collection = true;
  double blob_garbage_collection_age_cutoff = 0.25;
  // With enable_blob_garbage_collection, GC runs only while the files it would
  // relocate hold at least this share of garbage (HybridTableOptions says
  // how); 0 runs it always, as stock BlobDB does. At 0.2, GC copies at most 4
  // bytes of live blobs per byte of garbage (8 while on: it goes off below
  // 0.1). Blobs already copied out count as garbage of their old file, so a
  // file GC has started stays eligible until it is emptied.
  double blob_garbage_collection_min_garbage_ratio = 0.2;
  // Readahead for the blob reads of that garbage collection. RocksDB's default,
  // 0, reads each relocated blob with its own request; a compaction reads an
  // old blob file in key order, so readahead needs few large requests.
  uint64_t blob_compaction_readahead_size = 2 << 20;
};

// Sets every option HybridKV needs on `options`, in one call: the HybridTable
// factory and the large tier (enable_blob_files, min_blob_size, blob GC
// policy and its readahead). Returns InvalidArgument, and leaves `options`
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
  // Scan prefetch: the medium values scans' windows covered, and those the
  // scans went on to yield.
  uint64_t scan_values_prefetched = 0;
  uint64_t scan_values_used = 0;
  // Seeks of user scans that scan prefetch followed, one per table a seek
  // reached.
  uint64_t scan_table_seeks = 0;
  // On disk now (allocated bytes: punched ranges do not count).
  uint64_t live_medium_files = 0;
  uint64_t live_medium_bytes = 0;
  // What the live SSTs (the current Version, as this handle sees it)
  // reference: their pointers; the bytes the medium files they point into
  // occupy on disk; the bytes of the records they point to. Dead records
  // still held are those sharing a file-system block or a small gap with live
  // ones, in files a checkpoint or backup links, or on file systems that
  // cannot punch holes (docs/medium_space.md).
  uint64_t medium_pointers = 0;
  uint64_t referenced_medium_file_bytes = 0;
  uint64_t referenced_medium_live_bytes = 0;
  uint64_t medium_bytes_punched = 0;  // freed in place
  uint64_t medium_punch_failures = 0;
  // referenced_medium_file_bytes / referenced_medium_live_bytes; 1 when none.
  double medium_space_amplification() const;

  std::string ToString() const;
};

// Fills `*stats` for `db`.
Status GetStatistics(DB* db, HybridStatistics* stats);

// HybridKV's DB handle. Use it where RocksDB's tools take a DB*: it is a
// StackableDB whose GetLiveFilesStorageInfo and GetLiveFiles list HybridKV's
// files (the medium files the listed SSTs point into, and HYBRIDKV-SECRET)
// beside RocksDB's, so Checkpoint::Create(handle) and replication that copies
// the listed files make copies that read every value; and it answers the
// `hybridkv.*` properties below. Everything else passes through.
//
// Opens the DB as DB::Open does and returns the handle, which owns it.
Status Open(const Options& options, const std::string& name,
            StackableDB** dbptr);
Status Open(const DBOptions& db_options, const std::string& name,
            const std::vector<ColumnFamilyDescriptor>& column_families,
            std::vector<ColumnFamilyHandle*>* handles, StackableDB** dbptr);
// DB::OpenAsSecondary, returning the handle. A secondary holds the medium
// files of the tables it has open, and the primary does not punch them, until
// it catches up; a catch-up that meets a table the primary deleted keeps its
// Version, and the next one moves on (docs/deployability.md). Refused
// (NotSupported) when a column family has enable_blob_files: RocksDB's BlobDB
// does not support secondaries (facebook/rocksdb#13296).
Status OpenAsSecondary(const Options& options, const std::string& name,
                       const std::string& secondary_path, StackableDB** dbptr);
// DB::OpenAsFollower (RocksDB 9.2+) of the leader in `leader_path`, returning
// the handle. The follower links the leader's medium files into its own
// directory as RocksDB links its SSTs, so they stay readable after the leader
// deletes them and the leader does not punch them meanwhile; it deletes only
// its own links and never punches the leader's bytes. Refused (NotSupported)
// with enable_blob_files: RocksDB's follower does not serve blob files.
Status OpenAsFollower(const Options& options, const std::string& name,
                      const std::string& leader_path, StackableDB** dbptr);
// A handle over `db`, opened otherwise (read-only, a TransactionDB, an
// OptimisticTransactionDB): `db` stays the caller's and must outlive it. A
// TransactionDB can also sit on top of the handle of Open
// (TransactionDB::WrapStackableDB).
std::unique_ptr<StackableDB> NewHandle(DB* db);

// Properties the handle answers (GetIntProperty, GetProperty), for the whole
// DB whatever the column family.
const char* const kPropertyPrefix = "hybridkv.";
// Medium files on disk, and the bytes they occupy (punched ranges excluded).
const char* const kPropertyMediumFiles = "hybridkv.medium-files";
const char* const kPropertyMediumFileBytes = "hybridkv.medium-file-bytes";
// Bytes of the medium records live SSTs point to.
const char* const kPropertyMediumLiveBytes = "hybridkv.medium-live-bytes";
// Pointers in live SSTs: medium values not yet written back inline at the
// merge level.
const char* const kPropertyMediumPointers = "hybridkv.medium-pointers";
// Dead medium bytes freed in place since the process started.
const char* const kPropertyMediumBytesPunched = "hybridkv.medium-bytes-punched";

// Backups on RocksDB's BackupEngine, whose other calls work on them. They hold
// medium files as "<n>.blob" and the secret in the backup's app metadata;
// hybridkv::RestoreDBFromBackup puts both back. Incremental as RocksDB's.
//
// Like BackupEngine::CreateNewBackup; `db` may be any handle of the DB.
// Hard-links each medium file in the DB directory for the length of the
// backup (links a crash leaves go at the first flush or compaction after the
// next open).
Status CreateNewBackup(BackupEngine* engine, DB* db,
                       const CreateBackupOptions& options = {},
                       BackupID* new_backup_id = nullptr);
// Like BackupEngine::RestoreDBFromBackup. First checks that the backup holds
// every medium file its SSTs point into, and refuses at once, naming the
// missing files, when it does not (e.g. a backup made by RocksDB's own
// CreateNewBackup). `db_env`: the Env given to BackupEngine::Open.
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

// Checkpoint::CreateCheckpoint on NewHandle(db): the checkpoint also holds
// the medium files its SSTs point into and the secret, so it opens and reads
// every value. `checkpoint_dir` must not exist yet.
Status CreateCheckpoint(DB* db, const std::string& checkpoint_dir);

// The way out: turns the HybridKV DB `name` into one stock RocksDB reads.
// Opens it (its column families as DB::Open takes them, with HybridKV's
// options) with the merge level at 0, compacts every column family fully,
// checks that no pointer is left, and deletes the medium files and the
// secret. Large values stay in BlobDB. Afterwards open it with
// BlockBasedTable and without HybridKV's listener and partitioner.
Status ConvertToStockDB(const DBOptions& db_options, const std::string& name,
                        const std::vector<ColumnFamilyDescriptor>& families);
Status ConvertToStockDB(const Options& options, const std::string& name);

// Like DestroyDB, and also removes the DB's medium files and secret. Fails,
// removing nothing of HybridKV's, while the DB is open.
Status DestroyDB(const std::string& name, const Options& options);

// A HybridTable factory with the BlockBasedTable options of `inner`, or the
// default ones when `inner` is null.
std::shared_ptr<TableFactory> NewHybridTableFactory(
    std::shared_ptr<TableFactory> inner = nullptr);
std::shared_ptr<TableFactory> NewHybridTableFactory(
    const HybridTableOptions& options);

// HybridTableOptions::merge_level as options strings spell it: "auto" or an
// integer level.
Status ParseMergeLevel(const std::string& value, int* merge_level);
std::string MergeLevelToString(int merge_level);

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
