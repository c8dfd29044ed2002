// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// The medium-file lifecycle (docs/design.md, section 6): a medium file's
// space follows what SSTs still point to; no SST is rewritten to free it.
//
// An SST's references (medium_refs.h) are added when RocksDB reports it
// created, before the version edit that makes it live, and dropped when it
// reports it physically deleted, so SSTs that old Versions, iterators or
// DisableFileDeletions pin keep theirs; a compaction's outputs come before its
// inputs go. Runs only deleted SSTs pointed to are punched out in place
// (hole_punch.h); the file goes with its last reference.
//
// What events do not tell (SSTs of earlier processes, crashes, failed builds)
// comes from seeding: the properties of every SST on disk, read once. Nothing
// is freed before seeding succeeds (runs deferred before may be: nothing can
// point into them again). Seeding deletes medium files no SST references and
// this process did not write, and punches runs nothing points into. It runs
// again when CURRENT names another MANIFEST than at seeding (another process
// may have changed the DB; every open writes one), and when a FIFO compaction
// may copy SSTs without reporting them.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "plugin/hybridkv/blob/format/medium_refs.h"
#include "plugin/hybridkv/blob/lifecycle/sst_refs.h"
#include "plugin/hybridkv/blob/medium/medium_file_cache.h"
#include "rocksdb/file_system.h"
#include "rocksdb/sst_file_manager.h"
#include "rocksdb/table_properties.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

// One column family home's medium files (the first of its cf_paths, where
// flushes write) and the SSTs that reference them, in the home and in the
// column family's other paths. Thread-safe.
class MediumFileTracker {
 public:
  // Deleted files are evicted from `open_files`, the DB's open medium files.
  MediumFileTracker(std::string dir, MediumFileCache* open_files)
      : dir_(std::move(dir)), open_files_(open_files) {}

  // The DB's file system, to read SSTs and delete medium files through, and
  // its SstFileManager (held weakly: RocksDB closes a DB's own with the DB),
  // which rate-limits deletions. Builders set them; table readers only when
  // none is set (not `replace`), or a secondary, read-only instance or
  // SstFileReader would route the primary's deletions through its own.
  void SetFileSystem(const std::shared_ptr<FileSystem>& fs,
                     const std::shared_ptr<SstFileManager>& sst_file_manager,
                     bool replace = true);
  std::shared_ptr<FileSystem> file_system() const;

  // SSTs may also live in `dir` (a later entry of cf_paths or db_paths).
  // Idempotent. A directory new after seeding makes the next event seed
  // again, freeing nothing meanwhile: its SSTs' references were not counted.
  void AddSstDir(const std::string& dir);
  std::vector<std::string> sst_dirs() const;  // the home first

  // A builder of DB session `session_id` is writing SST `sst_number` and
  // perhaps medium file `sst_number`: until BuildFinished, seeding must not
  // take them for leftovers. A new session re-seeds: its leftovers are the
  // last session's.
  void BuildStarted(uint64_t sst_number, const std::string& session_id);
  void BuildFinished(uint64_t sst_number);
  // A builder finished medium file `number`: the DB's SstFileManager counts it.
  void MediumFileWritten(uint64_t number);

  // RocksDB reported that building SST `sst_number` failed: medium file
  // `sst_number`, if its builder finished it, is unreachable and goes now.
  void BuildFailed(uint64_t sst_number);

  // An SST exists with these properties. Idempotent. A new DB id (DestroyDB,
  // then Open) forgets everything known.
  void AddSst(uint64_t sst_number, const std::string& path,
              const TableProperties& props);
  // SST `sst_number` has been deleted; so are medium files it leaves
  // unreferenced.
  void RemoveSst(uint64_t sst_number);

  // Hard-links medium file `number` as "<number>.blob" for
  // hybridkv::CreateNewBackup (plugin/backup.cc). Concurrent backups share the
  // link; one no backup of this process holds is a killed one's, replaced.
  Status LinkForBackup(FileSystem* fs, uint64_t number);
  void UnlinkForBackup(FileSystem* fs, uint64_t number);

  // Seeds until it succeeds, and again when CURRENT in `db_dir` names another
  // MANIFEST. Reads without the lock; a call while another thread seeds
  // returns at once. With `in_recovery` (a flush of DB::Open's WAL recovery),
  // the next MANIFEST is the open's own (LOCK keeps other processes out), and
  // is taken as the seeding's without reading the SSTs again.
  void EnsureSeeded(const std::string& db_dir, bool in_recovery = false);

  bool seeded() const;

  // RocksDB is about to add SSTs it will not report created (FIFO's trivial
  // copy on a temperature change): nothing is freed until seeding again.
  void Reseed();

  // How often dead runs of files with another hard link are retried (Punch).
  void SetSharedRetryIntervalForTesting(std::chrono::steady_clock::duration d);

  // Forgets all that is known, to learn it again by seeding: the directory's
  // files were replaced while no DB had it open (a restore, DestroyDB).
  void Forget();

  // Adds to `refs` the references of every registered SST, by SST number,
  // when they are the DB's as it is now: seeded, and CURRENT in `db_dir` names
  // the MANIFEST it named at seeding. Else false: read the SSTs themselves.
  bool KnownRefs(const std::string& db_dir,
                 std::map<uint64_t, MediumRefs>* refs) const;

  // Dead medium bytes freed in place since this process began, and the
  // punches that failed (the next open makes them again).
  struct Punches {
    uint64_t bytes = 0;
    uint64_t failures = 0;
  };
  Punches GetPunches() const;

 private:
  // Byte runs of one medium file that nothing points into any more.
  struct DeadRuns {
    uint64_t medium_number = 0;
    MediumRuns runs;
  };

  // What a seeding read from disk, without the lock.
  struct SeedScan {
    std::map<uint64_t, MediumRefs> ssts;  // SSTs not known when it began
    std::vector<uint64_t> mediums;        // medium files listed
    std::vector<std::pair<uint64_t, Status>> unreadable;  // SSTs
  };
  // Lists the home's medium files and the SSTs of every directory in
  // `sst_dirs`, and reads those not in `known`.
  Status ScanDirectories(const std::shared_ptr<FileSystem>& fs,
                         const std::vector<std::string>& sst_dirs,
                         const std::set<uint64_t>& known,
                         SeedScan* scan) const;
  // Registers what `scan` found, less what events changed since it began;
  // then deletes the medium files nothing references and lists in `*dead`
  // the runs nothing points into. False, with nothing changed, when an SST
  // could not be read and is not being written.
  bool FinishSeedingLocked(SeedScan* scan, std::vector<DeadRuns>* dead);
  // Not seeded, and a seeding in progress is not to be trusted: what it read
  // may no longer be the DB, or lack what an event could not learn.
  void InvalidateSeedingLocked();
  void RegisterLocked(uint64_t sst_number, const MediumRefs& refs);
  // Drops SST `sst_number`'s registration and returns its references (none if
  // unregistered); medium files left without referencers leave referencers_.
  MediumRefs UnregisterLocked(uint64_t sst_number);
  std::vector<std::string> SstDirsLocked() const;
  std::shared_ptr<FileSystem> FileSystemLocked() const;
  void DeleteMediumFileLocked(uint64_t number);
  // Deletes "<number>.blob" when a backup killed mid-way left it as a hard
  // link of medium file `number` (RocksDB 11.x does not): it would keep the
  // file's space and block its punching.
  void RemoveBackupLinkLocked(uint64_t number);
  // Tells the SstFileManager, if any, medium file `number`'s allocated bytes.
  void AccountLocked(uint64_t number);
  // The runs of `medium_number` that some registered SST points into.
  MediumRuns LiveRunsLocked(uint64_t medium_number) const;
  // Punches `dead`, and runs deferred before, outside the lock: no new pointer
  // into them can appear. Files a reader of another session or process holds
  // wait for the next call (its older Version may point there); files with
  // another hard link (a checkpoint) are retried at most every
  // shared_retry_interval_, as each try opens the file.
  void Punch(std::vector<DeadRuns> dead);

  // What CURRENT in `db_dir` says now; empty when it cannot be read.
  std::string CurrentManifestLocked(const std::string& db_dir) const;
  // Forgets the SSTs and medium files learned; ForgetLocked also what this
  // session wrote.
  void ForgetSstsLocked();
  void ForgetLocked();

  const std::string dir_;
  MediumFileCache* const open_files_;
  mutable std::mutex mu_;
  std::vector<std::string> extra_sst_dirs_;  // besides dir_
  std::shared_ptr<FileSystem> fs_;
  std::weak_ptr<SstFileManager> sst_file_manager_;

  std::string db_id_;
  std::string session_id_;
  bool seeded_ = false;
  std::string seeded_manifest_;  // what CURRENT named when seeding began
  // Seeded in a recovery flush: the next MANIFEST is the open's own.
  bool seeded_in_recovery_ = false;
  bool seeding_ = false;        // a seeding is reading the disk
  uint64_t seeding_epoch_ = 0;  // bumped by InvalidateSeedingLocked
  // While seeding_: SSTs deleted (or failed) and medium files left without
  // referencers, which the seeding's reads may not show.
  std::set<uint64_t> removed_while_seeding_;
  std::set<uint64_t> orphaned_while_seeding_;
  std::map<uint64_t, MediumRefs> sst_refs_;  // by SST number
  // medium number -> the SSTs that reference it
  std::map<uint64_t, std::set<uint64_t>> referencers_;
  bool can_punch_ = false;  // the file system supports it, as far as known
  std::atomic<uint64_t> punched_bytes_{0};
  std::atomic<uint64_t> punch_failures_{0};
  std::map<uint64_t, MediumRuns> deferred_;  // by medium number; see Punch
  std::map<uint64_t, MediumRuns> deferred_shared_;  // ditto, hard-linked
  std::chrono::steady_clock::duration shared_retry_interval_ =
      std::chrono::seconds(10);
  std::chrono::steady_clock::time_point shared_retry_after_;
  std::map<uint64_t, int> backup_links_;  // medium number -> backups using it
  std::set<uint64_t> building_;           // SST numbers being written now
  std::set<uint64_t> written_here_;       // by this session: not leftovers
};

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
