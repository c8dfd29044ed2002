// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// CreateCheckpoint, ConvertToStockDB and DestroyDB: the calls that must know
// HybridKV's files, `<n>.medium` and HYBRIDKV-SECRET.
#include <map>
#include <string>
#include <vector>

#include "plugin/hybridkv/blob/io/rocksdb_compat.h"
#include "plugin/hybridkv/blob/lifecycle/db_secret.h"
#include "plugin/hybridkv/blob/lifecycle/db_state.h"
#include "plugin/hybridkv/blob/lifecycle/medium_lifecycle.h"
#include "plugin/hybridkv/blob/medium/medium_file.h"
#include "plugin/hybridkv/include/hybridkv/hybridkv.h"
#include "plugin/hybridkv/plugin/live_files.h"
#include "rocksdb/file_system.h"
#include "rocksdb/utilities/checkpoint.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

bool IsHybridKVFile(const std::string& name) {
  return name == kSecretFileName || MediumNumberOf(name) != 0 ||
         name == std::string(kSecretFileName) + ".tmp";
}

// Deletes HybridKV's files in `dir`; none when `dir` is gone.
Status DeleteHybridKVFiles(FileSystem* fs, const std::string& dir) {
  std::vector<std::string> children;
  if (!fs->GetChildren(dir, IOOptions(), &children, nullptr).ok()) {
    return Status::OK();
  }
  for (const std::string& child : children) {
    if (IsHybridKVFile(child)) {
      IOStatus d = fs->DeleteFile(dir + "/" + child, IOOptions(), nullptr);
      if (!d.ok()) return d;
    }
  }
  return Status::OK();
}

}  // namespace

Status CreateCheckpoint(DB* db, const std::string& checkpoint_dir) {
  std::unique_ptr<StackableDB> handle = NewHandle(db);
  Checkpoint* raw = nullptr;
  Status s = Checkpoint::Create(handle.get(), &raw);
  std::unique_ptr<Checkpoint> checkpoint(raw);
  if (s.ok()) s = checkpoint->CreateCheckpoint(checkpoint_dir);
  return s;
}

Status ConvertToStockDB(const DBOptions& db_options, const std::string& name,
                        const std::vector<ColumnFamilyDescriptor>& families) {
  // At merge level 0 every compaction writes medium values back inline.
  std::vector<ColumnFamilyDescriptor> inline_all = families;
  for (ColumnFamilyDescriptor& family : inline_all) {
    if (family.options.compaction_style == kCompactionStyleFIFO) {
      return Status::NotSupported(
          "HybridKV: ConvertToStockDB cannot convert column family " +
          family.name +
          ": FIFO compaction never rewrites SSTs, so their medium pointers "
          "cannot be written back inline. Copy its data into a column family "
          "with level or universal compaction first.");
    }
    const std::shared_ptr<TableFactory>& factory = family.options.table_factory;
    const HybridTableOptions* hybrid =
        factory ? factory->GetOptions<HybridTableOptions>() : nullptr;
    if (hybrid != nullptr) {
      HybridTableOptions copy = *hybrid;
      copy.merge_level = 0;
      family.options.table_factory = NewHybridTableFactory(copy);
    }
  }
  std::vector<ColumnFamilyHandle*> handles;
  DB* raw = nullptr;
  Status s = OpenDB(db_options, name, inline_all, &handles, &raw);
  if (!s.ok()) return s;
  std::unique_ptr<DB> db(raw);
  CompactRangeOptions cro;
  cro.bottommost_level_compaction = BottommostLevelCompaction::kForce;
  for (size_t i = 0; s.ok() && i < handles.size(); ++i) {
    s = db->CompactRange(cro, handles[i], nullptr, nullptr);
  }
  if (s.ok()) {
    s = db->WaitForCompact(WaitForCompactOptions());
  }
  // read_unknown: SSTs built without HybridKV may hold pointers too.
  std::vector<std::string> homes;
  std::map<uint64_t, MediumRefs> refs;
  if (s.ok()) {
    s = ReadLiveSstRefs(db.get(), &homes, &refs, /*read_unknown=*/true);
  }
  uint64_t pointers = 0;
  for (const auto& [sst, sst_refs] : refs) {
    for (const auto& [number, ref] : sst_refs) pointers += ref.pointers;
  }
  if (s.ok() && pointers != 0) {
    s = Status::Incomplete(
        "HybridKV: " + std::to_string(pointers) +
        " medium pointers remain after a full compaction of " + name +
        "; the DB is still a HybridKV DB. Run ConvertToStockDB again.");
  }
  for (ColumnFamilyHandle* handle : handles) {
    db->DestroyColumnFamilyHandle(handle).PermitUncheckedError();
  }
  Status closed = db->Close();
  if (s.ok()) s = closed;
  if (!s.ok()) return s;
  // No SST points anywhere now: HybridKV's files are leftovers.
  for (size_t i = 0; s.ok() && i < homes.size(); ++i) {
    s = DeleteHybridKVFiles(db_options.env->GetFileSystem().get(), homes[i]);
  }
  return s;
}

Status ConvertToStockDB(const Options& options, const std::string& name) {
  return ConvertToStockDB(
      DBOptions(options), name,
      {ColumnFamilyDescriptor(kDefaultColumnFamilyName,
                              ColumnFamilyOptions(options))});
}

Status DestroyDB(const std::string& name, const Options& options) {
  // RocksDB's DestroyDB takes the DB's lock, so it fails while the DB is open.
  Status s = ROCKSDB_NAMESPACE::DestroyDB(name, options);
  if (!s.ok()) {
    return s;
  }
  // Homes hold medium files and secrets: the DB dir, first db_path or cf_path.
  std::vector<std::string> dirs{name};
  for (const auto* paths : {&options.db_paths, &options.cf_paths}) {
    for (const DbPath& path : *paths) dirs.push_back(path.path);
  }
  const std::shared_ptr<FileSystem>& fs = options.env->GetFileSystem();
  for (const std::string& dir : dirs) {
    DbStateFor(dir)->tracker().Forget();
    s = DeleteHybridKVFiles(fs.get(), dir);
    if (!s.ok()) return s;
    fs->DeleteDir(dir, IOOptions(), nullptr)
        .PermitUncheckedError();  // only if now empty
  }
  return s;
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
