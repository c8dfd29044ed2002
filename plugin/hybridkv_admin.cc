// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// hybridkv_admin: HybridKV's copy and conversion calls for operators, as
// `ldb backup`/`ldb restore` are RocksDB's. Opens the DB with its latest
// OPTIONS file (the plugin is built in), so it must not be open elsewhere.
//   hybridkv_admin backup --db=DIR --backup_dir=DIR
//   hybridkv_admin restore --backup_dir=DIR --db=DIR [--backup_id=N]
//   hybridkv_admin verify-backup --backup_dir=DIR [--backup_id=N]
//   hybridkv_admin checkpoint --db=DIR --checkpoint_dir=DIR
//   hybridkv_admin convert-to-stock --db=DIR
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "hybridkv/hybridkv.h"
#include "plugin/hybridkv/blob/io/rocksdb_compat.h"
#include "rocksdb/convenience.h"
#include "rocksdb/db.h"
#include "rocksdb/env.h"
#include "rocksdb/utilities/backup_engine.h"
#include "rocksdb/utilities/options_util.h"

using namespace ROCKSDB_NAMESPACE;

namespace {

int Fail(const std::string& what, const Status& s) {
  fprintf(stderr, "hybridkv_admin: %s: %s\n", what.c_str(),
          s.ToString().c_str());
  return 1;
}

uint64_t ProcessWriteBytes() {
  std::ifstream io("/proc/self/io");
  std::string key;
  uint64_t value = 0;
  while (io >> key >> value) {
    if (key == "write_bytes:") return value;
  }
  return 0;
}

uint64_t DirBytes(const std::string& dir) {
  std::vector<std::string> children;
  uint64_t total = 0;
  Env* env = Env::Default();
  if (!env->GetChildren(dir, &children).ok()) return 0;
  for (const std::string& c : children) {
    uint64_t size = 0;
    if (env->GetFileSize(dir + "/" + c, &size).ok()) total += size;
  }
  return total;
}

struct Db {
  DBOptions db_options;
  std::vector<ColumnFamilyDescriptor> families;
};

Status LoadOptions(const std::string& path, Db* db) {
  ConfigOptions config;
  config.env = Env::Default();
  config.ignore_unknown_options = false;
  return LoadLatestOptions(config, path, &db->db_options, &db->families);
}

using Flags = std::map<std::string, std::string>;

// The value of --`name`; exits with a usage error when it is missing.
std::string Need(Flags& flags, const std::string& command, const char* name) {
  if (flags[name].empty()) {
    fprintf(stderr, "hybridkv_admin %s needs --%s\n", command.c_str(), name);
    exit(2);
  }
  return flags[name];
}

int RestoreOrVerify(const std::string& command, Flags& flags) {
  const BackupID id =
      flags["backup_id"].empty() ? 0 : std::stoul(flags["backup_id"]);
  BackupEngineReadOnly* raw = nullptr;
  Status s = BackupEngineReadOnly::Open(
      Env::Default(), BackupEngineOptions(Need(flags, command, "backup_dir")),
      &raw);
  if (!s.ok()) return Fail("open backup engine", s);
  std::unique_ptr<BackupEngineReadOnly> engine(raw);
  if (command == "verify-backup") {
    BackupInfo latest;
    if (id == 0) {
      s = engine->GetLatestBackupInfo(&latest);
      if (!s.ok()) return Fail("find the latest backup", s);
    }
    const BackupID which = id ? id : latest.backup_id;
    s = hybridkv::VerifyBackup(engine.get(), which,
                               /*verify_with_checksum=*/true);
    if (!s.ok()) return Fail("verify-backup", s);
    printf("backup %u verified\n", which);
    return 0;
  }
  const std::string db = Need(flags, command, "db");
  s = id ? hybridkv::RestoreDBFromBackup(engine.get(), id, db, db)
         : hybridkv::RestoreDBFromLatestBackup(engine.get(), db, db);
  if (!s.ok()) return Fail("restore", s);
  printf("restored into %s\n", db.c_str());
  return 0;
}

int ConvertToStock(const std::string& path, const Db& db) {
  const uint64_t before = DirBytes(path);
  const uint64_t written = ProcessWriteBytes();
  const auto start = std::chrono::steady_clock::now();
  Status s = hybridkv::ConvertToStockDB(db.db_options, path, db.families);
  if (!s.ok()) return Fail("convert-to-stock", s);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  printf(
      "converted %s: %.1f s, %.3f GB written, %.3f GB on disk before, "
      "%.3f GB after. Open it now with BlockBasedTable and without "
      "HybridKV's listener and partitioner.\n",
      path.c_str(), seconds, (ProcessWriteBytes() - written) / 1e9,
      before / 1e9, DirBytes(path) / 1e9);
  return 0;
}

int BackupOrCheckpoint(const std::string& command, Flags& flags,
                       const std::string& path, const Db& db) {
  std::vector<ColumnFamilyHandle*> handles;
  StackableDB* raw_db = nullptr;
  Status s =
      hybridkv::Open(db.db_options, path, db.families, &handles, &raw_db);
  if (!s.ok()) return Fail("open " + path, s);
  std::unique_ptr<StackableDB> handle(raw_db);
  if (command == "checkpoint") {
    s = hybridkv::CreateCheckpoint(handle.get(),
                                   Need(flags, command, "checkpoint_dir"));
  } else {
    BackupEngine* raw_engine = nullptr;
    s = BackupEngine::Open(
        Env::Default(), BackupEngineOptions(Need(flags, command, "backup_dir")),
        &raw_engine);
    std::unique_ptr<BackupEngine> engine(raw_engine);
    BackupID id = 0;
    if (s.ok()) {
      s = hybridkv::CreateNewBackup(engine.get(), handle.get(), {}, &id);
    }
    if (s.ok()) printf("backup %u created\n", id);
  }
  for (ColumnFamilyHandle* h : handles) {
    handle->DestroyColumnFamilyHandle(h).PermitUncheckedError();
  }
  Status closed = handle->Close();
  if (!s.ok()) return Fail(command, s);
  if (!closed.ok()) return Fail("close", closed);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr,
            "usage: %s backup|restore|verify-backup|checkpoint|"
            "convert-to-stock --db=DIR [--backup_dir=DIR] [--backup_id=N] "
            "[--checkpoint_dir=DIR]\n",
            argv[0]);
    return 2;
  }
  const std::string command = argv[1];
  Flags flags;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    const size_t eq = arg.find('=');
    if (arg.rfind("--", 0) != 0 || eq == std::string::npos) {
      fprintf(stderr, "hybridkv_admin: expected --name=value, got %s\n",
              arg.c_str());
      return 2;
    }
    flags[arg.substr(2, eq - 2)] = arg.substr(eq + 1);
  }
  if (command == "restore" || command == "verify-backup") {
    return RestoreOrVerify(command, flags);
  }
  if (command != "backup" && command != "checkpoint" &&
      command != "convert-to-stock") {
    fprintf(stderr, "hybridkv_admin: unknown command %s\n", command.c_str());
    return 2;
  }
  const std::string path = Need(flags, command, "db");
  Db db;
  Status s = LoadOptions(path, &db);
  if (!s.ok()) return Fail("load the OPTIONS file of " + path, s);
  return command == "convert-to-stock"
             ? ConvertToStock(path, db)
             : BackupOrCheckpoint(command, flags, path, db);
}
