// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// Point reads of tables that hold pointers. HybridTableReader::Get answers in
// one lookup when the newest entry of the key in a table is a medium pointer
// (or a blob index of BlobDB's own) and replays everything else through an
// iterator. Each case below puts the answer's entries where that choice
// matters: snapshots over overwritten pointers, range tombstones and merges
// over pointers, read callbacks, kBlockCacheTier, MultiGet, whose medium
// reads are batched. (User-defined
// timestamps are refused at DB::Open: options_test.)
#include <gtest/gtest.h>

#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <string>
#include <vector>

#include "db/db_impl/db_impl.h"
#include "db/read_callback.h"
#include "hybridkv/hybridkv.h"
#include "plugin/hybridkv/blob/io/rocksdb_compat.h"
#include "plugin/hybridkv/blob/medium/medium_file.h"
#include "rocksdb/db.h"
#include "rocksdb/env.h"
#include "rocksdb/file_system.h"
#include "rocksdb/metadata.h"
#include "rocksdb/statistics.h"
#include "rocksdb/table.h"
#include "rocksdb/wide_columns.h"
#include "test_util.h"
#include "utilities/merge_operators.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

constexpr int kKeys = 400;

std::string Key(int i) { return "key" + std::to_string(10000 + i); }
std::string Medium(int i, int v) {
  return std::string(150 + i % 50, static_cast<char>('a' + (i + v) % 26));
}
std::string Large(int i) {
  return std::string(1500, static_cast<char>('A' + i % 26));
}

Options PointReadOptions() {
  Options options;
  options.create_if_missing = true;
  options.disable_auto_compactions = true;
  options.merge_operator = MergeOperators::CreateStringAppendOperator(',');
  HybridOptions hybrid;
  hybrid.table.merge_level = 3;  // L1 keeps pointers
  EXPECT_OK(ConfigureOptions(&options, hybrid));
  return options;
}

class PointReadTest : public testing::Test {
 protected:
  void SetUp() override {
    DB* raw = nullptr;
    ASSERT_OK(hybridkv::OpenDB(PointReadOptions(), dir_.path(), &raw));
    db_.reset(raw);
    // Version 1 of every key, medium (every third large), in an L1 table of
    // pointers.
    for (int i = 0; i < kKeys; ++i) {
      ASSERT_OK(db_->Put(WriteOptions(), Key(i),
                         i % 3 == 0 ? Large(i) : Medium(i, 1)));
    }
    ASSERT_OK(db_->Flush(FlushOptions()));
    ColumnFamilyMetaData meta;
    db_->GetColumnFamilyMetaData(&meta);
    std::vector<std::string> l0;
    for (const auto& f : meta.levels[0].files) l0.push_back(f.name);
    ASSERT_OK(db_->CompactFiles(CompactionOptions(), l0, 1));
    test::RawSstScan scan = test::ScanAllSstsRaw(dir_.path());
    ASSERT_GT(scan.pointer_entries, 0u);
  }
  std::string Get(const Slice& key, const Snapshot* snapshot = nullptr) {
    ReadOptions ro;
    ro.snapshot = snapshot;
    std::string v;
    Status s = db_->Get(ro, key, &v);
    return s.ok() ? v : s.ToString();
  }
  std::string Expected1(int i) { return i % 3 == 0 ? Large(i) : Medium(i, 1); }
  // Flushes, then compacts L0 and L1 together into L1: a snapshot the caller
  // holds keeps the older versions in the same tables of pointers.
  void FlushIntoL1() {
    ASSERT_OK(db_->Flush(FlushOptions()));
    ColumnFamilyMetaData meta;
    db_->GetColumnFamilyMetaData(&meta);
    std::vector<std::string> files;
    for (int level : {0, 1}) {
      for (const auto& f : meta.levels[level].files) files.push_back(f.name);
    }
    ASSERT_OK(db_->CompactFiles(CompactionOptions(), files, 1));
  }

  test::ScratchDir dir_{"pointread"};
  std::unique_ptr<DB> db_;
};

TEST_F(PointReadTest, PointersAndBlobIndexesReadBack) {
  for (int i = 0; i < kKeys; ++i) ASSERT_EQ(Get(Key(i)), Expected1(i)) << i;
  EXPECT_EQ(Get("absent"), Status::NotFound().ToString());
}

TEST_F(PointReadTest, SnapshotsSeeOverwrittenPointers) {
  const Snapshot* before = db_->GetSnapshot();
  for (int i = 0; i < kKeys; i += 2) {
    ASSERT_OK(db_->Put(WriteOptions(), Key(i), Medium(i, 2)));
  }
  ASSERT_OK(db_->Flush(FlushOptions()));  // version 2: pointers in L0
  for (int i = 0; i < kKeys; ++i) {
    ASSERT_EQ(Get(Key(i), before), Expected1(i)) << i;
    ASSERT_EQ(Get(Key(i)), i % 2 == 0 ? Medium(i, 2) : Expected1(i)) << i;
  }
  db_->ReleaseSnapshot(before);
}

TEST_F(PointReadTest, RangeTombstonesHidePointers) {
  ASSERT_OK(db_->DeleteRange(WriteOptions(), db_->DefaultColumnFamily(),
                             Key(100), Key(200)));
  for (int pass = 0; pass < 2; ++pass) {
    for (int i = 0; i < kKeys; ++i) {
      const bool deleted = i >= 100 && i < 200;
      ASSERT_EQ(Get(Key(i)),
                deleted ? Status::NotFound().ToString() : Expected1(i))
          << i << " pass " << pass;
    }
    ASSERT_OK(db_->Flush(FlushOptions()));  // then from an SST
  }
}

TEST_F(PointReadTest, MergesOverPointers) {
  for (int i = 0; i < kKeys; i += 5) {
    ASSERT_OK(db_->Merge(WriteOptions(), Key(i), "m" + std::to_string(i)));
  }
  for (int pass = 0; pass < 2; ++pass) {
    for (int i = 0; i < kKeys; ++i) {
      const std::string want =
          i % 5 == 0 ? Expected1(i) + ",m" + std::to_string(i) : Expected1(i);
      ASSERT_EQ(Get(Key(i)), want) << i << " pass " << pass;
    }
    ASSERT_OK(db_->Flush(FlushOptions()));
  }
}

// A merge operand over a BlobDB blob index in the same table (a snapshot
// keeps the flush from merging them): the probe must stop at the operand, not
// fetch the blob itself (it has no blob fetcher), and the merge must see the
// blob's value.
TEST_F(PointReadTest, MergeOverBlobInTheSameTable) {
  const std::string key = "merge-over-blob";
  ASSERT_OK(db_->Put(WriteOptions(), key, Large(1)));
  const Snapshot* snapshot = db_->GetSnapshot();
  ASSERT_OK(db_->Merge(WriteOptions(), key, "m"));
  // A medium value in the same table, so that it holds pointers and Get
  // probes it.
  ASSERT_OK(
      db_->Put(WriteOptions(), "merge-over-blob-neighbour", Medium(1, 1)));
  ASSERT_OK(db_->Flush(FlushOptions()));
  EXPECT_EQ(Get(key), Large(1) + ",m");
  EXPECT_EQ(Get(key, snapshot), Large(1));
  std::vector<Slice> keys{key};
  std::vector<std::string> values;
  std::vector<Status> statuses = db_->MultiGet(ReadOptions(), keys, &values);
  ASSERT_OK(statuses[0]);
  EXPECT_EQ(values[0], Large(1) + ",m");
  db_->ReleaseSnapshot(snapshot);
}

// A read callback (what transactions use) that hides every sequence number
// above `max_visible`: the Get must look past newer pointers.
// (DBImpl::GetImpl refreshes the callback's own max_visible_seq to the read's
// snapshot, so the threshold is kept apart.)
class HideNewer : public ReadCallback {
 public:
  explicit HideNewer(SequenceNumber max_visible)
      : ReadCallback(kMaxSequenceNumber), threshold_(max_visible) {}
  bool IsVisibleFullCheck(SequenceNumber seq) override {
    return seq <= threshold_;
  }

 private:
  const SequenceNumber threshold_;
};

TEST_F(PointReadTest, ReadCallbacksSeeOlderPointers) {
  const SequenceNumber v1 = db_->GetLatestSequenceNumber();
  const Snapshot* hold = db_->GetSnapshot();  // keeps version 1 through the
  for (int i = 0; i < kKeys; ++i) {           // compaction below
    ASSERT_OK(db_->Put(WriteOptions(), Key(i), Medium(i, 3)));
  }
  FlushIntoL1();  // both versions in the same L1 tables of pointers
  db_->ReleaseSnapshot(hold);
  auto* impl = static_cast<DBImpl*>(db_->GetRootDB());
  for (int i = 0; i < kKeys; ++i) {
    HideNewer callback(v1);
    PinnableSlice v;
    DBImpl::GetImplOptions get;
    get.column_family = db_->DefaultColumnFamily();
    get.value = &v;
    get.callback = &callback;
    ASSERT_OK(impl->GetImpl(ReadOptions(), Key(i), get)) << i;
    ASSERT_EQ(v.ToString(), Expected1(i)) << i;
    ASSERT_EQ(Get(Key(i)), Medium(i, 3)) << i;
  }
}

TEST_F(PointReadTest, BlockCacheTierNeverReadsTheDisk) {
  ReadOptions cache_only;
  cache_only.read_tier = kBlockCacheTier;
  int incomplete = 0;
  for (int i = 1; i < kKeys; i += 3) {  // medium keys
    std::string v;
    Status s = db_->Get(cache_only, Key(i), &v);
    if (s.IsIncomplete()) {
      incomplete++;
    } else {
      ASSERT_OK(s);
      ASSERT_EQ(v, Expected1(i));
    }
  }
  EXPECT_GT(incomplete, 0);
  for (int i = 1; i < kKeys; i += 3) ASSERT_EQ(Get(Key(i)), Expected1(i));
  for (int i = 1; i < kKeys; i += 3) {  // now cached
    std::string v;
    ASSERT_OK(db_->Get(cache_only, Key(i), &v)) << i;
    ASSERT_EQ(v, Expected1(i));
  }
}

TEST_F(PointReadTest, MultiGetMatchesGet) {
  for (int i = 0; i < kKeys; i += 7)
    ASSERT_OK(db_->Delete(WriteOptions(), Key(i)));
  std::vector<std::string> keys;
  for (int i = 0; i < kKeys; ++i) keys.push_back(Key(i));
  keys.push_back("absent");
  std::vector<Slice> slices(keys.begin(), keys.end());
  std::vector<std::string> values;
  std::vector<Status> statuses = db_->MultiGet(ReadOptions(), slices, &values);
  for (size_t i = 0; i < keys.size(); ++i) {
    const std::string got =
        statuses[i].ok() ? values[i] : statuses[i].ToString();
    ASSERT_EQ(got, Get(keys[i])) << keys[i];
  }
}

// MultiGet takes the same paths as Get, per key: every answer agrees with
// Get's, at the latest state and at a snapshot, over overwritten pointers,
// merges and a range tombstone, and from the block cache alone.
TEST_F(PointReadTest, MultiGetAgreesWithGetOverEveryKindOfEntry) {
  const Snapshot* before = db_->GetSnapshot();
  for (int i = 0; i < kKeys; i += 2) {
    ASSERT_OK(db_->Put(WriteOptions(), Key(i), Medium(i, 2)));
  }
  for (int i = 0; i < kKeys; i += 5) {
    ASSERT_OK(db_->Merge(WriteOptions(), Key(i), "m" + std::to_string(i)));
  }
  ASSERT_OK(db_->DeleteRange(WriteOptions(), db_->DefaultColumnFamily(),
                             Key(300), Key(320)));
  ASSERT_OK(db_->Flush(FlushOptions()));  // pointers in L0 over L1's
  std::vector<std::string> keys;
  for (int i = 0; i < kKeys; ++i) keys.push_back(Key(i));
  keys.push_back("absent");
  std::vector<Slice> slices(keys.begin(), keys.end());
  for (const Snapshot* snapshot :
       {before, static_cast<const Snapshot*>(nullptr)}) {
    for (ReadTier tier : {kReadAllTier, kBlockCacheTier}) {
      ReadOptions ro;
      ro.snapshot = snapshot;
      ro.read_tier = tier;
      std::vector<std::string> values;
      std::vector<Status> statuses = db_->MultiGet(ro, slices, &values);
      for (size_t i = 0; i < keys.size(); ++i) {
        std::string want;
        Status s = db_->Get(ro, keys[i], &want);
        if (!s.ok()) want = s.ToString();
        const std::string got =
            statuses[i].ok() ? values[i] : statuses[i].ToString();
        ASSERT_EQ(got, want) << keys[i] << (snapshot ? " at the snapshot" : "")
                             << (tier == kBlockCacheTier ? " cache only" : "");
        if (tier == kReadAllTier) {
          ASSERT_OK(statuses[i].IsNotFound() ? Status::OK() : statuses[i]);
        }
      }
    }
  }
  db_->ReleaseSnapshot(before);
}

// Entries a probe can answer itself: plain values and deletions of a table
// that holds pointers (mix of small, medium and large values, deleted keys,
// wide-column entities). Each Get takes one data-block lookup, not a probe
// and an iterator; every answer matches what the entry says.
TEST(PointReadSmallTest, ProbeAnswersPlainValuesAndDeletionsInOneLookup) {
  test::ScratchDir dir("pointread-small");
  Options options = PointReadOptions();
  options.statistics = CreateDBStatistics();
  DB* raw = nullptr;
  ASSERT_OK(hybridkv::OpenDB(options, dir.path(), &raw));
  std::unique_ptr<DB> db(raw);
  const std::string small_value = "tiny";
  for (int i = 0; i < kKeys; ++i) {
    Status s;
    switch (i % 5) {
      case 0:
        s = db->Put(WriteOptions(), Key(i), small_value + std::to_string(i));
        break;
      case 1:
        s = db->Put(WriteOptions(), Key(i), Medium(i, 1));
        break;
      case 2:
        s = db->Delete(WriteOptions(), Key(i));
        break;
      case 3:  // an entity of the default column alone reads as plain
        s = db->PutEntity(WriteOptions(), db->DefaultColumnFamily(), Key(i),
                          {{kDefaultWideColumnName, "only" + Key(i)}});
        break;
      default:
        s = db->PutEntity(
            WriteOptions(), db->DefaultColumnFamily(), Key(i),
            {{kDefaultWideColumnName, "d" + Key(i)}, {"other", "o" + Key(i)}});
    }
    ASSERT_OK(s);
  }
  ASSERT_OK(db->Flush(FlushOptions()));
  ASSERT_GT(test::ScanAllSstsRaw(dir.path()).pointer_entries, 0u);
  for (int i = 0; i < kKeys; ++i) {
    std::string value;
    Status s = db->Get(ReadOptions(), Key(i), &value);
    PinnableWideColumns columns;
    Status se = db->GetEntity(ReadOptions(), db->DefaultColumnFamily(), Key(i),
                              &columns);
    switch (i % 5) {
      case 0:
        ASSERT_OK(s);
        EXPECT_EQ(value, small_value + std::to_string(i));
        break;
      case 1:
        ASSERT_OK(s);
        EXPECT_EQ(value, Medium(i, 1));
        break;
      case 2:
        EXPECT_TRUE(s.IsNotFound()) << s.ToString();
        EXPECT_TRUE(se.IsNotFound()) << se.ToString();
        continue;
      case 3:
        ASSERT_OK(s);
        EXPECT_EQ(value, "only" + Key(i));
        break;
      default:
        ASSERT_OK(s);
        EXPECT_EQ(value, "d" + Key(i));
        ASSERT_OK(se);
        ASSERT_EQ(columns.columns().size(), 2u) << i;
        EXPECT_EQ(columns.columns()[1].value(), "o" + Key(i));
        continue;
    }
    ASSERT_OK(se);
    ASSERT_EQ(columns.columns().size(), 1u) << i;
    EXPECT_EQ(columns.columns()[0].value(), value);
  }
  // One data-block lookup per Get of a plain value or a deletion: the probe
  // answered, and no iterator looked again.
  for (int kind : {0, 2, 3}) {
    ASSERT_OK(options.statistics->Reset());
    int gets = 0;
    for (int i = kind; i < kKeys; i += 5, ++gets) {
      std::string value;
      Status s = db->Get(ReadOptions(), Key(i), &value);
      ASSERT_TRUE(s.ok() || s.IsNotFound()) << s.ToString();
    }
    const uint64_t lookups =
        options.statistics->getTickerCount(BLOCK_CACHE_DATA_HIT) +
        options.statistics->getTickerCount(BLOCK_CACHE_DATA_MISS);
    EXPECT_EQ(lookups, static_cast<uint64_t>(gets)) << "kind " << kind;
  }
}

// A merge operand over a pointer in the same table takes the iterator path.
// With async_io, the iterator's first Seek over a block not in the cache
// (fill_cache=false keeps the probe's read out of it) only starts a read: the
// lookup must still answer, not return TryAgain.
TEST_F(PointReadTest, MergeOverPointerReadsWithAsyncIO) {
  const Snapshot* snapshot = db_->GetSnapshot();
  for (int i = 1; i < kKeys; i += 3) {  // medium keys
    ASSERT_OK(db_->Merge(WriteOptions(), Key(i), "m"));
  }
  FlushIntoL1();
  db_->ReleaseSnapshot(snapshot);
  ReadOptions ro;
  ro.async_io = true;
  ro.fill_cache = false;
  for (int i = 1; i < kKeys; i += 3) {
    std::string v;
    ASSERT_OK(db_->Get(ro, Key(i), &v)) << i;
    ASSERT_EQ(v, Medium(i, 1) + ",m") << i;
  }
}

// With a row cache, TableCache::MultiGet stores each key's replay log
// whatever the key's own status. A merge operand over a pointer whose value
// cannot be read (kBlockCacheTier, the medium block not cached) must leave
// no partial answer there for a later Get to replay.
TEST(PointReadRowCacheTest, FailedMultiGetLeavesNoPartialRowCacheEntry) {
  test::ScratchDir dir("pointread-rowcache");
  Options options = PointReadOptions();
  options.row_cache = NewLRUCache(8 << 20);
  DB* raw = nullptr;
  ASSERT_OK(hybridkv::OpenDB(options, dir.path(), &raw));
  std::unique_ptr<DB> db(raw);
  const std::string key = "merged";
  ASSERT_OK(db->Put(WriteOptions(), key, Medium(1, 1)));
  ASSERT_OK(db->Put(WriteOptions(), "merged-neighbour", "tiny"));
  const Snapshot* snapshot = db->GetSnapshot();
  ASSERT_OK(db->Merge(WriteOptions(), key, "m"));
  ASSERT_OK(db->Flush(FlushOptions()));  // both in one table of pointers
  db->ReleaseSnapshot(snapshot);
  ASSERT_GT(test::ScanAllSstsRaw(dir.path()).pointer_entries, 0u);
  // The table's one data block in the cache, the medium value not.
  std::string neighbour;
  ASSERT_OK(db->Get(ReadOptions(), "merged-neighbour", &neighbour));
  ReadOptions cache_only;
  cache_only.read_tier = kBlockCacheTier;
  std::vector<Slice> keys{key};
  std::vector<std::string> values;
  std::vector<Status> statuses = db->MultiGet(cache_only, keys, &values);
  EXPECT_TRUE(statuses[0].IsIncomplete()) << statuses[0].ToString();
  std::string v;
  ASSERT_OK(db->Get(ReadOptions(), key, &v));
  EXPECT_EQ(v, Medium(1, 1) + ",m");
}

// Counts the read requests that reach .medium files.
class MediumReadCountingFs : public FileSystemWrapper {
 public:
  MediumReadCountingFs() : FileSystemWrapper(FileSystem::Default()) {}
  const char* Name() const override { return "HybridKVTestMediumReadCounter"; }
  IOStatus NewRandomAccessFile(const std::string& path,
                               const FileOptions& options,
                               std::unique_ptr<FSRandomAccessFile>* result,
                               IODebugContext* dbg) override {
    IOStatus s = target()->NewRandomAccessFile(path, options, result, dbg);
    if (s.ok() && MediumNumberOf(path.substr(path.rfind('/') + 1)) != 0) {
      result->reset(new CountingFile(std::move(*result), &reads_));
    }
    return s;
  }
  uint64_t reads() const { return reads_.load(); }

 private:
  class CountingFile : public FSRandomAccessFileOwnerWrapper {
   public:
    CountingFile(std::unique_ptr<FSRandomAccessFile> file,
                 std::atomic<uint64_t>* reads)
        : FSRandomAccessFileOwnerWrapper(std::move(file)), reads_(reads) {}
    IOStatus Read(uint64_t offset, size_t n, const IOOptions& options,
                  Slice* result, char* scratch,
                  IODebugContext* dbg) const override {
      (*reads_)++;
      return target()->Read(offset, n, options, result, scratch, dbg);
    }
    IOStatus MultiRead(FSReadRequest* reqs, size_t num_reqs,
                       const IOOptions& options, IODebugContext* dbg) override {
      *reads_ += num_reqs;
      return target()->MultiRead(reqs, num_reqs, options, dbg);
    }

   private:
    std::atomic<uint64_t>* const reads_;
  };

  std::atomic<uint64_t> reads_{0};
};

// A MultiGet of keys whose values lie in one table's medium file gets each
// value, and reads the medium file as the same Gets do: one lookup per key.
// Every 20th key of one medium file, cold.
TEST(PointReadBatchTest, MultiGetReadsMediumValuesAsGetDoes) {
  test::ScratchDir dir("multiget-batch");
  auto fs = std::make_shared<MediumReadCountingFs>();
  std::unique_ptr<Env> env = NewCompositeEnv(fs);
  // Options (and so the block cache) made afresh for each open.
  auto options = [&env]() {
    Options o = PointReadOptions();
    o.env = env.get();
    return o;
  };
  constexpr int kRecords = 1000;
  {
    DB* raw = nullptr;
    ASSERT_OK(hybridkv::OpenDB(options(), dir.path(), &raw));
    std::unique_ptr<DB> db(raw);
    for (int i = 0; i < kRecords; ++i) {
      ASSERT_OK(db->Put(WriteOptions(), Key(i), Medium(i, 1)));
    }
    ASSERT_OK(db->Flush(FlushOptions()));  // one medium file, in L0
  }
  std::vector<std::string> keys;
  for (int i = 0; i < kRecords; i += 20) keys.push_back(Key(i));
  std::vector<Slice> slices(keys.begin(), keys.end());
  uint64_t reads[2];
  for (bool multi : {false, true}) {
    DB* raw = nullptr;  // reopened with a cold block cache
    ASSERT_OK(hybridkv::OpenDB(options(), dir.path(), &raw));
    std::unique_ptr<DB> db(raw);
    const uint64_t start = fs->reads();
    if (multi) {
      std::vector<std::string> values;
      std::vector<Status> statuses =
          db->MultiGet(ReadOptions(), slices, &values);
      for (size_t k = 0; k < keys.size(); ++k) {
        ASSERT_OK(statuses[k]) << keys[k];
        ASSERT_EQ(values[k], Medium(static_cast<int>(k) * 20, 1)) << keys[k];
      }
    } else {
      for (size_t k = 0; k < keys.size(); ++k) {
        std::string v;
        ASSERT_OK(db->Get(ReadOptions(), keys[k], &v)) << keys[k];
        ASSERT_EQ(v, Medium(static_cast<int>(k) * 20, 1)) << keys[k];
      }
    }
    reads[multi] = fs->reads() - start;
  }
  std::printf("medium read requests for %zu keys: Get %" PRIu64
              ", MultiGet %" PRIu64 "\n",
              keys.size(), reads[0], reads[1]);
  EXPECT_GE(reads[0], keys.size() / 2);
  EXPECT_EQ(reads[1], reads[0]);
}

// A pointer that a range tombstone in its own table covers is deleted: the
// Get answers NotFound without reading the value.
TEST(PointReadCoveredTest, CoveredPointerIsNotRead) {
  test::ScratchDir dir("pointread-covered");
  auto fs = std::make_shared<MediumReadCountingFs>();
  std::unique_ptr<Env> env = NewCompositeEnv(fs);
  Options options = PointReadOptions();
  options.env = env.get();
  {
    DB* raw = nullptr;
    ASSERT_OK(hybridkv::OpenDB(options, dir.path(), &raw));
    std::unique_ptr<DB> db(raw);
    for (int i = 0; i < kKeys; ++i) {
      ASSERT_OK(db->Put(WriteOptions(), Key(i), Medium(i, 1)));
    }
    // The snapshot keeps the covered pointers through the flush, in the
    // table that holds the tombstone.
    const Snapshot* snapshot = db->GetSnapshot();
    ASSERT_OK(db->DeleteRange(WriteOptions(), db->DefaultColumnFamily(),
                              Key(100), Key(200)));
    ASSERT_OK(db->Flush(FlushOptions()));
    db->ReleaseSnapshot(snapshot);
  }
  DB* raw = nullptr;  // reopened with a cold block cache
  ASSERT_OK(hybridkv::OpenDB(options, dir.path(), &raw));
  std::unique_ptr<DB> db(raw);
  ASSERT_GT(test::ScanAllSstsRaw(dir.path()).pointer_entries, 150u);
  uint64_t start = fs->reads();
  for (int i = 100; i < 200; i += 7) {
    std::string v;
    Status s = db->Get(ReadOptions(), Key(i), &v);
    EXPECT_TRUE(s.IsNotFound()) << i << ": " << s.ToString();
  }
  EXPECT_EQ(fs->reads() - start, 0u);
  start = fs->reads();
  std::string v;
  ASSERT_OK(db->Get(ReadOptions(), Key(300), &v));
  EXPECT_EQ(v, Medium(300, 1));
  EXPECT_GT(fs->reads() - start, 0u);  // what the count above would show
}

// ReadOptions::pin_data with keys stored whole (use_delta_encoding=false):
// RocksDB guarantees "rocksdb.iterator.is-key-pinned" is 1, and a caller may
// keep every key's slice until the iterator goes. Pointer entries' keys are
// rewritten (their type becomes a value's); the rewritten copies must last as
// long.
TEST(PointReadIteratorTest, PinnedScansKeepRewrittenKeys) {
  test::ScratchDir dir("pin-data");
  Options options;
  options.create_if_missing = true;
  HybridOptions hybrid;
  BlockBasedTableOptions bbto;
  bbto.use_delta_encoding = false;
  hybrid.table.inner.reset(NewBlockBasedTableFactory(bbto));
  ASSERT_OK(ConfigureOptions(&options, hybrid));
  DB* raw = nullptr;
  ASSERT_OK(hybridkv::OpenDB(options, dir.path(), &raw));
  std::unique_ptr<DB> db(raw);
  for (int i = 0; i < kKeys; ++i) {
    ASSERT_OK(db->Put(WriteOptions(), Key(i),
                      i % 2 == 0 ? Medium(i, 1) : std::string("tiny")));
  }
  ASSERT_OK(db->Flush(FlushOptions()));
  ASSERT_GT(test::ScanAllSstsRaw(dir.path()).pointer_entries, 0u);
  ReadOptions ro;
  ro.pin_data = true;
  std::unique_ptr<Iterator> it(db->NewIterator(ro));
  std::vector<Slice> keys;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    std::string pinned;
    ASSERT_OK(it->GetProperty("rocksdb.iterator.is-key-pinned", &pinned));
    ASSERT_EQ(pinned, "1") << it->key().ToString();
    keys.push_back(it->key());
  }
  ASSERT_OK(it->status());
  ASSERT_EQ(keys.size(), static_cast<size_t>(kKeys));
  for (int i = 0; i < kKeys; ++i) {
    EXPECT_EQ(keys[i].ToString(), Key(i));
  }
}

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
