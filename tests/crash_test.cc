// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// Crash test: a child process (crash_child.cc) loads and overwrites a mixed
// small/medium/large workload with periodic synced writes, flushes and
// compactions; the parent kills it with SIGKILL at a random moment, reopens the
// DB and checks:
//
// - every acknowledged write is present, and nothing appears that was never
//   written: the DB equals the expected state of exactly the acknowledged
//   operations, or of those plus the one in flight (the workload is a pure
//   function of the seed, crash_workload.h);
// - DB::VerifyChecksum passes (SSTs, blob files and every referenced .medium
//   file);
// - once the listener has reconciled (any flush), no .medium file is left that
//   no live SST references, and none that a live SST references is missing.
//
// Meanwhile the child copies the DB, a checkpoint and a backup in turns, and
// is often killed in the middle of one. Every copy that completed must open
// and read: checksums pass, and every value is one the workload wrote for its
// key, by an acknowledged operation (or the one in flight). The source keeps
// no link a killed backup made.
//
// The next child continues from the recovered state, so recovery flushes and
// crash leftovers of every earlier iteration are exercised again. The merge
// level varies between children (1, -1, -2).
//
//   HYBRIDKV_CRASH_ITERATIONS=<n>   kills per run (default 10)
//   HYBRIDKV_SEED=<n>               workload seed
//   HYBRIDKV_LONG=1                 kill for HYBRIDKV_LONG_SECONDS (default
//   600)
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "crash_workload.h"
#include "file/filename.h"
#include "plugin/hybridkv/blob/format/medium_refs.h"
#include "plugin/hybridkv/blob/io/rocksdb_compat.h"
#include "rocksdb/db.h"
#include "rocksdb/utilities/backup_engine.h"
#include "test_util.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

using crash::WrittenBy;
using test::EnvU64;
using Model = std::map<std::string, std::string>;
using Pairs = std::vector<std::pair<std::string, std::string>>;

Status ReferencedMediumFiles(DB* db, std::set<uint64_t>* out) {
  TablePropertiesCollection props;
  Status s = db->GetPropertiesOfAllTables(&props);
  for (const auto& [file, p] : props) {
    if (!s.ok()) break;
    MediumRefs refs;
    bool known = false;
    s = GetMediumRefs(*p, &refs, &known);
    for (const auto& ref : refs) out->insert(ref.first);
  }
  return s;
}

// What differs between a scan and the model, for the failure message.
std::string Diff(const std::vector<std::pair<std::string, std::string>>& scan,
                 const Model& model) {
  std::vector<std::pair<std::string, std::string>> expected(model.begin(),
                                                            model.end());
  size_t j = 0;
  while (j < scan.size() && j < expected.size() && scan[j] == expected[j]) ++j;
  std::string out = "first difference at entry " + std::to_string(j) + ": db ";
  if (j < scan.size()) {
    out += scan[j].first + " (" + scan[j].second.substr(0, 24) + "...)";
  } else {
    out += "<end>";
  }
  out += ", expected ";
  if (j < expected.size()) {
    out += expected[j].first + " (" + expected[j].second.substr(0, 24) + "...)";
  } else {
    out += "<end>";
  }
  return out + "; db has " + std::to_string(scan.size()) + " keys, expected " +
         std::to_string(expected.size());
}

// Opens the copy at `path` and checks that it reads: checksums pass, and each
// value is the one some operation below `max_op` wrote for its key.
void CheckCopy(const std::string& path, uint64_t seed, uint64_t max_op) {
  SCOPED_TRACE("copy " + path);
  Options options = crash::MakeOptions(-2);
  options.disable_auto_compactions = true;
  DB* raw = nullptr;
  ASSERT_OK(hybridkv::OpenDB(options, path, &raw));
  std::unique_ptr<DB> db(raw);
  ASSERT_OK(db->VerifyChecksum());
  for (const auto& [key, value] : test::ScanAll(db.get())) {
    ASSERT_NE(key, "<iterator error>") << value;
    ASSERT_TRUE(WrittenBy(seed, key, value, max_op))
        << key << " holds a value no acknowledged operation wrote for it: "
        << value.substr(0, 24);
  }
  ASSERT_OK(db->Close());
}

// Checks and removes the copies a killed child completed: checkpoints whole,
// the latest backup by restoring it. Returns how many were checked.
int CheckCopies(const std::string& copies, uint64_t seed, uint64_t max_op) {
  int checked = 0;
  std::vector<std::string> children;
  EXPECT_OK(Env::Default()->GetChildren(copies, &children));
  const Options options = crash::MakeOptions(-2);
  for (const std::string& c : children) {
    if (c.rfind("ckpt-", 0) != 0) continue;
    const std::string path = copies + "/" + c;
    // RocksDB's Checkpoint renames its staging directory into place last.
    if (c.size() < 4 || c.compare(c.size() - 4, 4, ".tmp") != 0) {
      CheckCopy(path, seed, max_op);
      checked++;
    }
    EXPECT_OK(hybridkv::DestroyDB(path, options));
    std::string out;
    test::RunCommand("rm -rf " + path, &out);
  }
  BackupEngine* raw = nullptr;
  EXPECT_OK(BackupEngine::Open(Env::Default(),
                               BackupEngineOptions(copies + "/backups"), &raw));
  std::unique_ptr<BackupEngine> engine(raw);
  std::vector<BackupInfo> backups;
  engine->GetBackupInfo(&backups);
  if (!backups.empty()) {
    const std::string restored = copies + "/restored";
    EXPECT_OK(hybridkv::VerifyBackup(engine.get(), backups.back().backup_id,
                                     /*verify_with_checksum=*/true));
    EXPECT_OK(
        hybridkv::RestoreDBFromLatestBackup(engine.get(), restored, restored));
    CheckCopy(restored, seed, max_op);
    EXPECT_OK(hybridkv::DestroyDB(restored, options));
    EXPECT_OK(engine->PurgeOldBackups(1));
    checked++;
  }
  return checked;
}

TEST(CrashTest, SigkillAtRandomMomentsKeepsAConsistentPrefix) {
  const bool long_mode = EnvU64("HYBRIDKV_LONG", 0) != 0;
  const uint64_t iterations =
      long_mode ? UINT64_MAX : EnvU64("HYBRIDKV_CRASH_ITERATIONS", 10);
  const auto deadline =
      std::chrono::steady_clock::now() +
      std::chrono::seconds(EnvU64("HYBRIDKV_LONG_SECONDS", 600));
  uint64_t seed = EnvU64("HYBRIDKV_SEED", 0);
  if (seed == 0) seed = long_mode ? std::random_device()() : 20240611;
  std::mt19937_64 rng(seed);
  test::ScratchDir dir("crash");
  const std::string db_path = dir.Sub("db");
  const std::string progress_path = dir.Sub("progress");
  const std::string copies = dir.Sub("copies");
  ASSERT_OK(Env::Default()->CreateDirIfMissing(copies));
  uint64_t killed_in_checkpoint = 0, killed_in_backup = 0, copies_checked = 0;
  // HYBRIDKV_CRASH_CHILD_BIN: a copy of the child, for long runs while the
  // build tree is being rebuilt.
  const char* child_env = std::getenv("HYBRIDKV_CRASH_CHILD_BIN");
  const std::string child = child_env != nullptr && *child_env != '\0'
                                ? child_env
                                : HYBRIDKV_CRASH_CHILD;
  SCOPED_TRACE("seed=" + std::to_string(seed) +
               " (reproduce with HYBRIDKV_SEED=" + std::to_string(seed) + ")");

  Model model;
  uint64_t applied = 0;  // `model` holds operations [0, applied)
  uint64_t in_flight_recovered = 0, medium_files_seen = 0;
  uint64_t iter = 0;
  for (; iter < iterations; ++iter) {
    if (long_mode && std::chrono::steady_clock::now() >= deadline) break;
    SCOPED_TRACE("iteration " + std::to_string(iter) + ", from operation " +
                 std::to_string(applied));
    // The default (auto) first: it starts at -1 on the empty DB and turns
    // to -2 in a later run, once the LSM is deep enough.
    static const int kMergeLevels[] = {kAutoMergeLevel, -2, -1, 1};
    const std::string args[] = {child,
                                db_path,
                                std::to_string(seed),
                                std::to_string(applied),
                                progress_path,
                                MergeLevelToString(kMergeLevels[iter % 4]),
                                copies};
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    {
      // The parent writes the starting point, so that a kill before the child
      // has even started (slow under sanitizers) still leaves a progress file.
      const int fd =
          open(progress_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      ASSERT_GE(fd, 0);
      ASSERT_EQ(pwrite(fd, &applied, sizeof(applied), 0),
                static_cast<ssize_t>(sizeof(applied)));
      close(fd);
    }
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      execv(argv[0], argv.data());
      _exit(127);
    }
    // Early kills land in recovery and the first flushes; later ones amid
    // compactions.
    const uint64_t max_ms = long_mode ? 2500 : 900;
    std::this_thread::sleep_for(std::chrono::milliseconds(30 + rng() % max_ms));
    ASSERT_EQ(kill(pid, SIGKILL), 0);
    int wstatus = 0;
    ASSERT_EQ(waitpid(pid, &wstatus, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(wstatus))
        << "the child ended on its own, exit status "
        << (WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1);

    uint64_t acked = 0;
    {
      const int fd = open(progress_path.c_str(), O_RDONLY);
      ASSERT_GE(fd, 0);
      ASSERT_EQ(pread(fd, &acked, sizeof(acked), 0),
                static_cast<ssize_t>(sizeof(acked)));
      close(fd);
    }
    ASSERT_GE(acked, applied);
    for (; applied < acked; ++applied) {
      crash::Apply(crash::MakeOp(seed, applied), &model);
    }
    medium_files_seen += test::MediumFileNumbers(db_path).size();
    std::string copying;
    if (ReadFileToString(Env::Default(), copies + "/copying", &copying).ok()) {
      (copying == "c" ? killed_in_checkpoint : killed_in_backup)++;
      ASSERT_OK(Env::Default()->DeleteFile(copies + "/copying"));
    }

    // No background compactions while checking: the medium files on disk and
    // the references of the live SSTs are then compared at one moment.
    Options check_options = crash::MakeOptions(-2);
    check_options.disable_auto_compactions = true;
    DB* raw = nullptr;
    ASSERT_OK(hybridkv::OpenDB(check_options, db_path, &raw));
    std::unique_ptr<DB> db(raw);
    const auto scan = test::ScanAll(db.get());
    if (scan != Pairs(model.begin(), model.end())) {
      // The operation in flight at the kill may have reached the WAL.
      Model next = model;
      crash::Apply(crash::MakeOp(seed, applied), &next);
      ASSERT_TRUE((scan == Pairs(next.begin(), next.end())))
          << "after " << acked
          << " acknowledged operations: " << Diff(scan, model);
      model.swap(next);
      ++applied;
      ++in_flight_recovered;
    }
    ASSERT_OK(db->VerifyChecksum());

    // Any flush lets the listener reconcile: crash leftovers go.
    ASSERT_OK(db->Put(WriteOptions(), "~reconcile", "x"));
    ASSERT_OK(db->Delete(WriteOptions(), "~reconcile"));
    ASSERT_OK(db->Flush(FlushOptions()));
    std::set<uint64_t> referenced, orphans;
    for (int tries = 0; tries < 100; ++tries) {
      referenced.clear();
      ASSERT_OK(ReferencedMediumFiles(db.get(), &referenced));
      orphans.clear();
      for (uint64_t m : test::MediumFileNumbers(db_path)) {
        if (referenced.count(m) == 0) orphans.insert(m);
      }
      if (orphans.empty()) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    EXPECT_TRUE(orphans.empty())
        << orphans.size() << " orphaned medium files, e.g. " << *orphans.begin()
        << ".medium";
    const auto on_disk = test::MediumFileNumbers(db_path);
    for (uint64_t m : referenced) {
      EXPECT_EQ(on_disk.count(m), 1u) << m << ".medium is referenced but gone";
    }
    ASSERT_OK(db->VerifyChecksum());
    // A backup killed mid-way left its links; the reconciling flush removed
    // them.
    for (uint64_t m : on_disk) {
      EXPECT_TRUE(
          Env::Default()->FileExists(BlobFileName(db_path, m)).IsNotFound())
          << "a backup's link to " << m << ".medium is left";
    }
    ASSERT_OK(db->Close());
    // Operations up to the one in flight may be in a copy.
    copies_checked += CheckCopies(copies, seed, applied);
    if (HasFailure()) break;
  }
  std::cout << "[CrashTest] seed=" << seed << ": " << iter
            << " SIGKILL iterations survived, " << applied
            << " operations, in-flight operation recovered "
            << in_flight_recovered << " times, " << medium_files_seen
            << " medium files found at the kills; killed during a checkpoint "
            << killed_in_checkpoint << " times, during a backup "
            << killed_in_backup << " times; " << copies_checked
            << " completed copies read\n";
  EXPECT_GT(medium_files_seen, 0u) << "the workload never left a medium file";
  // A child that ran with merge_level=auto found the LSM deep enough for -2
  // (L3): else auto's second level was never under the kills. (The move from
  // -1 within one run is the model test's; here the first kills may come
  // before the first compaction.)
  if (iter > 4) {
    EXPECT_EQ(test::AutoMergeLevelsLogged(db_path).count("L3"), 1u)
        << "merge_level=auto never chose L3";
  }
}

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
