// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// A secondary instance (hybridkv::OpenSecondaryDB) following a primary in
// another process: the crash test's child (crash_child.cc), which runs the
// workload of crash_workload.h.
//
//   HYBRIDKV_LONG=1   follow for HYBRIDKV_LONG_SECONDS (default 600), not 8 s
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "crash_workload.h"
#include "plugin/hybridkv/blob/io/rocksdb_compat.h"
#include "rocksdb/db.h"
#include "rocksdb/env.h"
#include "rocksdb/file_system.h"
#include "rocksdb/utilities/stackable_db.h"
#include "test_util.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

using crash::WrittenBy;
using test::EnvU64;

// A secondary instance in this process follows a primary in another (the crash
// child, with the large class off: RocksDB's BlobDB does not support
// secondaries) that writes, flushes, compacts, deletes and punches medium
// files, and copies itself. Every value the secondary reads must be one an
// acknowledged operation (or the one in flight) wrote for its key; no read
// may fail. HYBRIDKV_LONG=1 runs HYBRIDKV_LONG_SECONDS (default 600).
TEST(SecondaryTest, FollowsAPrimaryInAnotherProcessWithoutWrongValues) {
  const bool long_mode = EnvU64("HYBRIDKV_LONG", 0) != 0;
  const uint64_t seconds = long_mode ? EnvU64("HYBRIDKV_LONG_SECONDS", 600) : 8;
  const uint64_t seed = 20261125;
  test::ScratchDir dir("secondary");
  const std::string db_path = dir.Sub("db");
  const std::string progress_path = dir.Sub("progress");
  const std::string copies = dir.Sub("copies");
  ASSERT_OK(Env::Default()->CreateDirIfMissing(copies));
  const char* child_env = std::getenv("HYBRIDKV_CRASH_CHILD_BIN");
  const std::string child = child_env != nullptr && *child_env != '\0'
                                ? child_env
                                : HYBRIDKV_CRASH_CHILD;
  const std::string args[] = {
      child, db_path, std::to_string(seed), "0", progress_path, "-1", copies};
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    // The primary dies with the test: killed by a CTest timeout, the test
    // would otherwise leave it writing copies until the disk is full.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    setenv("HYBRIDKV_CRASH_NO_BLOB", "1", 1);
    // In long runs, 1 MiB memtables and a flush, compaction or copy every
    // 0.5-0.6 s besides (see crash_child.cc): RocksDB's secondary replays
    // every MANIFEST edit and cannot follow the crash shape for minutes.
    if (long_mode) {
      setenv("HYBRIDKV_CRASH_PAUSE_MS", "500", 1);
      setenv("HYBRIDKV_CRASH_SCALE", "16", 1);
    }
    execv(argv[0], argv.data());
    _exit(127);
  }
  auto acked = [&] {
    uint64_t n = 0;
    const int fd = open(progress_path.c_str(), O_RDONLY);
    if (fd >= 0) {
      if (pread(fd, &n, sizeof(n), 0) != static_cast<ssize_t>(sizeof(n))) n = 0;
      close(fd);
    }
    return n;
  };
  const auto start_limit =
      std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (acked() < 2000) {
    if (std::chrono::steady_clock::now() > start_limit) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
      FAIL() << "the primary acknowledged " << acked()
             << " operations in 120 s";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  Options options = crash::MakeOptions(-1);
  options.enable_blob_files = false;
  options.max_open_files = -1;
  StackableDB* raw = nullptr;
  ASSERT_OK(
      hybridkv::OpenAsSecondary(options, db_path, dir.Sub("secondary"), &raw));
  std::unique_ptr<StackableDB> secondary(raw);
  std::mt19937_64 rng(seed);
  uint64_t catch_ups = 0, reads = 0, values = 0, errors = 0, wrong = 0;
  // It must keep following the primary (a catch-up that fails once could
  // stop it for good, blob/lifecycle/secondary_file_system.h): some value it
  // reads in the second half was written by an operation acknowledged after
  // halfway.
  uint64_t acked_at_halfway = 0, newest_op_read = 0;
  const auto halfway = std::chrono::steady_clock::now() +
                       std::chrono::milliseconds(seconds * 500);
  std::string first_error;
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  auto next_report = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() < deadline && wrong == 0) {
    ASSERT_OK(secondary->TryCatchUpWithPrimary())
        << "after " << catch_ups << " catch-ups";
    catch_ups++;
    if (acked_at_halfway == 0 && std::chrono::steady_clock::now() >= halfway) {
      acked_at_halfway = acked();
    }
    if (long_mode && std::chrono::steady_clock::now() >= next_report) {
      std::cout << "[SecondaryTest] " << catch_ups << " catch-ups, " << values
                << " values checked, " << errors << " errors" << std::endl;
      next_report += std::chrono::seconds(60);
    }
    // The operations the catch-up could have seen: those acknowledged since,
    // and the one in flight.
    const uint64_t max_op = acked();
    auto check = [&](const Slice& key_slice, const Slice& value_slice) {
      values++;
      const std::string key = key_slice.ToString();
      const std::string value = value_slice.ToString();
      if (!WrittenBy(seed, key, value, max_op)) {
        if (wrong++ == 0) {
          ADD_FAILURE() << key << " read a value no acknowledged operation "
                        << "wrote: " << value.substr(0, 30);
        }
      } else if (value.find(':') != std::string::npos) {  // "op<n>:..."
        newest_op_read = std::max<uint64_t>(
            newest_op_read, std::strtoull(value.c_str() + 2, nullptr, 10));
      }
    };
    // Catch-ups far apart: the secondary's Version lags the primary's, which
    // meanwhile deletes and punches what that Version still points into.
    const auto round_end = std::chrono::steady_clock::now() +
                           std::chrono::milliseconds(50 + rng() % 400);
    for (int n = 0; std::chrono::steady_clock::now() < round_end;
         ++n, ++reads) {
      const std::string key = crash::Key(rng() % crash::kKeys);
      std::string value;
      Status s = secondary->Get(ReadOptions(), key, &value);
      if (s.ok()) {
        check(key, value);
      } else if (!s.IsNotFound()) {
        if (errors++ == 0) first_error = s.ToString();
      }
    }
    std::unique_ptr<Iterator> it(secondary->NewIterator(ReadOptions()));
    it->Seek(crash::Key(rng() % crash::kKeys));
    for (int n = 0; n < 50 && it->Valid(); ++n, it->Next()) {
      check(it->key(), it->value());
    }
    reads++;
    if (!it->status().ok() && errors++ == 0)
      first_error = it->status().ToString();
  }
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  int wstatus = 0;
  ASSERT_EQ(waitpid(pid, &wstatus, 0), pid);
  EXPECT_TRUE(WIFSIGNALED(wstatus)) << "the primary ended on its own";
  std::cout << "[SecondaryTest] " << seconds << " s: " << catch_ups
            << " catch-ups, newest operation read " << newest_op_read << " ("
            << acked_at_halfway << " acknowledged halfway), " << reads
            << " reads, " << values << " values checked, " << wrong
            << " wrong, " << errors << " errors"
            << (errors ? " (first: " + first_error + ")" : "")
            << "; primary acknowledged " << acked() << " operations, "
            << test::MediumFileNumbers(db_path).size()
            << " medium files at the end\n";
  EXPECT_EQ(wrong, 0u);
  EXPECT_EQ(errors, 0u) << first_error;
  EXPECT_GT(values, 1000u);
  EXPECT_GT(acked_at_halfway, 0u);
  EXPECT_GT(newest_op_read, acked_at_halfway)
      << "the secondary stopped following the primary";
}

// Fails the next open of a table file once with PathNotFound, as when the
// primary deletes the table between a catch-up's read of the MANIFEST and its
// open of the table.
class VanishingTableFs : public FileSystemWrapper {
 public:
  VanishingTableFs() : FileSystemWrapper(FileSystem::Default()) {}
  const char* Name() const override { return "HybridKVTestVanishingTableFs"; }
  void FailNextTableOpen() { armed_ = true; }
  int failed() const { return failed_; }

  IOStatus NewRandomAccessFile(const std::string& f, const FileOptions& o,
                               std::unique_ptr<FSRandomAccessFile>* r,
                               IODebugContext* dbg) override {
    if (Slice(f).ends_with(".sst") && armed_.exchange(false)) {
      failed_++;
      return IOStatus::PathNotFound("test: " + f + " vanished");
    }
    return target()->NewRandomAccessFile(f, o, r, dbg);
  }

 private:
  std::atomic<bool> armed_{false};
  std::atomic<int> failed_{0};
};

// What a follower did after meeting a vanished table.
struct Followed {
  Status first;            // the catch-up that met it
  Status second;           // the next, after the primary wrote more
  std::string k1, k2, k3;  // k1 after the first; k2 and k3 after the second
  SequenceNumber lag = 0;  // sequence numbers behind the primary, at the end

  std::string Describe() const {
    return "catch-up meeting the vanished table: " + first.ToString() +
           "; next catch-up: " + second.ToString() + "; then read k1 " +
           (k1.empty() ? "missing" : "found") + ", k2 " +
           (k2.empty() ? "missing" : "found") + ", k3 " +
           (k3.empty() ? "missing" : "found") + "; " + std::to_string(lag) +
           " sequence numbers behind the primary";
  }
};

// A primary writes k1 (flushed), a secondary opens through `open`
// (OpenAsSecondary's or RocksDB's own), the primary writes k2 (flushed), and
// the secondary's next catch-up fails to open k2's table once; the primary
// then writes k3 (in its WAL only) and the secondary catches up again.
template <typename OpenFn>
Followed FollowPastAVanishedTable(const std::string& name, OpenFn open) {
  test::ScratchDir dir(name);
  Options options = test::SmallLsmOptions();
  options.enable_blob_files = false;
  DB* raw_primary = nullptr;
  EXPECT_OK(hybridkv::OpenDB(options, dir.Sub("db"), &raw_primary));
  std::unique_ptr<DB> primary(raw_primary);
  const std::string medium(200, 'm');  // a medium value: pointers in SSTs
  EXPECT_OK(primary->Put(WriteOptions(), "k1", medium + "1"));
  EXPECT_OK(primary->Flush(FlushOptions()));
  auto fs = std::make_shared<VanishingTableFs>();
  std::unique_ptr<Env> env = NewCompositeEnv(fs);
  Options secondary_options = options;
  secondary_options.env = env.get();
  secondary_options.max_open_files = -1;
  // A table is then first opened where a catch-up loads the Version that
  // holds it, where the primary's deletions bite.
  secondary_options.verify_sst_unique_id_in_manifest = false;
  std::unique_ptr<DB> secondary =
      open(secondary_options, dir.Sub("db"), dir.Sub("secondary"));
  Followed f;
  if (secondary == nullptr) return f;
  EXPECT_OK(primary->Put(WriteOptions(), "k2", medium + "2"));
  EXPECT_OK(primary->Flush(FlushOptions()));
  fs->FailNextTableOpen();
  f.first = secondary->TryCatchUpWithPrimary();
  EXPECT_EQ(fs->failed(), 1) << "no table open failed: nothing was tested";
  secondary->Get(ReadOptions(), "k1", &f.k1).PermitUncheckedError();
  EXPECT_OK(primary->Put(WriteOptions(), "k3", medium + "3"));
  f.second = secondary->TryCatchUpWithPrimary();
  secondary->Get(ReadOptions(), "k2", &f.k2).PermitUncheckedError();
  secondary->Get(ReadOptions(), "k3", &f.k3).PermitUncheckedError();
  f.lag =
      primary->GetLatestSequenceNumber() - secondary->GetLatestSequenceNumber();
  secondary.reset();  // before the Env it reads through
  return f;
}

// A catch-up that meets a table the primary deleted keeps the secondary's
// Version, and the next one moves on (blob/lifecycle/secondary_file_system.h).
// RocksDB's own secondary on the same file system is printed for comparison
// (on 11.8.1 both catch-ups fail with the first one's error).
TEST(SecondaryTest, CatchUpSkipsATableDeletedBeforeItsOpenAndKeepsFollowing) {
  const Followed hybrid = FollowPastAVanishedTable(
      "vanish-hybrid", [](const Options& options, const std::string& db,
                          const std::string& secondary_path) {
        StackableDB* raw = nullptr;
        EXPECT_OK(hybridkv::OpenAsSecondary(options, db, secondary_path, &raw));
        return std::unique_ptr<DB>(raw);
      });
  std::cout << "[hybridkv::OpenAsSecondary] " << hybrid.Describe() << "\n";
  EXPECT_OK(hybrid.first);
  EXPECT_OK(hybrid.second);
  const std::string medium(200, 'm');
  EXPECT_EQ(hybrid.k1, medium + "1");
  EXPECT_EQ(hybrid.k2, medium + "2");
  EXPECT_EQ(hybrid.k3, medium + "3");
  EXPECT_EQ(hybrid.lag, 0u);

  const Followed stock = FollowPastAVanishedTable(
      "vanish-stock", [](const Options& options, const std::string& db,
                         const std::string& secondary_path) {
        DB* raw = nullptr;
        EXPECT_OK(hybridkv::OpenSecondaryDB(options, db, secondary_path, &raw));
        return std::unique_ptr<DB>(raw);
      });
  std::cout << "[DB::OpenAsSecondary] " << stock.Describe() << "\n";
}

// An open that meets a table the primary deleted after the MANIFEST named it
// succeeds (hybridkv::OpenAsSecondary tries again where RocksDB's open fails),
// and follows the primary from there. A table missing for good gets
// RocksDB's own answer.
TEST(SecondaryTest, OpenRetriesPastATableDeletedDuringIt) {
  test::ScratchDir dir("vanish-open");
  Options options = test::SmallLsmOptions();
  options.enable_blob_files = false;
  DB* raw_primary = nullptr;
  ASSERT_OK(hybridkv::OpenDB(options, dir.Sub("db"), &raw_primary));
  std::unique_ptr<DB> primary(raw_primary);
  const std::string medium(200, 'm');
  ASSERT_OK(primary->Put(WriteOptions(), "k1", medium + "1"));
  ASSERT_OK(primary->Flush(FlushOptions()));
  auto fs = std::make_shared<VanishingTableFs>();
  std::unique_ptr<Env> env = NewCompositeEnv(fs);
  Options secondary_options = options;
  secondary_options.env = env.get();
  secondary_options.max_open_files = -1;  // the open opens every table
  // The open checks a table's size (VerifyFile), then opens it: the primary
  // deletes it in between. (With the unique-id check on, the check opens it,
  // and a table gone there leaves a Version out, as a missing one does.)
  secondary_options.verify_sst_unique_id_in_manifest = false;

  fs->FailNextTableOpen();
  DB* raw_stock = nullptr;
  const Status stock = hybridkv::OpenSecondaryDB(
      secondary_options, dir.Sub("db"), dir.Sub("stock"), &raw_stock);
  EXPECT_TRUE(stock.IsPathNotFound())
      << "RocksDB's own open no longer fails here: " << stock.ToString();
  delete raw_stock;

  fs->FailNextTableOpen();
  StackableDB* raw = nullptr;
  ASSERT_OK(hybridkv::OpenAsSecondary(secondary_options, dir.Sub("db"),
                                      dir.Sub("secondary"), &raw));
  std::unique_ptr<StackableDB> secondary(raw);
  EXPECT_EQ(fs->failed(), 2) << "no table open failed: nothing was tested";
  // The primary moves on, as it had when a table really vanished; one
  // catch-up later the secondary reads everything.
  ASSERT_OK(primary->Put(WriteOptions(), "k2", medium + "2"));
  ASSERT_OK(primary->Flush(FlushOptions()));
  ASSERT_OK(primary->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  ASSERT_OK(secondary->TryCatchUpWithPrimary());
  for (const char* key : {"k1", "k2"}) {
    std::string value;
    ASSERT_OK(secondary->Get(ReadOptions(), key, &value)) << key;
    EXPECT_EQ(value, medium + key[1]);
  }
  secondary.reset();

  // Gone for good: after its tries the open returns what RocksDB's does.
  std::vector<LiveFileMetaData> files;
  primary->GetLiveFilesMetaData(&files);
  ASSERT_FALSE(files.empty());
  primary.reset();
  for (const auto& file : files) {
    ASSERT_OK(Env::Default()->DeleteFile(file.directory + "/" +
                                         file.relative_filename));
  }
  raw_stock = nullptr;
  const Status stock_gone = hybridkv::OpenSecondaryDB(
      secondary_options, dir.Sub("db"), dir.Sub("stock2"), &raw_stock);
  delete raw_stock;
  raw = nullptr;
  const Status gone = hybridkv::OpenAsSecondary(
      secondary_options, dir.Sub("db"), dir.Sub("secondary2"), &raw);
  delete raw;
  EXPECT_EQ(gone.code(), stock_gone.code()) << gone.ToString();
  EXPECT_EQ(gone.subcode(), stock_gone.subcode()) << gone.ToString();
}

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
