// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// File-system faults under HybridKV:
//
// - Power loss, with RocksDB's FaultInjectionTestFS: unsynced data is dropped
//   and files created after the last directory sync vanish. Every write before
//   the last synced one survives, the DB holds a prefix of the writes, and
//   every .medium file a live SST references survived (medium files and the
//   secret are synced, file and directory, before their SSTs go live).
// - Failed writes and syncs of .medium files and SSTs during flush and
//   compaction, and failed reads of .medium files during merge-level
//   compactions: the DB reports the error, then recovers (Resume, or a reopen)
//   with every acknowledged write, and never serves wrong data.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <ostream>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "hybridkv/hybridkv.h"
#include "plugin/hybridkv/blob/format/medium_refs.h"
#include "plugin/hybridkv/blob/io/rocksdb_compat.h"
#include "rocksdb/db.h"
#include "rocksdb/env.h"
#include "rocksdb/file_system.h"
#include "rocksdb/table.h"
#include "test_util.h"
#include "utilities/fault_injection_fs.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

using Model = std::map<std::string, std::string>;
using Pairs = std::vector<std::pair<std::string, std::string>>;

std::string Key(uint64_t i) {
  char buf[24];
  snprintf(buf, sizeof(buf), "fault%010llu",
           static_cast<unsigned long long>(i));
  return buf;
}

// Small, medium and large values, unique to (i, version).
std::string Value(uint64_t i, uint64_t version) {
  std::mt19937_64 rng(i * 1000003 + version);
  const uint64_t pick = rng() % 10;
  const size_t size =
      pick < 3 ? 10 + rng() % 60 : (pick < 8 ? 100 + rng() % 800 : 1200);
  std::string v = std::to_string(i) + "/" + std::to_string(version) + ":";
  while (v.size() < size) v.push_back(static_cast<char>('a' + rng() % 26));
  v.resize(size);
  return v;
}

Options BaseOptions(Env* env) {
  Options options = test::SmallLsmOptions(128 << 10, 64 << 10);
  options.max_bytes_for_level_multiplier = 10;  // RocksDB's default
  options.env = env;
  options.num_levels = 4;
  options.max_background_jobs = 2;
  return options;
}

std::set<uint64_t> Referenced(DB* db) {
  TablePropertiesCollection props;
  EXPECT_OK(db->GetPropertiesOfAllTables(&props));
  std::set<uint64_t> out;
  for (const auto& [file, p] : props) {
    MediumRefs refs;
    bool known = false;
    EXPECT_OK(GetMediumRefs(*p, &refs, &known));
    for (const auto& ref : refs) out.insert(ref.first);
  }
  return out;
}

// After any flush, the listener reconciles: the medium files on disk are
// exactly those live SSTs reference.
void ExpectMediumFilesReconciled(DB* db, const std::string& dir) {
  ASSERT_OK(db->Put(WriteOptions(), "~reconcile", "x"));
  ASSERT_OK(db->Delete(WriteOptions(), "~reconcile"));
  ASSERT_OK(db->Flush(FlushOptions()));
  std::set<uint64_t> referenced, on_disk;
  for (int tries = 0; tries < 100; ++tries) {
    referenced = Referenced(db);
    on_disk = test::MediumFileNumbers(dir);
    if (referenced == on_disk) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(on_disk, referenced)
      << "medium files on disk vs referenced by live SSTs";
}

// Power loss after a random mix of synced and unsynced writes, flushes and
// compactions, several times over the same DB.
TEST(FaultInjectionTest, PowerLossKeepsEverySyncedWriteAndAPrefix) {
  test::ScratchDir dir("powerloss");
  auto fault_fs = std::make_shared<FaultInjectionTestFS>(FileSystem::Default());
  std::unique_ptr<Env> env = NewCompositeEnv(fault_fs);
  Options options = BaseOptions(env.get());
  // Flushes and compactions only when the test asks: the loss then hits the
  // files it means to.
  options.disable_auto_compactions = true;
  std::mt19937_64 rng(77);
  Model model;  // what the DB must hold after the loss: all writes up to
                // `synced`
  struct Write {
    uint64_t key;
    std::string value;  // empty: a Delete
  };
  uint64_t version = 0;
  for (int round = 0; round < 8; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    DB* raw = nullptr;
    ASSERT_OK(hybridkv::OpenDB(options, dir.path(), &raw));
    std::unique_ptr<DB> db(raw);
    ASSERT_TRUE((test::ScanAll(db.get()) == Pairs(model.begin(), model.end())));
    ASSERT_OK(db->VerifyChecksum());
    ExpectMediumFilesReconciled(db.get(), dir.path());
    // Synced and flushed parts first, then an unsynced tail.
    std::vector<Write> tail;
    const int phases = 2 + static_cast<int>(rng() % 3);
    for (int phase = 0; phase < phases; ++phase) {
      const bool last = phase + 1 == phases;
      for (int j = 0; j < 300; ++j) {
        Write w{rng() % 800,
                rng() % 8 == 0 ? "" : Value(rng() % 800, ++version)};
        WriteOptions wo;
        wo.sync = !last && j == 299;  // syncs the WAL, and all before it
        if (w.value.empty()) {
          ASSERT_OK(db->Delete(wo, Key(w.key)));
        } else {
          ASSERT_OK(db->Put(wo, Key(w.key), w.value));
        }
        tail.push_back(std::move(w));
        if (wo.sync) {
          for (auto& t : tail) {
            if (t.value.empty()) {
              model.erase(Key(t.key));
            } else {
              model[Key(t.key)] = t.value;
            }
          }
          tail.clear();
        }
      }
      if (!last && rng() % 2 == 0) {
        ASSERT_OK(db->Flush(FlushOptions()));
      }
      if (!last && rng() % 3 == 0) {
        CompactRangeOptions cro;
        cro.bottommost_level_compaction =
            rng() % 2 ? BottommostLevelCompaction::kForce
                      : BottommostLevelCompaction::kSkip;
        ASSERT_OK(db->CompactRange(cro, nullptr, nullptr));
      }
    }
    // Sometimes a flush of the unsynced tail right before the loss: its SST
    // and medium file are synced, the WAL is not.
    if (rng() % 2 == 0) {
      ASSERT_OK(db->Flush(FlushOptions()));
    }
    // Power loss.
    fault_fs->SetFilesystemActive(false);
    db->Close().PermitUncheckedError();
    db.reset();
    ASSERT_OK(fault_fs->DropUnsyncedFileData());
    fault_fs->SetFilesystemActive(true);
    ASSERT_OK(
        fault_fs->DeleteFilesCreatedAfterLastDirSync(IOOptions(), nullptr));
    fault_fs->ResetState();

    ASSERT_OK(hybridkv::OpenDB(options, dir.path(), &raw));
    db.reset(raw);
    ASSERT_OK(db->VerifyChecksum());
    // The DB holds every synced write plus a prefix of the unsynced tail.
    const Pairs scan = test::ScanAll(db.get());
    bool matched = scan == Pairs(model.begin(), model.end());
    size_t kept = 0;
    for (size_t j = 0; j < tail.size() && !matched; ++j) {
      if (tail[j].value.empty()) {
        model.erase(Key(tail[j].key));
      } else {
        model[Key(tail[j].key)] = tail[j].value;
      }
      matched = scan == Pairs(model.begin(), model.end());
      kept = j + 1;
    }
    ASSERT_TRUE(matched) << "the DB is not a prefix of the writes; "
                         << scan.size() << " keys";
    std::cout << "[FaultInjectionTest] round " << round << ": " << kept
              << " of " << tail.size() << " unsynced writes survived\n";
    ASSERT_OK(db->Close());
  }
}

// Fails creating, Append, Sync and Read on files with a given suffix while
// armed.
class FailingFS : public FileSystemWrapper {
 public:
  explicit FailingFS(const std::shared_ptr<FileSystem>& base)
      : FileSystemWrapper(base) {}
  static const char* kClassName() { return "HybridKVFailingFS"; }
  const char* Name() const override { return kClassName(); }

  enum What { kNothing, kCreate, kAppend, kSync, kRead };
  void Arm(What what, const std::string& suffix) {
    suffix_ = suffix;
    what_ = what;
    injected_ = 0;
  }
  void Disarm() { what_ = kNothing; }
  int injected() const { return injected_; }

  bool Hit(What what, const std::string& name) {
    if (what_.load() != what) return false;
    if (name.size() < suffix_.size() ||
        name.compare(name.size() - suffix_.size(), suffix_.size(), suffix_) !=
            0) {
      return false;
    }
    injected_++;
    std::lock_guard<std::mutex> lock(mu_);
    last_hit_ = name;
    return true;
  }
  // The file the last injected failure hit.
  std::string last_hit() {
    std::lock_guard<std::mutex> lock(mu_);
    return last_hit_;
  }

  IOStatus NewWritableFile(const std::string& fname, const FileOptions& opts,
                           std::unique_ptr<FSWritableFile>* result,
                           IODebugContext* dbg) override {
    if (Hit(kCreate, fname)) return Injected("create", fname);
    IOStatus s = target()->NewWritableFile(fname, opts, result, dbg);
    if (s.ok()) result->reset(new File(this, fname, std::move(*result)));
    return s;
  }

  IOStatus NewRandomAccessFile(const std::string& fname,
                               const FileOptions& opts,
                               std::unique_ptr<FSRandomAccessFile>* result,
                               IODebugContext* dbg) override {
    IOStatus s = target()->NewRandomAccessFile(fname, opts, result, dbg);
    if (s.ok()) result->reset(new Reader(this, fname, std::move(*result)));
    return s;
  }

 private:
  static IOStatus Injected(const std::string& what, const std::string& name) {
    return IOStatus::IOError("injected " + what + " failure: " + name);
  }

  class File : public FSWritableFileOwnerWrapper {
   public:
    File(FailingFS* fs, std::string name, std::unique_ptr<FSWritableFile> f)
        : FSWritableFileOwnerWrapper(std::move(f)),
          fs_(fs),
          name_(std::move(name)) {}
    IOStatus Append(const Slice& data, const IOOptions& o,
                    IODebugContext* dbg) override {
      if (fs_->Hit(kAppend, name_)) return Injected("append", name_);
      return target()->Append(data, o, dbg);
    }
    IOStatus Append(const Slice& data, const IOOptions& o,
                    const DataVerificationInfo& info,
                    IODebugContext* dbg) override {
      if (fs_->Hit(kAppend, name_)) return Injected("append", name_);
      return target()->Append(data, o, info, dbg);
    }
    IOStatus Sync(const IOOptions& o, IODebugContext* dbg) override {
      if (fs_->Hit(kSync, name_)) return Injected("sync", name_);
      return target()->Sync(o, dbg);
    }
    IOStatus Fsync(const IOOptions& o, IODebugContext* dbg) override {
      if (fs_->Hit(kSync, name_)) return Injected("fsync", name_);
      return target()->Fsync(o, dbg);
    }

   private:
    FailingFS* fs_;
    std::string name_;
  };

  class Reader : public FSRandomAccessFileOwnerWrapper {
   public:
    Reader(FailingFS* fs, std::string name,
           std::unique_ptr<FSRandomAccessFile> f)
        : FSRandomAccessFileOwnerWrapper(std::move(f)),
          fs_(fs),
          name_(std::move(name)) {}
    IOStatus Read(uint64_t offset, size_t n, const IOOptions& o, Slice* result,
                  char* scratch, IODebugContext* dbg) const override {
      if (fs_->Hit(kRead, name_)) return Injected("read", name_);
      return target()->Read(offset, n, o, result, scratch, dbg);
    }
    IOStatus MultiRead(FSReadRequest* reqs, size_t num_reqs, const IOOptions& o,
                       IODebugContext* dbg) override {
      if (fs_->Hit(kRead, name_)) return Injected("read", name_);
      return target()->MultiRead(reqs, num_reqs, o, dbg);
    }

   private:
    FailingFS* fs_;
    std::string name_;
  };

  std::atomic<What> what_{kNothing};
  std::string suffix_;
  std::atomic<int> injected_{0};
  std::mutex mu_;
  std::string last_hit_;
};

// A DB on a FailingFS, automatic compactions off: a fault hits the flush or
// compaction the test starts. Set `options` before Open.
struct DbOnFailingFs {
  std::shared_ptr<FailingFS> failing =
      std::make_shared<FailingFS>(FileSystem::Default());
  std::unique_ptr<Env> env = NewCompositeEnv(failing);
  Options options = BaseOptions(env.get());
  std::unique_ptr<DB> db;
  DbOnFailingFs() { options.disable_auto_compactions = true; }
  Status Open(const std::string& path) {
    db.reset();
    DB* raw = nullptr;
    Status s = hybridkv::OpenDB(options, path, &raw);
    db.reset(raw);
    return s;
  }
};

struct FaultCase {
  const char* name;
  FailingFS::What what;
  const char* suffix;
  bool in_compaction;  // else in a flush
};

// For test listings: the case's name, not its bytes.
void PrintTo(const FaultCase& c, std::ostream* os) { *os << c.name; }

class FailedIoTest : public testing::TestWithParam<FaultCase> {};

// The fault hits a flush or a merge-level compaction. The DB reports it, then
// recovers (Resume, else a reopen) with every acknowledged write; no read ever
// returns wrong bytes, and no medium file is orphaned.
TEST_P(FailedIoTest, ReportedThenRecoveredWithoutWrongData) {
  const FaultCase& c = GetParam();
  test::ScratchDir dir(std::string("failio-") + c.name);
  DbOnFailingFs f;
  f.options.paranoid_checks = true;
  ASSERT_OK(f.Open(dir.path()));
  const std::shared_ptr<FailingFS>& failing = f.failing;
  const Options& options = f.options;
  std::unique_ptr<DB>& db = f.db;
  DB* raw = nullptr;
  Model model;
  uint64_t version = 0;
  auto load = [&](uint64_t n) {
    for (uint64_t i = 0; i < n; ++i) {
      std::string v = Value(i, ++version);
      ASSERT_OK(db->Put(WriteOptions(), Key(i), v));
      model[Key(i)] = std::move(v);
    }
  };
  auto check_reads = [&](const char* when) {
    // Every read either fails or returns the right bytes.
    for (const auto& [k, v] : model) {
      std::string got;
      Status s = db->Get(ReadOptions(), k, &got);
      if (s.ok()) {
        ASSERT_EQ(got, v) << when << ": wrong value for " << k;
      } else {
        ASSERT_FALSE(s.IsNotFound()) << when << ": " << k << " lost";
      }
    }
  };
  load(600);
  ASSERT_OK(db->Flush(FlushOptions()));
  load(600);  // a second version in the memtable
  Status s;
  if (c.in_compaction) {
    ASSERT_OK(db->Flush(FlushOptions()));
    failing->Arm(c.what, c.suffix);
    CompactRangeOptions cro;
    cro.bottommost_level_compaction = BottommostLevelCompaction::kForce;
    s = db->CompactRange(cro, nullptr,
                         nullptr);  // to the merge level and below
  } else {
    failing->Arm(c.what, c.suffix);
    s = db->Flush(FlushOptions());
  }
  const int injected = failing->injected();
  ASSERT_GT(injected, 0) << "the fault was never hit";
  EXPECT_FALSE(s.ok()) << "an injected " << c.name
                       << " failure went unreported";
  check_reads("while failing");
  failing->Disarm();
  check_reads("after the fault");

  Status resumed = db->Resume();
  if (!resumed.ok()) {
    // Refusing to go on is allowed; a reopen must then recover.
    std::cout << "[FailedIoTest] " << c.name
              << ": Resume: " << resumed.ToString() << "; reopening\n";
    db->Close().PermitUncheckedError();
    db.reset();
    ASSERT_OK(hybridkv::OpenDB(options, dir.path(), &raw));
    db.reset(raw);
  }
  ASSERT_TRUE((test::ScanAll(db.get()) == Pairs(model.begin(), model.end())));
  // The work the fault stopped now succeeds.
  ASSERT_OK(db->Flush(FlushOptions()));
  CompactRangeOptions cro;
  cro.bottommost_level_compaction = BottommostLevelCompaction::kForce;
  ASSERT_OK(db->CompactRange(cro, nullptr, nullptr));
  ASSERT_TRUE((test::ScanAll(db.get()) == Pairs(model.begin(), model.end())));
  ASSERT_OK(db->VerifyChecksum());
  ExpectMediumFilesReconciled(db.get(), dir.path());
  // And across a reopen.
  ASSERT_OK(db->Close());
  db.reset();
  ASSERT_OK(hybridkv::OpenDB(options, dir.path(), &raw));
  db.reset(raw);
  ASSERT_TRUE((test::ScanAll(db.get()) == Pairs(model.begin(), model.end())));
  ExpectMediumFilesReconciled(db.get(), dir.path());
}

// The first entry of a flush is a medium value, and its medium file cannot be
// created (EMFILE, EACCES): no entry reaches the SST. RocksDB's flush asks an
// empty builder nothing more and reports success, so the builder must not
// say it is empty: the flush fails, and every value stays readable.
TEST(FailedFlushTest, FailingBeforeTheFirstEntryLosesNothing) {
  test::ScratchDir dir("failed-first");
  DbOnFailingFs f;
  ASSERT_OK(f.Open(dir.path()));
  const std::shared_ptr<FailingFS>& failing = f.failing;
  const Options& options = f.options;
  std::unique_ptr<DB>& db = f.db;
  DB* raw = nullptr;
  const std::string value(300, 'm');  // medium, like every value here
  for (int i = 0; i < 10; i++) {
    ASSERT_OK(db->Put(WriteOptions(), Key(i), value));
  }
  auto expect_every_value = [&] {
    for (int i = 0; i < 10; i++) {
      std::string got;
      ASSERT_OK(db->Get(ReadOptions(), Key(i), &got)) << Key(i);
      EXPECT_EQ(got, value);
    }
  };
  failing->Arm(FailingFS::kCreate, ".medium");
  Status s = db->Flush(FlushOptions());
  ASSERT_GT(failing->injected(), 0) << "the fault was never hit";
  EXPECT_FALSE(s.ok()) << "the failed flush reported success";
  failing->Disarm();
  expect_every_value();
  // After a reopen too: the WAL was not dropped as flushed.
  db->Close().PermitUncheckedError();
  db.reset();
  ASSERT_OK(hybridkv::OpenDB(options, dir.path(), &raw));
  db.reset(raw);
  expect_every_value();
}

// A flush fails after its builder finished the medium file (the SST's sync
// fails). RocksDB deletes the SST; the medium file, which nothing can point
// into, goes with it rather than at the next open, so a DB that recovers
// without a reopen (an automatic resume) does not keep it.
TEST(FailedFlushTest, ItsMediumFileIsDeletedAtOnce) {
  test::ScratchDir dir("failflush-leak");
  DbOnFailingFs f;
  ASSERT_OK(f.Open(dir.path()));
  const std::shared_ptr<FailingFS>& failing = f.failing;
  const Options& options = f.options;
  std::unique_ptr<DB>& db = f.db;
  DB* raw = nullptr;
  for (int i = 0; i < 300; ++i) {
    ASSERT_OK(db->Put(WriteOptions(), Key(i), Value(i, 1)));
  }
  ASSERT_OK(db->Flush(FlushOptions()));
  for (int i = 0; i < 300; ++i) {
    ASSERT_OK(db->Put(WriteOptions(), Key(i), Value(i, 2)));
  }
  failing->Arm(FailingFS::kSync, ".sst");
  ASSERT_FALSE(db->Flush(FlushOptions()).ok());
  failing->Disarm();
  const std::string failed = failing->last_hit();
  const uint64_t number =
      std::strtoull(failed.substr(failed.rfind('/') + 1).c_str(), nullptr, 10);
  ASSERT_GT(number, 0u) << failed;
  EXPECT_FALSE(Env::Default()->FileExists(failed).ok())
      << "RocksDB kept the failed SST";
  EXPECT_EQ(test::MediumFileNumbers(dir.path()).count(number), 0u)
      << "medium file " << number << " of the failed flush is still there";
  EXPECT_EQ(test::MediumFileNumbers(dir.path()), Referenced(db.get()));
  db->Close().PermitUncheckedError();  // the flush's error
}

INSTANTIATE_TEST_SUITE_P(
    Faults, FailedIoTest,
    testing::Values(
        // The builder's first medium value creates the file: failing there,
        // no entry reaches the SST.
        FaultCase{"flush_medium_create", FailingFS::kCreate, ".medium", false},
        FaultCase{"flush_medium_append", FailingFS::kAppend, ".medium", false},
        FaultCase{"flush_medium_sync", FailingFS::kSync, ".medium", false},
        FaultCase{"flush_sst_append", FailingFS::kAppend, ".sst", false},
        FaultCase{"flush_sst_sync", FailingFS::kSync, ".sst", false},
        FaultCase{"flush_blob_append", FailingFS::kAppend, ".blob", false},
        FaultCase{"compaction_sst_append", FailingFS::kAppend, ".sst", true},
        FaultCase{"compaction_sst_sync", FailingFS::kSync, ".sst", true},
        FaultCase{"compaction_medium_read", FailingFS::kRead, ".medium", true}),
    [](const testing::TestParamInfo<FaultCase>& p) {
      return std::string(p.param.name);
    });

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
