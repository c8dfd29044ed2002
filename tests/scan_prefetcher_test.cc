// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// Scan prefetch (ScanPrefetcher): user scans read the medium values they are
// about to yield into the block cache, several per request; BlobDB's values
// stay DBIter's own reads. It may only change where a value comes from, never
// what a scan returns: a damaged medium record fails the scan exactly as it
// does without prefetching. Scans with
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

HybridStatistics Stats(DB* db) {
  HybridStatistics stats;
  EXPECT_OK(GetStatistics(db, &stats));
  return stats;
}

constexpr uint64_t kLarge = (kKeys + 2) / 3;
constexpr uint64_t kMedium = kKeys / 3;

// Each blob is DBIter's own read, prefetching or not: one blob cache miss,
// never a hit. Each medium value is read once too; prefetching reads them by
// span, in fewer requests.
TEST_P(ScanPrefetchTest, BlobsAreDBItersReadsAndMediumValuesComeBySpan) {
  Load(GetParam());
  Status s;
  ASSERT_EQ(ScanAll(&s), kKeys);
  ASSERT_OK(s);
  EXPECT_EQ(Ticker(BLOB_DB_CACHE_ADD), kLarge);
  EXPECT_EQ(Ticker(BLOB_DB_CACHE_MISS), kLarge);
  EXPECT_EQ(Ticker(BLOB_DB_CACHE_HIT), 0u);
  const HybridStatistics stats = Stats(db_.get());
  EXPECT_EQ(stats.medium_values_resolved, kMedium);
  if (GetParam()) {
    // Windows grow to 16 entries, about 5 medium values, read as one span.
    EXPECT_LT(stats.resolve_reads, kMedium / 3) << stats.ToString();
  } else {
    EXPECT_EQ(stats.scan_values_prefetched, 0u);
  }
}

// A scan to the end uses every medium value its windows read ahead.
TEST_P(ScanPrefetchTest, AFullScanUsesEveryValueReadAhead) {
  Load(GetParam());
  Status s;
  ASSERT_EQ(ScanAll(&s), kKeys);
  ASSERT_OK(s);
  const HybridStatistics stats = Stats(db_.get());
  EXPECT_EQ(stats.scan_values_prefetched, GetParam() ? kMedium : 0);
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

// A table with no medium values reads nothing ahead, so its lookahead reads no
// SST block past the scan's end.
TEST_P(ScanPrefetchTest, ATableOfBlobsReadsNothingAhead) {
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
  std::unique_ptr<Iterator> it(db_->NewIterator(ReadOptions()));
  int n = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next(), n++) {
    ASSERT_EQ(it->value().ToString(), large);
  }
  ASSERT_OK(it->status());
  it.reset();
  EXPECT_EQ(n, kBlobs);
  const HybridStatistics stats = Stats(db_.get());
  EXPECT_EQ(stats.scan_values_prefetched, 0u);
  EXPECT_EQ(stats.scan_table_seeks, 0u) << "no prefetcher for such a table";
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
  // Each scan used the one value it yielded where that value is medium (one
  // key in three), and read at most the one after it besides.
  const HybridStatistics stats = Stats(db_.get());
  const uint64_t scans = kKeys / 10;
  if (GetParam()) {
    EXPECT_EQ(stats.scan_values_used, scans / 3);
    EXPECT_LE(stats.scan_values_prefetched, 2 * scans / 3 + 1);
  }
}

// A table's first window after a seek is what recent scans took from it
// (ScanLengthHint): after long scans of the first flush's table, a scan there
// reads a full window ahead at once; in the second table, which no scan has
// read, it starts at the minimum.
TEST_P(ScanPrefetchTest, LongScansWidenATablesFirstWindow) {
  Load(GetParam());
  ScanTheFirstTableFar();
  // One entry each, where nothing is cached yet: Key(121) in the first
  // table, Key(271) in the second. Both values are medium.
  auto medium_read_ahead_by_one_entry_scan = [&](int i) {
    const uint64_t before = Stats(db_.get()).scan_values_prefetched;
    std::unique_ptr<Iterator> it(db_->NewIterator(ReadOptions()));
    it->Seek(Key(i));
    EXPECT_TRUE(it->Valid());
    EXPECT_EQ(it->value().ToString(), Value(i));
    it.reset();  // counted when the scan ends
    return Stats(db_.get()).scan_values_prefetched - before;
  };
  const size_t cap = HybridTableOptions().scan_prefetch_max;
  // Prefetching, a window of `cap` entries from Key(121), where every third
  // value is medium, starting with its own.
  EXPECT_EQ(medium_read_ahead_by_one_entry_scan(121),
            GetParam() ? (cap + 2) / 3 : 0);
  // ScanPrefetcher::kMinWindow entries from Key(271): its own value.
  EXPECT_EQ(medium_read_ahead_by_one_entry_scan(271), GetParam() ? 1u : 0u);
}

// A seek into a table that recent scans read far leaves its first window's
// reads in flight when Seek returns. The application may call RocksDB on the
// same thread before it moves the iterator: here a MultiGet of cold blobs and
// medium values, which RocksDB reads with MultiRead (io_uring, where enabled,
// on a ring of its own file system's that MultiRead fails on a completion it
// did not submit). It must get only its own reads, and the scan must go on
// intact.
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
  // Values of the second flush, none read yet: one MultiRead of their blob
  // file, and batched reads of their medium file.
  std::vector<std::string> key_strings;
  for (int i = 240; i < kKeys; i++) key_strings.push_back(Key(i));
  const std::vector<Slice> keys(key_strings.begin(), key_strings.end());
  std::vector<std::string> values;
  const uint64_t misses_before = Ticker(BLOB_DB_CACHE_MISS);
  const std::vector<Status> statuses =
      db_->MultiGet(ReadOptions(), keys, &values);
  for (size_t k = 0; k < keys.size(); k++) {
    ASSERT_OK(statuses[k]) << key_strings[k];
    EXPECT_EQ(values[k], Value(240 + static_cast<int>(k)));
  }
  // Every blob came from its file.
  EXPECT_EQ(Ticker(BLOB_DB_CACHE_MISS) - misses_before, (kKeys - 240) / 3);
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

TEST_P(ScanPrefetchTest, DamagedMediumRecordFailsTheScanAsWithoutPrefetch) {
  Load(GetParam());
  db_.reset();
  // Damage the middle of the medium file of the first flush: a value there no
  // longer matches its checksum.
  auto files = test::FilesWithSuffix(dir_.path(), ".medium");
  ASSERT_FALSE(files.empty());
  std::sort(files.begin(), files.end(),
            [](const std::string& a, const std::string& b) {
              return std::stoull(a) < std::stoull(b);
            });
  const std::string path = dir_.path() + "/" + files.front();
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
