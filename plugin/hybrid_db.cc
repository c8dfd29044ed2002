// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "plugin/hybridkv/plugin/hybrid_db.h"

#include <map>
#include <utility>

#include "env/composite_env_wrapper.h"
#include "plugin/hybridkv/blob/io/rocksdb_compat.h"
#include "plugin/hybridkv/blob/lifecycle/follower_file_system.h"
#include "plugin/hybridkv/blob/lifecycle/medium_lifecycle.h"
#include "plugin/hybridkv/blob/lifecycle/secondary_file_system.h"
#include "plugin/hybridkv/include/hybridkv/hybridkv.h"
#include "plugin/hybridkv/plugin/live_files.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

Status HybridDB::GetLiveFilesStorageInfo(
    const LiveFilesStorageInfoOptions& opts,
    std::vector<LiveFileStorageInfo>* files) {
  Status s = db_->GetRootDB()->GetLiveFilesStorageInfo(opts, files);
  std::vector<HybridKVFiles> found;
  if (s.ok()) s = FindHybridKVFiles(db_, *files, &found);
  for (size_t i = 0; s.ok() && i < found.size(); ++i) {
    s = AppendHybridKVFiles(db_, found[i], opts.include_checksum_info, files);
  }
  return s;
}

Status HybridDB::GetLiveFiles(std::vector<std::string>& files,
                              uint64_t* manifest_file_size,
                              bool flush_memtable) {
  Status s =
      db_->GetRootDB()->GetLiveFiles(files, manifest_file_size, flush_memtable);
  if (!s.ok()) return s;
  // Names ("/000123.sst") are relative to their path; the metadata says which,
  // hence whose home. An SST gone from the Version since goes to the default's.
  std::vector<LiveFileMetaData> metadata;
  db_->GetLiveFilesMetaData(&metadata);
  std::map<uint64_t, std::string> dirs;
  for (const LiveFileMetaData& m : metadata) dirs[m.file_number] = m.directory;
  std::vector<LiveFileStorageInfo> listed;
  for (const std::string& name : files) {
    if (const uint64_t number = SstNumberOf(name)) {
      listed.emplace_back();
      listed.back().file_type = kTableFile;
      listed.back().file_number = number;
      auto dir = dirs.find(number);
      listed.back().directory =
          dir != dirs.end() ? dir->second : DefaultHome(db_);
    }
  }
  std::vector<HybridKVFiles> found;
  s = FindHybridKVFiles(db_, listed, &found);
  std::vector<LiveFileStorageInfo> entries;
  for (size_t i = 0; s.ok() && i < found.size(); ++i) {
    s = AppendHybridKVFiles(db_, found[i], /*include_checksum_info=*/false,
                            &entries);
  }
  for (const LiveFileStorageInfo& e : entries) {
    files.push_back("/" + e.relative_filename);
  }
  return s;
}

bool HybridDB::GetIntProperty(ColumnFamilyHandle* column_family,
                              const Slice& property, uint64_t* value) {
  return GetHybridKVProperty(db_, property, value) ||
         db_->GetIntProperty(column_family, property, value);
}

bool HybridDB::GetProperty(ColumnFamilyHandle* column_family,
                           const Slice& property, std::string* value) {
  uint64_t number = 0;
  if (GetHybridKVProperty(db_, property, &number)) {
    *value = std::to_string(number);
    return true;
  }
  return db_->GetProperty(column_family, property, value);
}

namespace {

// The handle, owning the DB that `open` opens into its DB** argument.
template <typename OpenFn>
Status OpenHandle(StackableDB** dbptr, const OpenFn& open) {
  *dbptr = nullptr;
  DB* db = nullptr;
  Status s = open(&db);
  if (s.ok()) *dbptr = new HybridDB(db);
  return s;
}

Env* EnvOf(const Options& options) {
  return options.env != nullptr ? options.env : Env::Default();
}

// `options` reading through `fs`, and the Env doing so (must outlive the DB).
Options ReadingThrough(const Options& options,
                       const std::shared_ptr<FileSystem>& fs,
                       std::shared_ptr<Env>* env) {
  *env = std::make_shared<CompositeEnvWrapper>(EnvOf(options), fs);
  Options with_env = options;
  with_env.env = env->get();
  return with_env;
}

// The handle of `db`, which it deletes before `env`, which `db` reads through.
StackableDB* HandleOwningEnv(DB* db, std::shared_ptr<Env> env) {
  return new HybridDB(
      std::shared_ptr<DB>(db, [env](DB* owned) { delete owned; }));
}

}  // namespace

Status Open(const Options& options, const std::string& name,
            StackableDB** dbptr) {
  return OpenHandle(dbptr, [&](DB** db) { return OpenDB(options, name, db); });
}

Status Open(const DBOptions& db_options, const std::string& name,
            const std::vector<ColumnFamilyDescriptor>& column_families,
            std::vector<ColumnFamilyHandle*>* handles, StackableDB** dbptr) {
  return OpenHandle(dbptr, [&](DB** db) {
    return OpenDB(db_options, name, column_families, handles, db);
  });
}

// OpenAsSecondary retries if the primary deletes a table between the open's
// MANIFEST read and table open: the next MANIFEST no longer names it.
constexpr int kSecondaryOpenAttempts = 5;

Status OpenAsSecondary(const Options& options, const std::string& name,
                       const std::string& secondary_path, StackableDB** dbptr) {
  *dbptr = nullptr;
  if (options.enable_blob_files) {
    return Status::NotSupported(
        "HybridKV: a secondary instance cannot follow " + name +
        " with enable_blob_files=true: RocksDB's BlobDB does not support "
        "secondary instances (facebook/rocksdb#13296). Turn the large class "
        "off (HybridOptions::enable_blob_files=false; medium values and "
        "inline values follow fine), or copy the DB with a checkpoint or "
        "backup instead.");
  }
  // Reads go through SecondaryFileSystem (see there why), enabled once open.
  Env* base_env = EnvOf(options);
  auto fs = std::make_shared<SecondaryFileSystem>(base_env->GetFileSystem());
  std::shared_ptr<Env> env;
  const Options with_env = ReadingThrough(options, fs, &env);
  DB* db = nullptr;
  Status s;
  for (int attempt = 1; attempt <= kSecondaryOpenAttempts; ++attempt) {
    s = OpenSecondaryDB(with_env, name, secondary_path, &db);
    if (!s.IsPathNotFound() || attempt == kSecondaryOpenAttempts) break;
    base_env->SleepForMicroseconds(10000 * attempt);
  }
  if (s.ok()) {
    fs->Enable();
    *dbptr = HandleOwningEnv(db, env);
  }
  return s;
}

Status OpenAsFollower(const Options& options, const std::string& name,
                      const std::string& leader_path, StackableDB** dbptr) {
  *dbptr = nullptr;
  if (options.enable_blob_files) {
    return Status::NotSupported(
        "HybridKV: a follower cannot follow " + leader_path +
        " with enable_blob_files=true: RocksDB's follower does not serve blob "
        "files (OnDemandFileSystem). Turn the large class off "
        "(HybridOptions::enable_blob_files=false), or follow with a copy.");
  }
  // Under OnDemandFileSystem, which serves only the leader's table files.
  auto fs = std::make_shared<FollowerFileSystem>(
      EnvOf(options)->GetFileSystem(), name, leader_path);
  std::shared_ptr<Env> env;
  std::unique_ptr<DB> db;
  Status s = DB::OpenAsFollower(ReadingThrough(options, fs, &env), name,
                                leader_path, &db);
  if (s.ok()) *dbptr = HandleOwningEnv(db.release(), env);
  return s;
}

std::unique_ptr<StackableDB> NewHandle(DB* db) {
  return std::make_unique<HybridDB>(std::shared_ptr<DB>(db, [](DB*) {}));
}

bool GetHybridKVProperty(DB* db, const Slice& property, uint64_t* value) {
  if (!property.starts_with(kPropertyPrefix)) return false;
  HybridStatistics stats;
  const std::pair<const char*, uint64_t HybridStatistics::*> kProperties[] = {
      {kPropertyMediumFiles, &HybridStatistics::live_medium_files},
      {kPropertyMediumFileBytes, &HybridStatistics::live_medium_bytes},
      {kPropertyMediumLiveBytes,
       &HybridStatistics::referenced_medium_live_bytes},
      {kPropertyMediumPointers, &HybridStatistics::medium_pointers},
      {kPropertyMediumBytesPunched, &HybridStatistics::medium_bytes_punched},
  };
  for (const auto& [name, field] : kProperties) {
    if (property == Slice(name)) {
      if (!GetStatistics(db, &stats).ok()) return false;
      *value = stats.*field;
      return true;
    }
  }
  return false;
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
