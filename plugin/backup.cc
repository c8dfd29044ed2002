// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// Backups on BackupEngine (docs/deployability.md says why), which restores
// only names ParseFileName accepts: medium files enter as "<n>.blob" (n, the
// flush's SST number, is no blob file's) via hard links in the DB directory,
// renamed back at restore. The secret and medium list go in app metadata.
//
// Backup metadata format, version 1 (text, one field a line):
// clang-format off
//   hybridkv-backup 1
//   secret <hex of HYBRIDKV-SECRET's bytes; empty when the DB has none>
//   medium <n> <n> ...      (decimal, ascending)
//   crc <crc32c of the lines above, masked, 8 hex digits>
// clang-format on
#include <cstdio>
#include <limits>
#include <memory>
#include <set>
#include <sstream>

#include "file/filename.h"
#include "plugin/hybridkv/blob/lifecycle/db_secret.h"
#include "plugin/hybridkv/blob/lifecycle/db_state.h"
#include "plugin/hybridkv/blob/lifecycle/medium_lifecycle.h"
#include "plugin/hybridkv/blob/medium/medium_file.h"
#include "plugin/hybridkv/include/hybridkv/hybridkv.h"
#include "plugin/hybridkv/plugin/live_files.h"
#include "rocksdb/file_system.h"
#include "rocksdb/utilities/stackable_db.h"
#include "util/crc32c.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

const char* const kMetadataTag = "hybridkv-backup";
constexpr int kMetadataVersion = 1;

struct BackupMetadata {
  std::string secret;  // the secret file's bytes
  std::set<uint64_t> medium_numbers;
};

std::string EncodeMetadata(const BackupMetadata& m) {
  std::string body = std::string(kMetadataTag) + " " +
                     std::to_string(kMetadataVersion) + "\nsecret " +
                     Slice(m.secret).ToString(/*hex=*/true) + "\nmedium";
  for (uint64_t n : m.medium_numbers) body += " " + std::to_string(n);
  body += "\n";
  char crc[16];
  snprintf(crc, sizeof(crc), "%08x",
           crc32c::Mask(crc32c::Value(body.data(), body.size())));
  return body + "crc " + crc + "\n";
}

// NotFound when `text` is not HybridKV's (RocksDB's CreateNewBackup made it).
Status DecodeMetadata(BackupID id, const std::string& text, BackupMetadata* m) {
  const std::string tag = std::string(kMetadataTag) + " ";
  if (!Slice(text).starts_with(tag)) {
    return Status::NotFound("no HybridKV metadata");
  }
  auto bad = [&](const std::string& what) {
    return Status::Corruption("HybridKV: backup " + std::to_string(id) +
                              ": its HybridKV metadata " + what +
                              ". The backup cannot be restored readable; "
                              "restore an older backup.");
  };
  const size_t crc_at = text.rfind("crc ");
  if (crc_at == std::string::npos) return bad("has no checksum");
  const uint32_t want =
      static_cast<uint32_t>(strtoul(text.c_str() + crc_at + 4, nullptr, 16));
  if (crc32c::Unmask(want) != crc32c::Value(text.data(), crc_at)) {
    return bad("fails its checksum");
  }
  std::istringstream in(text.substr(0, crc_at));
  std::string word;
  int version = 0;
  in >> word >> version;
  if (version != kMetadataVersion) {
    return Status::NotSupported("HybridKV: backup " + std::to_string(id) +
                                " has metadata version " +
                                std::to_string(version) +
                                ", which this HybridKV does not know. Restore "
                                "it with the HybridKV that made it or newer.");
  }
  std::string line;
  std::getline(in, line);  // the rest of the first line
  while (std::getline(in, line)) {
    if (Slice(line).starts_with("secret ")) {
      if (!Slice(line.substr(7)).DecodeHex(&m->secret)) {
        return bad("has a secret that is not hex");
      }
    } else if (Slice(line).starts_with("medium")) {
      std::istringstream numbers(line.substr(6));
      uint64_t n = 0;
      while (numbers >> n) m->medium_numbers.insert(n);
    }
  }
  return Status::OK();
}

// The DB as BackupEngine sees it: the live files listed before the backup
// (disabled file deletions keep them), medium files under their aliases.
class BackupView : public StackableDB {
 public:
  BackupView(DB* db, std::vector<LiveFileStorageInfo> files,
             SequenceNumber sequence)
      : StackableDB(std::shared_ptr<DB>(db, [](DB*) {})),
        files_(std::move(files)),
        sequence_(sequence) {}

  Status GetLiveFilesStorageInfo(
      const LiveFilesStorageInfoOptions& /*opts*/,
      std::vector<LiveFileStorageInfo>* files) override {
    *files = files_;
    return Status::OK();
  }
  SequenceNumber GetLatestSequenceNumber() const override { return sequence_; }

 private:
  const std::vector<LiveFileStorageInfo> files_;
  const SequenceNumber sequence_;
};

// The alias links of one backup's medium files, removed when it ends.
class BackupLinks {
 public:
  BackupLinks(MediumFileTracker* tracker, std::shared_ptr<FileSystem> fs)
      : tracker_(tracker), fs_(std::move(fs)) {}
  ~BackupLinks() {
    for (uint64_t number : numbers_) {
      tracker_->UnlinkForBackup(fs_.get(), number);
    }
  }
  Status Add(uint64_t number) {
    Status s = tracker_->LinkForBackup(fs_.get(), number);
    if (s.ok()) numbers_.push_back(number);
    return s;
  }

 private:
  MediumFileTracker* const tracker_;
  const std::shared_ptr<FileSystem> fs_;
  std::vector<uint64_t> numbers_;
};

// Lists `root`'s files for the backup, links each medium file under its alias
// for the life of `*links`, and fills `metadata`.
Status ListForBackup(DB* root, const CreateBackupOptions& options,
                     std::vector<LiveFileStorageInfo>* files,
                     BackupMetadata* metadata,
                     std::unique_ptr<BackupLinks>* links) {
  LiveFilesStorageInfoOptions opts;
  // As BackupEngine asks: checksums only with RocksDB's crc32c generator.
  const auto& gen = root->GetDBOptions().file_checksum_gen_factory;
  opts.include_checksum_info =
      gen != nullptr &&
      std::string(gen->Name()) == "FileChecksumGenCrc32cFactory";
  opts.wal_size_for_flush =
      options.flush_before_backup ? 0 : std::numeric_limits<uint64_t>::max();
  Status s = root->GetLiveFilesStorageInfo(opts, files);
  std::vector<HybridKVFiles> homes;
  if (s.ok()) s = FindHybridKVFiles(root, *files, &homes);
  if (!s.ok()) return s;
  if (homes.size() > 1) {
    // BackupEngine refuses several directories too, for the SSTs.
    return Status::NotSupported(
        "HybridKV: hybridkv::CreateNewBackup supports one directory, but the "
        "DB's column families keep their files in " +
        std::to_string(homes.size()) + " (cf_paths). Back up with a copy tool "
        "that takes GetLiveFilesStorageInfo's directories.");
  }
  const HybridKVFiles& found = homes.front();
  const std::shared_ptr<FileSystem>& fs = root->GetEnv()->GetFileSystem();
  if (found.has_secret) {
    s = ReadFileToString(fs.get(), found.dir + "/" + kSecretFileName,
                         &metadata->secret);
    if (!s.ok()) return s;
  }
  metadata->medium_numbers = found.medium_numbers;
  *links = std::make_unique<BackupLinks>(&DbStateFor(found.dir)->tracker(), fs);
  for (uint64_t number : found.medium_numbers) {
    s = (*links)->Add(number);
    if (s.IsNotSupported()) {
      return Status::NotSupported(
          "HybridKV: the DB's file system cannot hard-link, which "
          "hybridkv::CreateNewBackup needs to give medium files names "
          "BackupEngine restores: " +
          s.ToString());
    }
    if (!s.ok()) return s;
    LiveFileStorageInfo entry;
    s = MediumFileEntry(root, found.dir, number, BlobFileName(number),
                        opts.include_checksum_info, &entry);
    if (!s.ok()) return s;
    files->push_back(std::move(entry));
  }
  return Status::OK();
}

// The DB file name of backup file `relative` (shared/, private/<id>/, or
// shared_checksum/<number>_<checksum/session>.<suffix>), as BackupEngine does.
std::string DbFileNameOf(const std::string& relative) {
  std::string name = relative.substr(relative.find_last_of('/') + 1);
  if (Slice(relative).starts_with("shared_checksum/") &&
      name.find('_') != std::string::npos) {
    name = name.substr(0, name.find('_')) + name.substr(name.rfind('.'));
  }
  return name;
}

// Corruption naming what restoring backup `id` would lack: medium files its
// SSTs point into, and (for backups made here) listed files that are gone.
Status CheckComplete(BackupEngineReadOnlyBase* engine, BackupID id,
                     BackupMetadata* metadata) {
  BackupInfo info;
  Status s = engine->GetBackupInfo(id, &info, /*include_file_details=*/true);
  if (!s.ok()) return s;
  s = DecodeMetadata(id, info.app_metadata, metadata);
  const bool ours = s.ok();
  if (!ours && !s.IsNotFound()) return s;
  const std::shared_ptr<FileSystem>& backup_fs =
      info.env_for_open->GetFileSystem();
  std::set<uint64_t> needed = metadata->medium_numbers;
  std::set<std::string> held;  // DB file names that are there
  std::string missing;
  size_t count = 0;
  auto note_missing = [&](const std::string& name) {
    if (++count <= 5) missing += (missing.empty() ? "" : ", ") + name;
  };
  for (const BackupFileInfo& f : info.file_details) {
    const std::string name = DbFileNameOf(f.relative_filename);
    uint64_t number = 0;
    FileType type;
    const bool parsed = ParseFileName(name, &number, &type);
    // The meta file outlives hand-deleted files (f.directory: private/<id>).
    const std::string path =
        DirName(DirName(f.directory)) + "/" + f.relative_filename;
    if (!backup_fs->FileExists(path, IOOptions(), nullptr).ok()) {
      note_missing(ours && parsed && type == kBlobFile && needed.count(number)
                       ? std::to_string(number) + ".medium (as " +
                             f.relative_filename + ")"
                       : f.relative_filename);
      continue;
    }
    held.insert(name);
    if (!ours && parsed && type == kTableFile) {
      // Made by RocksDB's own CreateNewBackup: read what its SSTs point into.
      MediumRefs refs;
      s = ReadSstMediumRefs(
          backup_fs, MakeTableFileName(info.name_for_open, number), &refs);
      if (!s.ok()) return s;
      for (const auto& [medium, ref] : refs) needed.insert(medium);
    }
  }
  for (uint64_t n : needed) {
    if (!ours || held.count(BlobFileName(n)) == 0) {
      note_missing(std::to_string(n) + ".medium");
    }
  }
  if (count == 0) return Status::OK();
  const std::string which =
      missing +
      (count > 5 ? " and " + std::to_string(count - 5) + " more" : "");
  if (!ours) {
    return Status::Corruption(
        "HybridKV: backup " + std::to_string(id) +
        " cannot be restored to a readable DB: it lacks " +
        std::to_string(count) + " files its SSTs need (" + which +
        "). It was made by RocksDB's BackupEngine::CreateNewBackup, which does "
        "not know HybridKV's files. Make backups with "
        "hybridkv::CreateNewBackup.");
  }
  return Status::Corruption("HybridKV: backup " + std::to_string(id) +
                            " is incomplete: it lacks " +
                            std::to_string(count) + " files (" + which +
                            "). Restore another backup.");
}

// Puts back what the backup held under other names: secret, medium files.
Status FinishRestore(const BackupMetadata& metadata, const std::string& db_dir,
                     const std::shared_ptr<FileSystem>& fs) {
  IOStatus s;
  if (!metadata.secret.empty()) {
    s = status_to_io_status(WriteSecretFile(fs, db_dir, metadata.secret));
  }
  for (uint64_t n : metadata.medium_numbers) {
    if (!s.ok()) break;
    s = fs->RenameFile(BlobFileName(db_dir, n), MediumFileName(db_dir, n),
                       IOOptions(), nullptr);
  }
  if (s.ok()) s = SyncDirectory(fs, db_dir, IOOptions());
  return s;
}

}  // namespace

Status CreateNewBackup(BackupEngine* engine, DB* db,
                       const CreateBackupOptions& options,
                       BackupID* new_backup_id) {
  DB* root = db->GetRootDB();
  Status s = root->DisableFileDeletions();
  if (!s.ok()) {
    return s;
  }
  {
    std::vector<LiveFileStorageInfo> files;
    BackupMetadata metadata;
    std::unique_ptr<BackupLinks> links;
    const SequenceNumber sequence = root->GetLatestSequenceNumber();
    s = ListForBackup(root, options, &files, &metadata, &links);
    if (s.ok()) {
      BackupView view(root, std::move(files), sequence);
      s = engine->CreateNewBackupWithMetadata(
          options, &view, EncodeMetadata(metadata), new_backup_id);
    }
  }  // the links go before file deletions resume
  Status enable = root->EnableFileDeletions();
  return s.ok() ? enable : s;
}

Status VerifyBackup(BackupEngineReadOnlyBase* engine, BackupID backup_id,
                    bool verify_with_checksum) {
  Status s = engine->VerifyBackup(backup_id, verify_with_checksum);
  BackupMetadata metadata;
  if (s.ok()) s = CheckComplete(engine, backup_id, &metadata);
  return s;
}

Status RestoreDBFromBackup(BackupEngineReadOnlyBase* engine, BackupID backup_id,
                           const std::string& db_dir,
                           const std::string& wal_dir,
                           const RestoreOptions& options, Env* db_env) {
  BackupMetadata metadata;
  Status s = CheckComplete(engine, backup_id, &metadata);
  if (s.ok()) {
    s = engine->RestoreDBFromBackup(options, backup_id, db_dir, wal_dir);
    // Forget the replaced DB's files: a reopened DB that deleted an SST before
    // its first flush or compaction would otherwise free medium files by it.
    DbStateFor(db_dir)->tracker().Forget();
  }
  if (s.ok()) {
    s = FinishRestore(metadata, db_dir, db_env->GetFileSystem());
  }
  return s;
}

Status RestoreDBFromLatestBackup(BackupEngineReadOnlyBase* engine,
                                 const std::string& db_dir,
                                 const std::string& wal_dir,
                                 const RestoreOptions& options, Env* db_env) {
  BackupInfo latest;
  Status s = engine->GetLatestBackupInfo(&latest);
  if (!s.ok()) return s;
  return RestoreDBFromBackup(engine, latest.backup_id, db_dir, wal_dir, options,
                             db_env);
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
