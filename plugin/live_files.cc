// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "plugin/hybridkv/plugin/live_files.h"

#include <algorithm>

#include "file/filename.h"
#include "plugin/hybridkv/blob/lifecycle/db_secret.h"
#include "plugin/hybridkv/blob/lifecycle/db_state.h"
#include "plugin/hybridkv/blob/lifecycle/medium_lifecycle.h"
#include "plugin/hybridkv/blob/medium/medium_file.h"
#include "rocksdb/file_system.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

namespace {

// SST `number`'s refs: `known`'s (the tracker's), else read from `path`.
// `exact`: ReadLiveSstRefs's `read_unknown`, which copies need too.
Status RefsOfSst(const std::map<uint64_t, MediumRefs>& known,
                 const std::shared_ptr<FileSystem>& fs, uint64_t number,
                 const std::string& path, bool exact, MediumRefs* refs) {
  auto it = known.find(number);
  if (it != known.end()) {
    *refs = it->second;
    return Status::OK();
  }
  if (exact) {
    return ReadSstMediumRefs(fs, path, refs);
  }
  std::unique_ptr<TableProperties> props;
  Status s = ReadSstProperties(fs, path, &props);
  if (s.IsNotFound() || s.IsPathNotFound()) {
    return Status::OK();  // deleted since it was listed
  }
  bool has_refs = false;
  return s.ok() ? GetMediumRefs(*props, refs, &has_refs) : s;
}

}  // namespace

namespace {

// Where SST `number` is: in the first of `dirs` that has it.
std::string SstPath(FileSystem* fs, const std::vector<std::string>& dirs,
                    uint64_t number) {
  for (const std::string& dir : dirs) {
    const std::string path = MakeTableFileName(dir, number);
    if (fs->FileExists(path, IOOptions(), nullptr).ok()) return path;
  }
  return MakeTableFileName(dirs.front(), number);
}

}  // namespace

Status FindHybridKVFiles(DB* db, const std::string& dir,
                         const std::vector<uint64_t>& sst_numbers,
                         HybridKVFiles* found) {
  const std::shared_ptr<FileSystem>& fs = db->GetEnv()->GetFileSystem();
  // SSTs RocksDB did not report to the tracker (older than this process, or
  // with the listener off) give their refs in their properties.
  MediumFileTracker& tracker = DbStateFor(dir)->tracker();
  std::map<uint64_t, MediumRefs> known;
  tracker.KnownRefs(db->GetName(), &known);
  const std::vector<std::string> dirs = tracker.sst_dirs();  // `dir` first
  found->dir = dir;
  for (uint64_t sst : sst_numbers) {
    MediumRefs refs;
    const std::string path =
        known.count(sst) != 0 ? "" : SstPath(fs.get(), dirs, sst);
    Status s = RefsOfSst(known, fs, sst, path, /*exact=*/true, &refs);
    if (!s.ok()) {
      return Status::Corruption(
          "HybridKV: cannot tell which medium files SST " + path +
          " points into, so a copy of it could not be made complete: " +
          s.ToString());
    }
    for (const auto& [number, ref] : refs) found->medium_numbers.insert(number);
  }
  found->has_secret =
      fs->FileExists(dir + "/" + kSecretFileName, IOOptions(), nullptr).ok();
  if (!found->medium_numbers.empty() && !found->has_secret) {
    return Status::Corruption("HybridKV: " + dir + "/" + kSecretFileName +
                              " is missing, but SSTs hold medium pointers; a "
                              "copy without it could not read them.");
  }
  return Status::OK();
}

std::string DefaultHome(DB* db) {
  // RocksDB fills cf_paths from db_paths, and db_paths with the DB's dir.
  const std::vector<DbPath> paths = db->GetOptions().cf_paths;
  return paths.empty() ? db->GetName() : paths.front().path;
}

Status FindHybridKVFiles(DB* db,
                         const std::vector<LiveFileStorageInfo>& rocksdb_files,
                         std::vector<HybridKVFiles>* found) {
  std::map<std::string, std::vector<uint64_t>> ssts_by_home;
  for (const LiveFileStorageInfo& f : rocksdb_files) {
    if (f.file_type == kTableFile) {
      ssts_by_home[DbStateFor(f.directory)->home()].push_back(f.file_number);
    }
  }
  if (ssts_by_home.empty()) ssts_by_home[DefaultHome(db)];
  found->clear();
  for (const auto& [home, ssts] : ssts_by_home) {
    found->emplace_back();
    Status s = FindHybridKVFiles(db, home, ssts, &found->back());
    if (!s.ok()) return s;
  }
  return Status::OK();
}

Status ReadLiveSstRefs(DB* db, std::vector<std::string>* homes,
                       std::map<uint64_t, MediumRefs>* refs,
                       bool read_unknown) {
  std::vector<LiveFileMetaData> files;
  db->GetLiveFilesMetaData(&files);  // SSTs only
  refs->clear();
  homes->clear();
  std::map<uint64_t, MediumRefs> known;
  for (const LiveFileMetaData& f : files) {
    const std::string home = DbStateFor(f.directory)->home();
    if (std::find(homes->begin(), homes->end(), home) == homes->end()) {
      homes->push_back(home);
      DbStateFor(home)->tracker().KnownRefs(db->GetName(), &known);
    }
  }
  if (homes->empty()) homes->push_back(DefaultHome(db));
  const std::shared_ptr<FileSystem>& fs = db->GetEnv()->GetFileSystem();
  for (const LiveFileMetaData& f : files) {
    const std::string path = f.directory + "/" + f.relative_filename;
    Status s = RefsOfSst(known, fs, f.file_number, path, read_unknown,
                         &(*refs)[f.file_number]);
    if (!s.ok()) {
      return Status::Corruption(
          "HybridKV: cannot tell which medium files SST " + path +
          " points into: " + s.ToString());
    }
  }
  return Status::OK();
}

Status MediumFileEntry(DB* db, const std::string& dir, uint64_t number,
                       const std::string& relative_filename,
                       bool include_checksum_info, LiveFileStorageInfo* entry) {
  entry->relative_filename = relative_filename;
  entry->directory = dir;
  entry->file_number = number;
  entry->file_type = kBlobFile;
  entry->temperature = Temperature::kUnknown;
  if (include_checksum_info) {
    entry->file_checksum = kUnknownFileChecksum;
    entry->file_checksum_func_name = kUnknownFileChecksumFuncName;
  }
  return db->GetEnv()->GetFileSystem()->GetFileSize(
      dir + "/" + relative_filename, IOOptions(), &entry->size, nullptr);
}

Status AppendHybridKVFiles(DB* db, const HybridKVFiles& found,
                           bool include_checksum_info,
                           std::vector<LiveFileStorageInfo>* files) {
  for (uint64_t number : found.medium_numbers) {
    LiveFileStorageInfo entry;
    const std::string path = MediumFileName(found.dir, number);
    Status s = MediumFileEntry(db, found.dir, number,
                               path.substr(found.dir.size() + 1),
                               include_checksum_info, &entry);
    if (!s.ok()) {
      return Status::Corruption("HybridKV: medium file " + path +
                                " is referenced by a listed SST but cannot be "
                                "listed: " +
                                s.ToString());
    }
    files->push_back(std::move(entry));
  }
  if (found.has_secret) {
    LiveFileStorageInfo entry;
    Status s = MediumFileEntry(db, found.dir, 0, kSecretFileName,
                               include_checksum_info, &entry);
    if (!s.ok()) return s;
    entry.file_type = kIdentityFile;
    files->push_back(std::move(entry));
  }
  return Status::OK();
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
