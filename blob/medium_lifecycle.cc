// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "plugin/hybridkv/blob/medium_lifecycle.h"

#include <algorithm>
#include <cstdlib>

#include "file/random_access_file_reader.h"
#include "file/sst_file_manager_impl.h"
#include "options/cf_options.h"
#include "plugin/hybridkv/blob/medium_compactions.h"
#include "plugin/hybridkv/blob/medium_file.h"
#include "plugin/hybridkv/blob/medium_refs.h"
#include "table/format.h"
#include "table/meta_blocks.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

bool EndsWith(const std::string& s, const char* suffix) {
  const size_t n = std::char_traits<char>::length(suffix);
  return s.size() > n && s.compare(s.size() - n, n, suffix) == 0;
}

uint64_t LeadingNumber(const std::string& name) {
  return std::strtoull(name.c_str(), nullptr, 10);
}

}  // namespace

uint64_t SstNumberOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  const std::string name =
      slash == std::string::npos ? path : path.substr(slash + 1);
  return EndsWith(name, ".sst") ? LeadingNumber(name) : 0;
}

void MediumFileTracker::SetFileSystem(
    const std::shared_ptr<FileSystem>& fs,
    const std::shared_ptr<SstFileManager>& sst_file_manager) {
  std::lock_guard<std::mutex> lock(mu_);
  fs_ = fs;
  sst_file_manager_ = sst_file_manager;
}

void MediumFileTracker::DeleteMediumFileLocked(uint64_t number) {
  const std::string path = MediumFileName(dir_, number);
  Status s;
  if (std::shared_ptr<SstFileManager> sfm = sst_file_manager_.lock()) {
    // As RocksDB's own DeleteDBFile does: the SstFileManager is always the
    // Impl.
    s = static_cast<SstFileManagerImpl*>(sfm.get())
            ->ScheduleUnaccountedFileDeletion(path, dir_);
  } else {
    s = (fs_ ? fs_ : FileSystem::Default())
            ->DeleteFile(path, IOOptions(), nullptr);
  }
  s.PermitUncheckedError();  // a file that cannot be deleted now goes at the
                             // next open
}

void MediumFileTracker::ForgetLocked() {
  seeded_ = false;
  sst_refs_.clear();
  medium_refs_.clear();
  file_bytes_.clear();
  written_here_.clear();
}

std::shared_ptr<FileSystem> MediumFileTracker::file_system() const {
  std::lock_guard<std::mutex> lock(mu_);
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

void MediumFileTracker::AddSst(uint64_t sst_number, const std::string& path,
                               const TableProperties& props) {
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
  MediumRefs refs;
  bool known = false;
  GetMediumRefs(props, &refs, &known).PermitUncheckedError();
  if (!known) {  // not built by HybridKV: read its entries
    ScanMediumRefs(fs_ ? fs_ : FileSystem::Default(), path, &refs)
        .PermitUncheckedError();
  }
  RegisterLocked(sst_number, props.column_family_id, refs);
}

void MediumFileTracker::RegisterLocked(uint64_t sst_number, uint32_t cf,
                                       const MediumRefs& refs) {
  SstEntry& entry = sst_refs_[sst_number];
  entry.cf = cf;
  entry.refs = refs;
  for (const auto& [number, ref] : refs) {
    medium_refs_[number]++;
  }
}

void MediumFileTracker::RemoveSst(uint64_t sst_number) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = sst_refs_.find(sst_number);
  if (it == sst_refs_.end()) {
    return;
  }
  const MediumRefs refs = std::move(it->second.refs);
  sst_refs_.erase(it);
  for (const auto& ref : refs) {
    UnrefLocked(ref.first);
  }
}

void MediumFileTracker::UnrefLocked(uint64_t medium_number) {
  auto it = medium_refs_.find(medium_number);
  if (it == medium_refs_.end() || --it->second > 0) {
    return;
  }
  medium_refs_.erase(it);
  file_bytes_.erase(medium_number);
  // Before seeding, SSTs this process has not heard of may still reference the
  // file.
  if (seeded_) {
    DeleteMediumFileLocked(medium_number);
  }
}

void MediumFileTracker::EnsureSeeded() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!seeded_) {
    SeedLocked().PermitUncheckedError();  // retried at the next event
  }
}

Status MediumFileTracker::SeedLocked() {
  const std::shared_ptr<FileSystem> fs = fs_ ? fs_ : FileSystem::Default();
  std::vector<std::string> children;
  IOStatus io = fs->GetChildren(dir_, IOOptions(), &children, nullptr);
  if (!io.ok()) {
    return io;
  }
  Options options;
  options.env = Env::Default();
  ImmutableOptions ioptions(options);
  std::map<uint64_t, std::pair<std::string, std::unique_ptr<TableProperties>>>
      found;
  std::vector<uint64_t> mediums;
  for (const std::string& name : children) {
    if (EndsWith(name, kMediumFileSuffix)) {
      mediums.push_back(LeadingNumber(name));
      continue;
    }
    const uint64_t number = SstNumberOf(name);
    if (number == 0 || sst_refs_.count(number) != 0) {
      continue;
    }
    const std::string path = dir_ + "/" + name;
    uint64_t size = 0;
    std::unique_ptr<RandomAccessFileReader> file;
    Status s = fs->GetFileSize(path, IOOptions(), &size, nullptr);
    if (s.ok()) {
      s = RandomAccessFileReader::Create(fs, path, FileOptions(), &file,
                                         nullptr);
    }
    std::unique_ptr<TableProperties> props;
    ReadOptions read_options;
    read_options.io_activity = CurrentIOActivity();
    // The inner table format is not known here: try each of RocksDB's.
    for (uint64_t magic :
         {kBlockBasedTableMagicNumber, kPlainTableMagicNumber,
          kLegacyPlainTableMagicNumber, kCuckooTableMagicNumber}) {
      if (file == nullptr) break;
      s = ReadTableProperties(file.get(), size, magic, ioptions, read_options,
                              &props);
      if (!s.IsCorruption()) break;  // a wrong magic number is Corruption
    }
    if (s.IsPathNotFound() || s.IsNotFound()) {
      continue;  // deleted since the listing
    }
    if (!s.ok()) {
      if (building_.count(number) != 0) {
        continue;  // being written: its builder and OnTableFileCreated will
                   // report it
      }
      return s;  // unreadable: seeding is retried at the next event
    }
    found.emplace(number, std::make_pair(path, std::move(props)));
  }
  for (auto& [number, entry] : found) {
    const auto& [path, props] = entry;
    MediumRefs refs;
    bool known = false;
    GetMediumRefs(*props, &refs, &known).PermitUncheckedError();
    // An SST not built by HybridKV (stock RocksDB compacted this DB) may still
    // hold copied pointers. Without medium files there is nothing they could
    // point to.
    if (!known && !mediums.empty()) {
      Status s = ScanMediumRefs(fs, path, &refs);
      if (!s.ok()) {
        return s;  // retried at the next event; nothing is deleted meanwhile
      }
    }
    RegisterLocked(number, props->column_family_id, refs);
  }
  seeded_ = true;
  // Leftovers of earlier sessions: no SST on disk points into them, and no
  // builder of this session wrote them.
  for (uint64_t m : mediums) {
    if (medium_refs_.count(m) == 0 && written_here_.count(m) == 0) {
      DeleteMediumFileLocked(m);
    }
  }
  return Status::OK();
}

bool MediumFileTracker::seeded() const {
  std::lock_guard<std::mutex> lock(mu_);
  return seeded_;
}

MediumFileTracker::Garbage MediumFileTracker::GetGarbage(
    const std::set<uint64_t>* current) {
  std::lock_guard<std::mutex> lock(mu_);
  Garbage g;
  if (!seeded_) {
    return g;  // SSTs this process has not heard of may hold references
  }
  struct Holders {
    uint64_t live = 0;
    uint32_t cf = 0;
    std::vector<uint64_t> ssts;
  };
  std::map<uint64_t, Holders> by_file;
  for (const auto& [sst, entry] : sst_refs_) {
    if (current != nullptr && current->count(sst) == 0) continue;
    for (const auto& [number, ref] : entry.refs) {
      Holders& h = by_file[number];
      h.live += ref.record_bytes;
      h.cf = entry.cf;
      h.ssts.push_back(sst);
    }
  }
  const std::shared_ptr<FileSystem> fs = fs_ ? fs_ : FileSystem::Default();
  for (auto& [number, h] : by_file) {
    auto size = file_bytes_.find(number);
    if (size == file_bytes_.end()) {
      // Medium files never change once written: one stat per file.
      uint64_t bytes = 0;
      if (!fs->GetFileSize(MediumFileName(dir_, number), IOOptions(), &bytes,
                           nullptr)
               .ok()) {
        continue;  // still being written
      }
      size = file_bytes_.emplace(number, bytes).first;
    }
    const uint64_t live = std::min(h.live, size->second);
    g.file_bytes += size->second;
    g.live_bytes += live;
    if (size->second > live) {
      g.worst.push_back({number, size->second - live, h.cf, std::move(h.ssts)});
    }
  }
  std::sort(g.worst.begin(), g.worst.end(), [](const auto& a, const auto& b) {
    return a.dead_bytes > b.dead_bytes;
  });
  if (g.worst.size() > kWorstFilesReported) {
    g.worst.resize(kWorstFilesReported);
  }
  return g;
}

std::vector<uint64_t> MediumFileTracker::WithReferences(
    uint32_t cf, const std::vector<uint64_t>& sst_numbers) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<uint64_t> result;
  for (uint64_t sst : sst_numbers) {
    auto it = sst_refs_.find(sst);
    if (it != sst_refs_.end() && it->second.cf == cf &&
        !it->second.refs.empty()) {
      result.push_back(sst);
    }
  }
  return result;
}

MediumFileTracker* TrackerFor(const std::string& dir) {
  static std::mutex mu;
  static auto* registry =
      new std::map<std::string, std::unique_ptr<MediumFileTracker>>();
  std::lock_guard<std::mutex> lock(mu);
  auto& slot = (*registry)[dir];
  if (slot == nullptr) {
    slot = std::make_unique<MediumFileTracker>(dir);
  }
  return slot.get();
}

void HybridKVListener::OnTableFileCreated(const TableFileCreationInfo& info) {
  const uint64_t number = SstNumberOf(info.file_path);
  if (!info.status.ok() || number == 0) {
    return;
  }
  MediumFileTracker* tracker = TrackerFor(DirName(info.file_path));
  tracker->AddSst(number, info.file_path, info.table_properties);
  tracker->EnsureSeeded();
}

void HybridKVListener::OnTableFileDeleted(const TableFileDeletionInfo& info) {
  const uint64_t number = SstNumberOf(info.file_path);
  if (!info.status.ok() || number == 0) {
    return;
  }
  MediumFileTracker* tracker = TrackerFor(DirName(info.file_path));
  tracker->EnsureSeeded();
  tracker->RemoveSst(number);
}

void HybridKVListener::OnFlushCompleted(DB* /*db*/, const FlushJobInfo& info) {
  TrackerFor(DirName(info.file_path))->EnsureSeeded();
}

void HybridKVListener::OnCompactionCompleted(DB* db,
                                             const CompactionJobInfo& info) {
  if (!info.output_files.empty()) {
    TrackerFor(DirName(info.output_files.front()))->EnsureSeeded();
  }
  MaybeCompactMediumReferences(db, info);
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
