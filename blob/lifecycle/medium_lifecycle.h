// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// The medium-file lifecycle, without garbage collection and without rewrites:
// the space a medium file holds follows what SSTs still point to.
//
// - Each SST's table properties list the medium files it references and the
//   byte runs of the records it points to (medium_refs.h).
// - HybridKVListener (plugin/) adds an SST's references when RocksDB reports it
// created
//   (OnTableFileCreated, which precedes the version edit that makes it live)
//   and drops them when RocksDB reports it deleted (OnTableFileDeleted, which
//   follows the physical deletion: SSTs pinned by old Versions, snapshots'
//   iterators or DisableFileDeletions stay, and so do their references).
// - A compaction's outputs are reported before its inputs are deleted, so a
//   pointer copied into a new SST keeps its record alive.
// - When an SST goes, the byte runs it pointed to that no other SST points to
//   are dead: the records were written back inline at the merge level, or
//   their keys were overwritten or deleted. Medium files are key-sorted, so a
//   merged key range is one contiguous run. Those runs are punched out of the
//   file in place (hole_punch.h), and the file itself is deleted with its last
//   reference. No SST is ever rewritten to free medium space.
// - What events do not tell (references of SSTs written before this process,
//   crashes, failed builds) comes from seeding: the properties of every SST
//   file on disk, read once. No file is deleted, and no run found dead,
//   before seeding succeeds (runs found dead before, and deferred, may still
//   be punched: nothing can point into them again). Seeding deletes the
//   medium files that no SST on disk references
//   and that this process did not write (crash leftovers), and punches every
//   run of the others that no SST points into (punches lost in a crash).
// - What was learned holds only for the DB as it was seen: another process
//   may open the directory between two opens by this one, and compact it, or
//   a copy may replace its files. Every open writes a new MANIFEST, so before
//   acting on an event the tracker checks that CURRENT still names the
//   MANIFEST it named at seeding, and seeds again from the files on disk
//   when it does not (a new MANIFEST within a session, past
//   max_manifest_file_size, costs one more seeding). A FIFO compaction that
//   changes files' temperature may copy SSTs without reporting them (RocksDB
//   10+): its start makes the tracker seed again too.
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

#include "plugin/hybridkv/blob/lifecycle/build_registry.h"
#include "plugin/hybridkv/blob/medium/medium_file_cache.h"
#include "plugin/hybridkv/blob/medium/medium_refs.h"
#include "rocksdb/file_system.h"
#include "rocksdb/listener.h"
#include "rocksdb/sst_file_manager.h"
#include "rocksdb/table_properties.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

// One DB directory's medium files and the SSTs that reference them.
// Thread-safe.
class MediumFileTracker : public BuildRegistry {
 public:
  // `open_files`: the DB's open medium files, from which deleted files are
  // evicted.
  MediumFileTracker(std::string dir, MediumFileCache* open_files)
      : dir_(std::move(dir)), open_files_(open_files) {}

  // The file system to read SSTs and delete medium files through (the DB's
  // own), and the DB's SstFileManager, which rate-limits deletions as it does
  // for SSTs when configured. The latest DB session's builders set them;
  // until then, those of the first table reader, and before that the default
  // file system and immediate deletion. Readers do not replace them: a
  // secondary or read-only instance, or an SstFileReader, of the same
  // directory would otherwise route the primary's deletions through its own
  // file system and SstFileManager. The SstFileManager is held weakly:
  // RocksDB closes a DB's own one with the DB.
  void SetFileSystem(
      const std::shared_ptr<FileSystem>& fs,
      const std::shared_ptr<SstFileManager>& sst_file_manager) override;
  void SetFileSystemIfUnset(
      const std::shared_ptr<FileSystem>& fs,
      const std::shared_ptr<SstFileManager>& sst_file_manager);
  std::shared_ptr<FileSystem> file_system() const;

  // A builder of DB session `session_id` is writing SST `sst_number` and
  // perhaps medium file `sst_number`: seeding must not treat them as leftovers.
  // Until BuildFinished. A new session (the DB was reopened) re-seeds: its
  // leftovers are the last session's.
  void BuildStarted(uint64_t sst_number,
                    const std::string& session_id) override;
  void BuildFinished(uint64_t sst_number) override;
  void MediumFileWritten(const std::string& path) override;

  // RocksDB reported that building SST `sst_number` failed, after its
  // builder may have finished medium file `sst_number` (the SST's sync or
  // close failed, say): nothing can point into that file, so it goes now,
  // not at the next open.
  void BuildFailed(uint64_t sst_number);

  // An SST exists with these properties. Idempotent. A different DB id than
  // before means the directory holds a new DB (DestroyDB, then Open):
  // everything known is forgotten.
  void AddSst(uint64_t sst_number, const std::string& path,
              const TableProperties& props);
  // SST `sst_number` has been deleted; medium files left without references are
  // deleted.
  void RemoveSst(uint64_t sst_number);

  // hybridkv::CreateNewBackup gives medium file `number` the name
  // "<number>.blob", a hard link in the DB directory, for the length of the
  // backup (plugin/backup.cc says why). Backups running at once share the
  // link, which goes with the last of them; a link no backup of this process
  // holds is a leftover of one that was killed, and is replaced. `fs`: the
  // DB's file system.
  Status LinkForBackup(FileSystem* fs, uint64_t number);
  void UnlinkForBackup(FileSystem* fs, uint64_t number);

  // Reads the properties of every SST on disk, once it succeeds, and again
  // when CURRENT in `db_dir` (the DB's directory, which may not be the SSTs')
  // names another MANIFEST than then; see the file comment. The reading holds
  // no lock: builders and events do not wait for it, and a call while another
  // thread seeds returns at once, leaving the work to it. `in_recovery`: the
  // event is a flush of DB::Open's WAL recovery, before the open writes its
  // new MANIFEST. The next MANIFEST is then the open's own (the DB's LOCK
  // keeps other processes out until it is written), and is taken as the
  // seeding's without reading the SSTs again.
  void EnsureSeeded(const std::string& db_dir, bool in_recovery = false);

  bool seeded() const;

  // RocksDB is about to add SSTs it will not report created (FIFO's trivial
  // copy of a file whose temperature changes, which keeps the pointers of the
  // file it copies): until the next seeding reads the SSTs on disk, nothing
  // is deleted or punched by what is known.
  void Reseed();

  // How often the dead runs of files shared with another hard link are tried
  // again (see Punch); 10 s unless a test says otherwise.
  void SetSharedRetryIntervalForTesting(std::chrono::steady_clock::duration d);

  // Forgets everything known of the directory's SSTs and medium files, to
  // learn it again by seeding: for a directory whose files were replaced
  // while no DB had it open (a restore into it, DestroyDB).
  void Forget();

  // The references of every registered SST, by SST number, when they are of
  // the DB as it is now: seeded, and CURRENT in `db_dir` names the MANIFEST it
  // named at seeding. False otherwise: read the SSTs themselves.
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
  void SetFileSystemLocked(
      const std::shared_ptr<FileSystem>& fs,
      const std::shared_ptr<SstFileManager>& sst_file_manager);
  struct SstEntry {
    uint32_t cf = 0;
    MediumRefs refs;
  };

  // Byte runs of one medium file that nothing points into any more.
  struct DeadRuns {
    uint64_t medium_number = 0;
    MediumRuns runs;
  };

  // What a seeding read from disk, without the lock.
  struct SeedScan {
    struct Sst {
      uint32_t cf = 0;
      MediumRefs refs;
    };
    std::map<uint64_t, Sst> ssts;   // SSTs not known when it began
    std::vector<uint64_t> mediums;  // medium files listed
    std::vector<std::pair<uint64_t, Status>> unreadable;  // SSTs
  };
  // Lists the directory and reads the SSTs not in `known`.
  Status ScanDirectory(const std::shared_ptr<FileSystem>& fs,
                       const std::set<uint64_t>& known, SeedScan* scan) const;
  // Registers what `scan` found, less what events changed since it began;
  // then deletes the medium files nothing references and lists in `*dead`
  // the runs nothing points into. False, with nothing changed, when an SST
  // could not be read and is not being written.
  bool FinishSeedingLocked(SeedScan* scan, std::vector<DeadRuns>* dead);
  // Not seeded, and a seeding in progress is not to be trusted: what it read
  // may no longer be the DB, or lacks what an event could not learn.
  void InvalidateSeedingLocked();
  void RegisterLocked(uint64_t sst_number, uint32_t cf, const MediumRefs& refs);
  // Drops SST `sst_number`'s registration and returns its references (none
  // when it was not registered); a medium file left without referencers
  // leaves referencers_.
  MediumRefs UnregisterLocked(uint64_t sst_number);
  // The DB's file system once a builder or reader set it, else the default.
  std::shared_ptr<FileSystem> FileSystemLocked() const;
  void DeleteMediumFileLocked(uint64_t number);
  // Deletes "<number>.blob" when it is a hard link of medium file `number`
  // (same inode) that a backup left: killed mid-way, RocksDB 11.x does not
  // delete it, and it would keep the file's space and block its punching.
  void RemoveBackupLinkLocked(uint64_t number);
  // Tells the SstFileManager, when there is one, that medium file `number`
  // now occupies its allocated bytes on disk.
  void AccountLocked(uint64_t number);
  // The runs of `medium_number` that some registered SST points into.
  MediumRuns LiveRunsLocked(uint64_t medium_number) const;
  // Punches `dead`, and the runs deferred before, outside the lock: only runs
  // no SST points into are listed, and no new pointer into them can appear.
  // Runs of a file that a reader of another DB session or process holds (a
  // secondary, a read-only instance) are deferred to the next call: its older
  // Version may still point into them. So are runs of a file shared with
  // another hard link (a checkpoint's), tried again at most every
  // shared_retry_interval_: a checkpoint may be kept for days, and each try
  // opens the file.
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
  std::shared_ptr<FileSystem> fs_;
  std::weak_ptr<SstFileManager> sst_file_manager_;

  std::string db_id_;
  std::string session_id_;
  bool seeded_ = false;
  std::string seeded_manifest_;  // what CURRENT named when seeding began
  // Seeded in a recovery flush: the next MANIFEST is the open's own.
  bool seeded_in_recovery_ = false;
  bool seeding_ = false;         // a seeding is reading the disk
  uint64_t seeding_epoch_ = 0;   // bumped by InvalidateSeedingLocked
  // While seeding_: SSTs deleted (or failed) and medium files left without
  // referencers, which the seeding's reads may not show.
  std::set<uint64_t> removed_while_seeding_;
  std::set<uint64_t> orphaned_while_seeding_;
  std::map<uint64_t, SstEntry> sst_refs_;  // by SST number
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
  std::set<uint64_t> building_;      // SST numbers being written now
  std::set<uint64_t> written_here_;  // by this session: not leftovers
};

// Reads the table properties of the SST at `path`, whatever its table format.
Status ReadSstProperties(const std::shared_ptr<FileSystem>& fs,
                         const std::string& path,
                         std::unique_ptr<TableProperties>* props);

// The medium files the SST at `path` references: from its properties, or by
// reading its entries when it was not built by HybridKV.
Status ReadSstMediumRefs(const std::shared_ptr<FileSystem>& fs,
                         const std::string& path, MediumRefs* refs);

// "<dir>/000123.sst" -> 123; 0 when `path` is not an SST file name.
uint64_t SstNumberOf(const std::string& path);

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
