// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// Scan prefetch (ScanPrefetcher): user scans read the BlobDB values and medium
// values they are about to yield into the blob and block caches. It may only
// change where a value comes from, never what a scan returns: a prefetched
// blob is a blob cache hit for DBIter (no second read), and a damaged blob
// fails the scan exactly as it does without prefetching. Scans with
// prefetching on and off are compared with a model across bounds, prefix
// mode, reverse iteration, snapshots and concurrent compactions in
// model_test.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "hybridkv/hybridkv.h"
#include "plugin/hybridkv/blob/io/rocksdb_compat.h"
#include "plugin/hybridkv/blob/lifecycle/db_state.h"
#include "plugin/hybridkv/table/scan_prefetcher.h"
#include "rocksdb/cache.h"
#include "rocksdb/db.h"
#include "rocksdb/statistics.h"
#include "test_util.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

constexpr int kKeys = 300;

std::string Key(int i) { return "key" + std::to_string(10000 + i); }
// Every third value is large (BlobDB), every third medium, the rest small.
std::string Value(int i) {
  const size_t size = i % 3 == 0 ? 1500 : i % 3 == 1 ? 200 : 20;
  return std::string(size, static_cast<char>('a' + i % 26));
}

class ScanPrefetchTest : public testing::TestWithParam<bool> {
 protected:
  Options MakeOptions(bool prefetch) {
    Options options;
    options.create_if_missing = true;
    options.disable_auto_compactions = true;
    options.statistics = CreateDBStatistics();
    HybridOptions hybrid;
    hybrid.table.scan_prefetch = prefetch;
    EXPECT_OK(ConfigureOptions(&options, hybrid));
    options.blob_cache = NewLRUCache(64 << 20);
    return options;
  }

  // Writes every key in two flushes (pointers and blob indexes in two L0
  // files) and reopens with `prefetch`, with cold caches.
  void Load(bool prefetch) {
    Options options = MakeOptions(prefetch);
    DB* raw = nullptr;
    ASSERT_OK(hybridkv::OpenDB(options, dir_.path(), &raw));
    db_.reset(raw);
    for (int i = 0; i < kKeys; i++) {
      ASSERT_OK(db_->Put(WriteOptions(), Key(i), Value(i)));
      if (i == kKeys / 2) {
        ASSERT_OK(db_->Flush(FlushOptions()));
      }
    }
    ASSERT_OK(db_->Flush(FlushOptions()));
    Reopen(prefetch);
  }

  void Reopen(bool prefetch) {
    db_.reset();
    options_ = MakeOptions(prefetch);
    DB* raw = nullptr;
    ASSERT_OK(hybridkv::OpenDB(options_, dir_.path(), &raw));
    db_.reset(raw);
    // Windows read blobs, whatever the trial would find on the test machine.
    DbStateFor(dir_.path())->read_ahead.Pin(true);
  }

  // Scans everything forward; returns the number of entries, and the first
  // error in `status`.
  int ScanAll(Status* status) {
    std::unique_ptr<Iterator> it(db_->NewIterator(ReadOptions()));
    int n = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next(), n++) {
      EXPECT_EQ(it->key().ToString(), Key(n));
      EXPECT_EQ(it->value().ToString(), Value(n)) << Key(n);
    }
    *status = it->status();
    return n;
  }

  // Ten scans of 100 entries from Key(0), all in the first flush's table:
  // its ScanLengthHint then says recent scans took many entries from it.
  void ScanTheFirstTableFar() {
    for (int round = 0; round < 10; round++) {
      std::unique_ptr<Iterator> it(db_->NewIterator(ReadOptions()));
      int n = 0;
      for (it->Seek(Key(0)); it->Valid() && n < 100; it->Next(), n++) {
        ASSERT_EQ(it->value().ToString(), Value(n));
      }
    }
  }

  uint64_t Ticker(Tickers t) { return options_.statistics->getTickerCount(t); }

  test::ScratchDir dir_{"scan-prefetch"};
  Options options_;
  std::unique_ptr<DB> db_;
};

TEST_P(ScanPrefetchTest, EveryBlobIsReadOnce) {
  const bool prefetch = GetParam();
  Load(prefetch);
  Status s;
  ASSERT_EQ(ScanAll(&s), kKeys);
  ASSERT_OK(s);
  const uint64_t large = (kKeys + 2) / 3;
  // Each blob was read from its file exactly once, whoever read it.
  EXPECT_EQ(Ticker(BLOB_DB_CACHE_ADD), large);
  if (prefetch) {
    // DBIter's lookup of every blob of the scan was a hit: it issued no
    // blob read of its own.
    EXPECT_EQ(Ticker(BLOB_DB_CACHE_HIT), large);
  } else {
    EXPECT_EQ(Ticker(BLOB_DB_CACHE_HIT), 0u);
    EXPECT_EQ(Ticker(BLOB_DB_CACHE_MISS), large);
  }
}

HybridStatistics Stats(DB* db) {
  HybridStatistics stats;
  EXPECT_OK(GetStatistics(db, &stats));
  return stats;
}

// A scan to the end uses every separated value its windows read ahead.
TEST_P(ScanPrefetchTest, AFullScanUsesEveryValueReadAhead) {
  Load(GetParam());
  Status s;
  ASSERT_EQ(ScanAll(&s), kKeys);
  ASSERT_OK(s);
  const HybridStatistics stats = Stats(db_.get());
  const uint64_t separated = 2 * kKeys / 3;  // large and medium
  EXPECT_EQ(stats.scan_values_prefetched, GetParam() ? separated : 0);
  EXPECT_EQ(stats.scan_values_used, stats.scan_values_prefetched);
}

// With async_io, a seek that meets a block not in the cache only starts its
// read, and MergingIterator seeks that table a second time: one scan, which
// scan prefetch follows once (a second start ended the first as a scan of one
// entry, and dropped the window it had begun).
TEST_P(ScanPrefetchTest, AnAsyncSecondSeekIsTheSameScan) {
  Load(GetParam());
  ReadOptions ro;
  ro.async_io = true;
  std::unique_ptr<Iterator> it(db_->NewIterator(ro));
  int n = 0;
  for (it->Seek(Key(0)); it->Valid() && n < 50; it->Next(), n++) {
    ASSERT_EQ(it->key().ToString(), Key(n));
    ASSERT_EQ(it->value().ToString(), Value(n));
  }
  ASSERT_OK(it->status());
  ASSERT_EQ(n, 50);
  // Two tables (Load's two flushes), each sought once.
  EXPECT_EQ(Stats(db_.get()).scan_table_seeks, GetParam() ? 2u : 0u);
}

// Where scans run faster without blobs read ahead (ReadAheadTrial), windows
// leave blobs to DBIter and still read medium values ahead; the scan returns
// the same entries, each blob read once.
TEST_P(ScanPrefetchTest, AThrottledDeviceLeavesBlobsToRocksDB) {
  Load(GetParam());
  DbStateFor(dir_.path())->read_ahead.Pin(false);
  Status s;
  ASSERT_EQ(ScanAll(&s), kKeys);
  ASSERT_OK(s);
  DbStateFor(dir_.path())->read_ahead.Pin(true);
  const uint64_t large = (kKeys + 2) / 3;
  const uint64_t medium = kKeys / 3;
  EXPECT_EQ(Ticker(BLOB_DB_CACHE_ADD), large);
  const HybridStatistics stats = Stats(db_.get());
  if (GetParam()) {
    EXPECT_GT(stats.scan_windows_without_blobs, 0u);
    // Most blobs were DBIter's own reads; every medium value was read ahead.
    EXPECT_GT(Ticker(BLOB_DB_CACHE_MISS), large / 2);
    EXPECT_GE(stats.scan_values_prefetched, medium);
    EXPECT_LT(stats.scan_values_prefetched, medium + large / 2);
    EXPECT_EQ(stats.scan_values_used, stats.scan_values_prefetched);
  } else {
    EXPECT_EQ(stats.scan_windows_without_blobs, 0u);
    EXPECT_EQ(Ticker(BLOB_DB_CACHE_MISS), large);
  }
}

// There, a table with no medium values reads nothing ahead, so its lookahead
// reads no SST block past the scan's end.
TEST_P(ScanPrefetchTest, AThrottledDeviceReadsNothingAheadInATableOfBlobs) {
  options_ = MakeOptions(GetParam());
  DB* raw = nullptr;
  ASSERT_OK(hybridkv::OpenDB(options_, dir_.path(), &raw));
  db_.reset(raw);
  constexpr int kBlobs = 100;
  const std::string large(1500, 'x');
  for (int i = 0; i < kBlobs; i++) {
    ASSERT_OK(db_->Put(WriteOptions(), Key(i), large));
  }
  ASSERT_OK(db_->Flush(FlushOptions()));
  Reopen(GetParam());
  DbStateFor(dir_.path())->read_ahead.Pin(false);
  std::unique_ptr<Iterator> it(db_->NewIterator(ReadOptions()));
  int n = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next(), n++) {
    ASSERT_EQ(it->value().ToString(), large);
  }
  ASSERT_OK(it->status());
  it.reset();
  DbStateFor(dir_.path())->read_ahead.Pin(true);
  EXPECT_EQ(n, kBlobs);
  EXPECT_EQ(Ticker(BLOB_DB_CACHE_ADD), static_cast<uint64_t>(kBlobs));
  const HybridStatistics stats = Stats(db_.get());
  EXPECT_EQ(stats.scan_values_prefetched, 0u);
  // No window without blobs was collected: the lookahead stopped.
  EXPECT_EQ(stats.scan_windows_without_blobs, 0u);
  EXPECT_EQ(Ticker(BLOB_DB_CACHE_MISS), static_cast<uint64_t>(kBlobs));
}

TEST_P(ScanPrefetchTest, ShortScansReadLittleAhead) {
  Load(GetParam());
  // Scans of one entry from many starting points: at most the first window
  // (2 entries) is read ahead of each.
  for (int i = 0; i < kKeys; i += 10) {
    std::unique_ptr<Iterator> it(db_->NewIterator(ReadOptions()));
    it->Seek(Key(i));
    ASSERT_TRUE(it->Valid());
    EXPECT_EQ(it->value().ToString(), Value(i));
  }
  EXPECT_LE(Ticker(BLOB_DB_CACHE_ADD), 2u * (kKeys / 10));
  // Each scan used the one value it yielded where that value is separated
  // (two keys in three).
  const HybridStatistics stats = Stats(db_.get());
  const uint64_t scans = kKeys / 10;
  if (GetParam()) {
    EXPECT_EQ(stats.scan_values_used, (2 * scans + 2) / 3);
    EXPECT_LE(stats.scan_values_prefetched, 2 * scans);
  }
}

// A table's first window after a seek is what recent scans took from it
// (ScanLengthHint): after long scans of the first flush's table, a scan there
// reads a full window ahead at once; in the second table, which no scan has
// read, it starts at the minimum.
TEST_P(ScanPrefetchTest, LongScansWidenATablesFirstWindow) {
  Load(GetParam());
  ScanTheFirstTableFar();
  // One entry each, where nothing is cached yet: Key(120) in the first
  // table, Key(270) in the second. Both values are large.
  auto blobs_read_by_one_entry_scan = [&](int i) {
    const uint64_t before = Ticker(BLOB_DB_CACHE_ADD);
    std::unique_ptr<Iterator> it(db_->NewIterator(ReadOptions()));
    it->Seek(Key(i));
    EXPECT_TRUE(it->Valid());
    EXPECT_EQ(it->value().ToString(), Value(i));
    return Ticker(BLOB_DB_CACHE_ADD) - before;
  };
  const size_t cap = HybridTableOptions().scan_prefetch_max;
  // Prefetching, a window of `cap` entries from Key(120), where every third
  // value is large; without it, DBIter reads the one value it yields.
  EXPECT_EQ(blobs_read_by_one_entry_scan(120), GetParam() ? (cap + 2) / 3 : 1);
  // ScanPrefetcher::kMinWindow entries from Key(270): one large value.
  EXPECT_EQ(blobs_read_by_one_entry_scan(270), 1u);
}

// A seek into a table that recent scans read far leaves its first window's
// reads in flight when Seek returns. The application may call RocksDB on the
// same thread before it moves the iterator: here a MultiGet of cold blobs,
// which RocksDB reads with MultiRead (io_uring, where enabled, on a ring of
// its own file system's that MultiRead fails on a completion it did not
// submit). It must get only its own reads, and the scan must go on intact.
TEST_P(ScanPrefetchTest, MultiGetWhileAScansReadsAreInFlight) {
  Load(GetParam());
  ScanTheFirstTableFar();
  // The window after Key(122) is cold: its values need device reads.
  ReadOptions cache_only;
  cache_only.read_tier = kBlockCacheTier;
  std::string cached;
  ASSERT_TRUE(db_->Get(cache_only, Key(123), &cached).IsIncomplete());
  std::unique_ptr<Iterator> it(db_->NewIterator(ReadOptions()));
  // Key(122) is small (inline): DBIter yields it without asking for a
  // separated value, so nothing waits for the window's reads.
  it->Seek(Key(122));
  ASSERT_TRUE(it->Valid());
  // Large values of the second flush, none read yet: one MultiRead of their
  // blob file.
  std::vector<std::string> key_strings;
  for (int i = 240; i < kKeys; i += 3) key_strings.push_back(Key(i));
  const std::vector<Slice> keys(key_strings.begin(), key_strings.end());
  std::vector<std::string> values;
  const uint64_t misses_before = Ticker(BLOB_DB_CACHE_MISS);
  const std::vector<Status> statuses =
      db_->MultiGet(ReadOptions(), keys, &values);
  for (size_t k = 0; k < keys.size(); k++) {
    ASSERT_OK(statuses[k]) << key_strings[k];
    EXPECT_EQ(values[k], Value(240 + 3 * static_cast<int>(k)));
  }
  // Every blob came from its file.
  EXPECT_EQ(Ticker(BLOB_DB_CACHE_MISS) - misses_before, keys.size());
  int n = 122;
  for (; it->Valid(); it->Next(), n++) {
    ASSERT_EQ(it->key().ToString(), Key(n));
    ASSERT_EQ(it->value().ToString(), Value(n));
  }
  ASSERT_OK(it->status());
  EXPECT_EQ(n, kKeys);
}

TEST(ScanLengthHintTest, FollowsRecentScansWithinMinAndCap) {
  ScanLengthHint hint;
  EXPECT_EQ(hint.FirstWindow(2, 16), 2u);  // no scan yet: the minimum
  for (int i = 0; i < 20; i++) hint.Record(100);
  EXPECT_EQ(hint.FirstWindow(2, 16), 16u);  // capped
  EXPECT_GE(hint.FirstWindow(2, 1000), 90u);
  for (int i = 0; i < 20; i++) hint.Record(1);
  EXPECT_EQ(hint.FirstWindow(2, 16), 2u);  // back down, not below the minimum
  hint.Record(size_t{1} << 40);            // huge scans do not overflow it
  EXPECT_EQ(hint.FirstWindow(2, 16), 16u);
  EXPECT_EQ(hint.FirstWindow(2, 1), 1u);  // a cap below the minimum wins
}

TEST_P(ScanPrefetchTest, DamagedBlobFailsTheScanAsWithoutPrefetch) {
  Load(GetParam());
  db_.reset();
  // Damage the middle of the blob file of the first flush: a value there no
  // longer matches its checksum.
  auto blobs = test::FilesWithSuffix(dir_.path(), ".blob");
  ASSERT_FALSE(blobs.empty());
  std::sort(blobs.begin(), blobs.end());
  const std::string path = dir_.path() + "/" + blobs.front();
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(0, std::ios::end);
  const std::streamoff middle = f.tellg() / 2;
  f.seekg(middle);
  char byte = 0;
  f.read(&byte, 1);
  byte ^= 0x5a;
  f.seekp(middle);
  f.write(&byte, 1);
  f.close();
  // Scanned with prefetching off, then on (or the reverse): the same entries
  // come before the same error.
  std::vector<int> entries;
  std::vector<std::string> errors;
  for (bool prefetch : {GetParam(), !GetParam()}) {
    Reopen(prefetch);
    Status s;
    entries.push_back(ScanAll(&s));
    EXPECT_TRUE(s.IsCorruption()) << s.ToString();
    errors.push_back(s.ToString());
  }
  EXPECT_LT(entries[0], kKeys / 2 + 1);
  EXPECT_EQ(entries[0], entries[1]);
  EXPECT_EQ(errors[0], errors[1]);
}

INSTANTIATE_TEST_SUITE_P(Prefetch, ScanPrefetchTest, testing::Bool(),
                         [](const testing::TestParamInfo<bool>& p) {
                           return p.param ? "On" : "Off";
                         });

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
