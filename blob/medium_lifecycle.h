// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// The medium-file lifecycle, without garbage collection: a medium file is
// deleted as soon as no SST file that points into it exists any more.
//
// - Each SST's table properties list the medium files it references
// (medium_refs.h).
// - HybridKVListener adds an SST's references when RocksDB reports it created
//   (OnTableFileCreated, which precedes the version edit that makes it live)
//   and drops them when RocksDB reports it deleted (OnTableFileDeleted, which
//   follows the physical deletion: SSTs pinned by old Versions, snapshots'
//   iterators or DisableFileDeletions stay, and so do their medium files).
// - A compaction's outputs are reported before its inputs are deleted, so a
// pointer copied
//   into a new SST keeps its medium file alive.
// - What events do not tell (references of SSTs written before this process,
// crashes,
//   failed builds) comes from seeding: the properties of every SST file on
//   disk, read once. No file is deleted before seeding succeeds, and seeding
//   deletes the medium files that no SST on disk references and that this
//   process did not write (crash leftovers).
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "plugin/hybridkv/blob/medium_refs.h"
#include "rocksdb/file_system.h"
#include "rocksdb/listener.h"
#include "rocksdb/sst_file_manager.h"
#include "rocksdb/table_properties.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

// One DB directory's medium files and the SSTs that reference them.
// Thread-safe.
class MediumFileTracker {
 public:
  explicit MediumFileTracker(std::string dir) : dir_(std::move(dir)) {}

  // The file system to read SSTs and delete medium files through (the DB's
  // own), and the DB's SstFileManager, which rate-limits deletions as it does
  // for SSTs when configured. The latest DB session's builders and readers set
  // them; until then, the default file system and immediate deletion. The
  // SstFileManager is held weakly: RocksDB closes a DB's own one with the DB.
  void SetFileSystem(
      const std::shared_ptr<FileSystem>& fs,
      const std::shared_ptr<SstFileManager>& sst_file_manager = nullptr);
  std::shared_ptr<FileSystem> file_system() const;

  // A builder of DB session `session_id` is writing SST `sst_number` and
  // perhaps medium file `sst_number`: seeding must not treat them as leftovers.
  // Until BuildFinished. A new session (the DB was reopened) re-seeds: its
  // leftovers are the last session's.
  void BuildStarted(uint64_t sst_number, const std::string& session_id);
  void BuildFinished(uint64_t sst_number);

  // An SST exists with these properties. Idempotent. A different DB id than
  // before means the directory holds a new DB (DestroyDB, then Open):
  // everything known is forgotten.
  void AddSst(uint64_t sst_number, const std::string& path,
              const TableProperties& props);
  // SST `sst_number` has been deleted; medium files left without references are
  // deleted.
  void RemoveSst(uint64_t sst_number);

  // Reads the properties of every SST on disk, once it succeeds; see the file
  // comment.
  void EnsureSeeded();

  bool seeded() const;

  // Medium bytes on disk against the bytes live SSTs still point to. A file is
  // held whole while any SST references it, so pointers dropped by overwrites,
  // or whose values were already written back inline, leave dead bytes that
  // only go with the file. Exact between compactions; while a compaction's
  // outputs and inputs both exist, the live figure counts both.
  struct Garbage {
    uint64_t file_bytes = 0;  // medium files referenced by some SST
    uint64_t live_bytes = 0;  // records live SSTs point to
    uint64_t dead_bytes() const {
      return file_bytes > live_bytes ? file_bytes - live_bytes : 0;
    }
    // The files holding the most dead bytes, most first, each with the SSTs
    // (all of one column family) that keep it.
    struct HeldFile {
      uint64_t number = 0;
      uint64_t dead_bytes = 0;
      uint32_t cf = 0;
      std::vector<uint64_t> ssts;
    };
    std::vector<HeldFile> worst;
  };
  static constexpr size_t kWorstFilesReported = 16;
  // With `current`, only those SSTs count as references (the SSTs of the
  // current Versions: the others go when old Versions are released), and files
  // that only other SSTs reference are left out.
  Garbage GetGarbage(const std::set<uint64_t>* current = nullptr);

  // At most one HybridKV rewrite (medium_compactions.h) runs per DB at a time.
  bool TryBeginRewrite() { return !rewrite_running_.exchange(true); }
  void EndRewrite() { rewrite_running_.store(false); }

  // SSTs of column family `cf` among `sst_numbers` that reference medium
  // files.
  std::vector<uint64_t> WithReferences(
      uint32_t cf, const std::vector<uint64_t>& sst_numbers) const;

 private:
  struct SstEntry {
    uint32_t cf = 0;
    MediumRefs refs;
  };

  Status SeedLocked();
  void RegisterLocked(uint64_t sst_number, uint32_t cf, const MediumRefs& refs);
  void DeleteMediumFileLocked(uint64_t number);
  void UnrefLocked(uint64_t medium_number);

  const std::string dir_;
  std::atomic<bool> rewrite_running_{false};
  mutable std::mutex mu_;
  std::shared_ptr<FileSystem> fs_;
  std::weak_ptr<SstFileManager> sst_file_manager_;
  void ForgetLocked();

  std::string db_id_;
  std::string session_id_;
  bool seeded_ = false;
  std::map<uint64_t, SstEntry> sst_refs_;     // by SST number
  std::map<uint64_t, uint64_t> medium_refs_;  // medium number -> SST count
  std::map<uint64_t, uint64_t> file_bytes_;   // medium number -> file size
  std::set<uint64_t> building_;               // SST numbers being written now
  std::set<uint64_t> written_here_;           // by this session: not leftovers
};

// The tracker of the DB whose SSTs live in `dir`. Never null; lives for the
// process.
MediumFileTracker* TrackerFor(const std::string& dir);

// HybridKVListener: drives MediumFileTracker from RocksDB's events. Required in
// DBOptions `listeners` of every DB with a HybridTable column family.
class HybridKVListener : public EventListener {
 public:
  static const char* kClassName() { return "HybridKVListener"; }
  const char* Name() const override { return kClassName(); }

  void OnTableFileCreated(const TableFileCreationInfo& info) override;
  void OnTableFileDeleted(const TableFileDeletionInfo& info) override;
  void OnFlushCompleted(DB* db, const FlushJobInfo& info) override;
  void OnCompactionCompleted(DB* db, const CompactionJobInfo& info) override;
};

// "<dir>/000123.sst" -> 123; 0 when `path` is not an SST file name.
uint64_t SstNumberOf(const std::string& path);

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
