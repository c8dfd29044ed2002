// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "plugin/hybridkv/blob/lifecycle/medium_lifecycle.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "file/filename.h"
#include "file/random_access_file_reader.h"
#include "file/sst_file_manager_impl.h"
#include "options/cf_options.h"
#include "plugin/hybridkv/blob/format/medium_refs.h"
#include "plugin/hybridkv/blob/lifecycle/hole_punch.h"
#include "plugin/hybridkv/blob/lifecycle/sst_refs.h"
#include "plugin/hybridkv/blob/medium/medium_file.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

void MediumFileTracker::SetFileSystem(
    const std::shared_ptr<FileSystem>& fs,
    const std::shared_ptr<SstFileManager>& sst_file_manager, bool replace) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!replace && fs_ != nullptr) return;
  fs_ = fs;
  sst_file_manager_ = sst_file_manager;
  can_punch_ = fs != nullptr && CanPunchHoles(*fs);
}

void MediumFileTracker::RemoveBackupLinkLocked(uint64_t number) {
  const std::string link = BlobFileName(dir_, number);
  struct stat medium_st, link_st;
  if (stat(link.c_str(), &link_st) == 0 &&
      stat(MediumFileName(dir_, number).c_str(), &medium_st) == 0 &&
      link_st.st_ino == medium_st.st_ino &&
      link_st.st_dev == medium_st.st_dev) {
    unlink(link.c_str());
  }
}

Status MediumFileTracker::LinkForBackup(FileSystem* fs, uint64_t number) {
  std::lock_guard<std::mutex> lock(mu_);
  if (backup_links_[number]++ > 0) {
    return Status::OK();
  }
  const std::string link = BlobFileName(dir_, number);
  fs->DeleteFile(link, IOOptions(), nullptr).PermitUncheckedError();
  IOStatus s =
      fs->LinkFile(MediumFileName(dir_, number), link, IOOptions(), nullptr);
  if (!s.ok()) backup_links_.erase(number);
  return s;
}

void MediumFileTracker::UnlinkForBackup(FileSystem* fs, uint64_t number) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = backup_links_.find(number);
  if (it == backup_links_.end() || --it->second > 0) {
    return;
  }
  backup_links_.erase(it);
  fs->DeleteFile(BlobFileName(dir_, number), IOOptions(), nullptr)
      .PermitUncheckedError();
}

void MediumFileTracker::DeleteMediumFileLocked(uint64_t number) {
  RemoveBackupLinkLocked(number);
  open_files_->Evict(number);
  deferred_.erase(number);
  deferred_shared_.erase(number);
  const std::string path = MediumFileName(dir_, number);
  Status s;
  if (std::shared_ptr<SstFileManager> sfm = sst_file_manager_.lock()) {
    // As RocksDB's own DeleteDBFile does (through its rate limit and trash,
    // when configured): the SstFileManager is always the Impl.
    s = static_cast<SstFileManagerImpl*>(sfm.get())->ScheduleFileDeletion(path,
                                                                          dir_);
  } else {
    s = FileSystemLocked()->DeleteFile(path, IOOptions(), nullptr);
  }
  s.PermitUncheckedError();  // else it goes at the next open
}

void MediumFileTracker::AccountLocked(uint64_t number) {
  if (std::shared_ptr<SstFileManager> sfm = sst_file_manager_.lock()) {
    const std::string path = MediumFileName(dir_, number);
    static_cast<SstFileManagerImpl*>(sfm.get())
        ->OnAddFile(path, AllocatedBytes(FileSystemLocked().get(), path))
        .PermitUncheckedError();
  }
}

void MediumFileTracker::MediumFileWritten(uint64_t number) {
  std::lock_guard<std::mutex> lock(mu_);
  AccountLocked(number);
}

void MediumFileTracker::AddSstDir(const std::string& dir) {
  std::lock_guard<std::mutex> lock(mu_);
  if (dir == dir_ || std::find(extra_sst_dirs_.begin(), extra_sst_dirs_.end(),
                               dir) != extra_sst_dirs_.end()) {
    return;
  }
  extra_sst_dirs_.push_back(dir);
  if (seeded_ || seeding_) InvalidateSeedingLocked();
}

std::vector<std::string> MediumFileTracker::sst_dirs() const {
  std::lock_guard<std::mutex> lock(mu_);
  return SstDirsLocked();
}

std::vector<std::string> MediumFileTracker::SstDirsLocked() const {
  std::vector<std::string> dirs{dir_};
  dirs.insert(dirs.end(), extra_sst_dirs_.begin(), extra_sst_dirs_.end());
  return dirs;
}

void MediumFileTracker::Forget() {
  std::lock_guard<std::mutex> lock(mu_);
  ForgetLocked();
}

void MediumFileTracker::ForgetSstsLocked() {
  open_files_->Clear();
  deferred_.clear();
  deferred_shared_.clear();
  InvalidateSeedingLocked();
  sst_refs_.clear();
  referencers_.clear();
}

void MediumFileTracker::ForgetLocked() {
  ForgetSstsLocked();
  written_here_.clear();
}

std::string MediumFileTracker::CurrentManifestLocked(
    const std::string& db_dir) const {
  std::string current;
  if (!ReadFileToString(FileSystemLocked().get(), db_dir + "/CURRENT", &current)
           .ok()) {
    current.clear();
  }
  return current;
}

std::shared_ptr<FileSystem> MediumFileTracker::file_system() const {
  std::lock_guard<std::mutex> lock(mu_);
  return FileSystemLocked();
}

std::shared_ptr<FileSystem> MediumFileTracker::FileSystemLocked() const {
  return fs_ ? fs_ : FileSystem::Default();
}

void MediumFileTracker::BuildStarted(uint64_t sst_number,
                                     const std::string& session_id) {
  std::lock_guard<std::mutex> lock(mu_);
  if (session_id != session_id_) {
    ForgetLocked();
    session_id_ = session_id;
  }
  building_.insert(sst_number);
  written_here_.insert(sst_number);
}

void MediumFileTracker::BuildFinished(uint64_t sst_number) {
  std::lock_guard<std::mutex> lock(mu_);
  building_.erase(sst_number);
}

void MediumFileTracker::BuildFailed(uint64_t sst_number) {
  std::lock_guard<std::mutex> lock(mu_);
  if (written_here_.erase(sst_number) == 0) {
    return;
  }
  // A seeding may have read the failed SST from disk before RocksDB deleted
  // it (RocksDB reports no deletion of it), or may be reading it now.
  UnregisterLocked(sst_number);
  if (seeding_) removed_while_seeding_.insert(sst_number);
  if (referencers_.count(sst_number) != 0) {
    return;  // not the failed build's medium file
  }
  if (FileSystemLocked()
          ->FileExists(MediumFileName(dir_, sst_number), IOOptions(), nullptr)
          .ok()) {
    DeleteMediumFileLocked(sst_number);
  }
}

void MediumFileTracker::AddSst(uint64_t sst_number, const std::string& path,
                               const TableProperties& props) {
  std::shared_ptr<FileSystem> fs;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!props.db_id.empty() && props.db_id != db_id_) {
      if (!db_id_.empty()) {  // a new DB in this directory: forget the old one
        ForgetLocked();
      }
      db_id_ = props.db_id;
    }
    if (sst_refs_.count(sst_number) != 0) {
      return;
    }
    fs = FileSystemLocked();
  }
  // Without the lock: an SST of another table format (a column family without
  // HybridTable) is read entry by entry, and builders must not wait.
  MediumRefs refs;
  const Status read = ReadMediumRefs(fs, path, props, &refs);
  std::lock_guard<std::mutex> lock(mu_);
  if (sst_refs_.count(sst_number) != 0) {
    return;  // a seeding registered it meanwhile
  }
  if (!read.ok()) {
    // Its references are unknown: nothing is freed until seeding, again at the
    // next event, reads them. Not registered, or seeding would skip it.
    InvalidateSeedingLocked();
    return;
  }
  RegisterLocked(sst_number, refs);
}

void MediumFileTracker::RegisterLocked(uint64_t sst_number,
                                       const MediumRefs& refs) {
  sst_refs_[sst_number] = refs;
  for (const auto& [number, ref] : refs) {
    referencers_[number].insert(sst_number);
  }
}

MediumRefs MediumFileTracker::UnregisterLocked(uint64_t sst_number) {
  auto it = sst_refs_.find(sst_number);
  if (it == sst_refs_.end()) {
    return {};
  }
  MediumRefs refs = std::move(it->second);
  sst_refs_.erase(it);
  for (const auto& [medium_number, ref] : refs) {
    auto holders = referencers_.find(medium_number);
    if (holders == referencers_.end()) continue;
    holders->second.erase(sst_number);
    if (holders->second.empty()) referencers_.erase(holders);
  }
  return refs;
}

MediumRuns MediumFileTracker::LiveRunsLocked(uint64_t medium_number) const {
  MediumRuns live;
  auto it = referencers_.find(medium_number);
  if (it == referencers_.end()) return live;
  for (uint64_t sst : it->second) {
    const MediumRefs& refs = sst_refs_.at(sst);
    const MediumRuns& runs = refs.at(medium_number).runs;
    live.insert(live.end(), runs.begin(), runs.end());
  }
  NormalizeRuns(&live);
  return live;
}

void MediumFileTracker::RemoveSst(uint64_t sst_number) {
  std::vector<DeadRuns> dead;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (seeding_) {
      // The seeding in progress may have read it from disk before RocksDB
      // deleted it: it must not register it when it finishes.
      removed_while_seeding_.insert(sst_number);
    }
    if (sst_refs_.count(sst_number) == 0) {
      return;
    }
    const MediumRefs refs = UnregisterLocked(sst_number);
    for (const auto& [medium_number, ref] : refs) {
      if (referencers_.count(medium_number) == 0) {
        // Before seeding, SSTs this process has not heard of may still
        // reference the file; the seeding in progress decides.
        if (seeded_) {
          DeleteMediumFileLocked(medium_number);
        } else if (seeding_) {
          orphaned_while_seeding_.insert(medium_number);
        }
        continue;
      }
      if (!seeded_ || !can_punch_) continue;
      const MediumRuns live = LiveRunsLocked(medium_number);
      const MediumRuns freed = SubtractRuns(ref.runs, live);
      if (!freed.empty()) {
        dead.push_back(
            {medium_number, WidenToDeadBlocks(freed, live, kPunchBlockSize)});
      }
    }
  }
  Punch(std::move(dead));
}

void MediumFileTracker::Punch(std::vector<DeadRuns> dead) {
  std::string session;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& [number, runs] : deferred_) {
      dead.push_back({number, std::move(runs)});
    }
    deferred_.clear();
    const auto now = std::chrono::steady_clock::now();
    if (!deferred_shared_.empty() && now >= shared_retry_after_) {
      for (auto& [number, runs] : deferred_shared_) {
        dead.push_back({number, std::move(runs)});
      }
      deferred_shared_.clear();
      shared_retry_after_ = now + shared_retry_interval_;
    }
    session = session_id_;
  }
  for (const DeadRuns& d : dead) {
    uint64_t freed = 0;
    bool shared = false;
    IOStatus s = IOStatus::Busy();
    if (!open_files_->HeldByOtherSession(d.medium_number, session)) {
      // The header and footer stay: every open verifies them.
      s = PunchHoles(MediumFileName(dir_, d.medium_number), d.runs,
                     MediumFileHeader::kEncodedLength,
                     MediumFileFooter::kEncodedLength, &freed, &shared);
    }
    punched_bytes_ += freed;
    std::lock_guard<std::mutex> lock(mu_);
    if (s.IsBusy()) {  // held by a reader, or shared: again later
      if (referencers_.count(d.medium_number) != 0) {
        MediumRuns& runs =
            (shared ? deferred_shared_ : deferred_)[d.medium_number];
        runs.insert(runs.end(), d.runs.begin(), d.runs.end());
        NormalizeRuns(&runs);
      }
      continue;
    }
    if (freed != 0) AccountLocked(d.medium_number);
    if (s.IsNotSupported()) {
      can_punch_ = false;  // files are kept whole until unreferenced
    } else if (!s.ok()) {
      punch_failures_++;  // the next open punches these runs again
    }
  }
}

void MediumFileTracker::InvalidateSeedingLocked() {
  seeded_ = false;
  seeding_epoch_++;
}

void MediumFileTracker::EnsureSeeded(const std::string& db_dir,
                                     bool in_recovery) {
  std::shared_ptr<FileSystem> fs;
  std::set<uint64_t> known;
  std::vector<std::string> dirs;
  std::string manifest;
  uint64_t epoch = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    manifest = CurrentManifestLocked(db_dir);
    if (seeded_ && seeded_in_recovery_ && !in_recovery) {
      // First event after the seeding open: CURRENT names its own MANIFEST.
      seeded_manifest_ = manifest;
      seeded_in_recovery_ = false;
    }
    if (seeded_ && manifest != seeded_manifest_) {
      ForgetSstsLocked();  // the DB was opened again since: learn it again
      // Medium files of finished builds are no longer this session's (their
      // SSTs are on disk, or failed); a session that builds nothing here (all
      // compactions remote) must not keep them through BuildStarted.
      for (auto it = written_here_.begin(); it != written_here_.end();) {
        it = building_.count(*it) != 0 ? std::next(it)
                                       : written_here_.erase(it);
      }
    }
    if (seeded_ || seeding_) {
      return;  // a seeding on another thread finishes what this one would
    }
    seeding_ = true;
    epoch = seeding_epoch_;
    removed_while_seeding_.clear();
    orphaned_while_seeding_.clear();
    fs = FileSystemLocked();
    for (const auto& [number, entry] : sst_refs_) known.insert(number);
    dirs = SstDirsLocked();
  }
  // SSTs are read without the lock; what events change meanwhile is
  // reconciled below.
  SeedScan scan;
  Status s = ScanDirectories(fs, dirs, known, &scan);
  std::vector<DeadRuns> dead;
  {
    std::lock_guard<std::mutex> lock(mu_);
    seeding_ = false;
    // Forgotten, replaced or made unknowable meanwhile: retried next event.
    if (!s.ok() || epoch != seeding_epoch_ ||
        !FinishSeedingLocked(&scan, &dead)) {
      return;
    }
    seeded_manifest_ = std::move(manifest);
    seeded_in_recovery_ = in_recovery;
  }
  Punch(std::move(dead));
}

Status MediumFileTracker::ScanDirectories(
    const std::shared_ptr<FileSystem>& fs,
    const std::vector<std::string>& sst_dirs, const std::set<uint64_t>& known,
    SeedScan* scan) const {
  std::map<uint64_t, std::string> ssts;  // number -> path
  for (const std::string& dir : sst_dirs) {
    std::vector<std::string> children;
    IOStatus io = fs->GetChildren(dir, IOOptions(), &children, nullptr);
    if (!io.ok()) {
      return io;
    }
    for (const std::string& name : children) {
      if (const uint64_t medium = MediumNumberOf(name)) {
        // Flushes write medium files in the home only.
        if (dir == dir_) scan->mediums.push_back(medium);
      } else if (const uint64_t number = SstNumberOf(name)) {
        if (known.count(number) == 0) ssts[number] = dir + "/" + name;
      }
    }
  }
  for (const auto& [number, path] : ssts) {
    std::unique_ptr<TableProperties> props;
    Status s = ReadSstProperties(fs, path, &props);
    if (s.IsPathNotFound() || s.IsNotFound()) {
      continue;  // deleted since the listing
    }
    if (!s.ok()) {
      // Fine if it is being written: its builder and events report it.
      scan->unreadable.emplace_back(number, s);
      continue;
    }
    // An SST not built by HybridKV (stock RocksDB compacted this DB) may hold
    // copied pointers, unless there is no medium file for them to point to.
    MediumRefs& refs = scan->ssts[number];
    if (!scan->mediums.empty()) {
      s = ReadMediumRefs(fs, path, *props, &refs);
      if (!s.ok()) {
        return s;  // retried at the next event; nothing is deleted meanwhile
      }
    }
  }
  return Status::OK();
}

bool MediumFileTracker::FinishSeedingLocked(SeedScan* scan,
                                            std::vector<DeadRuns>* dead) {
  for (const auto& [number, status] : scan->unreadable) {
    if (building_.count(number) == 0 && sst_refs_.count(number) == 0 &&
        removed_while_seeding_.count(number) == 0) {
      return false;  // unreadable: seeding is retried at the next event
    }
  }
  for (auto& [number, refs] : scan->ssts) {
    // Registered by its creation event meanwhile, or gone since it was read.
    if (sst_refs_.count(number) != 0 ||
        removed_while_seeding_.count(number) != 0) {
      continue;
    }
    RegisterLocked(number, refs);
  }
  seeded_ = true;
  std::set<uint64_t> mediums(scan->mediums.begin(), scan->mediums.end());
  mediums.insert(orphaned_while_seeding_.begin(),
                 orphaned_while_seeding_.end());
  for (uint64_t m : mediums) {
    if (referencers_.count(m) == 0) {
      // Leftovers: no SST on disk points into them and no builder of this
      // session wrote them; also files orphaned while the seeding read.
      if (written_here_.count(m) == 0 || orphaned_while_seeding_.count(m)) {
        DeleteMediumFileLocked(m);
      }
      continue;
    }
    if (backup_links_.count(m) == 0) RemoveBackupLinkLocked(m);
    AccountLocked(m);  // written by an earlier session
    // Runs nothing points into, whose punch a crash may have lost (Punch
    // keeps the header and footer). Files this session writes now are not
    // complete yet; their runs are all live.
    if (!can_punch_ || building_.count(m) != 0) continue;
    MediumRuns freed = SubtractRuns(WholeMediumFile(), LiveRunsLocked(m));
    if (!freed.empty()) dead->push_back({m, std::move(freed)});
  }
  removed_while_seeding_.clear();
  orphaned_while_seeding_.clear();
  return true;
}

bool MediumFileTracker::KnownRefs(const std::string& db_dir,
                                  std::map<uint64_t, MediumRefs>* refs) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (!seeded_ || CurrentManifestLocked(db_dir) != seeded_manifest_) {
    return false;
  }
  refs->insert(sst_refs_.begin(), sst_refs_.end());
  return true;
}

void MediumFileTracker::SetSharedRetryIntervalForTesting(
    std::chrono::steady_clock::duration d) {
  std::lock_guard<std::mutex> lock(mu_);
  shared_retry_interval_ = d;
  shared_retry_after_ = std::chrono::steady_clock::time_point();
}

void MediumFileTracker::Reseed() {
  std::lock_guard<std::mutex> lock(mu_);
  InvalidateSeedingLocked();
}

bool MediumFileTracker::seeded() const {
  std::lock_guard<std::mutex> lock(mu_);
  return seeded_;
}

MediumFileTracker::Punches MediumFileTracker::GetPunches() const {
  return {punched_bytes_.load(), punch_failures_.load()};
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
