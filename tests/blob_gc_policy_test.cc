// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// BlobDB's garbage collection runs only while the blob files it would relocate
// hold garbage (blob/blobdb/blob_gc_policy.h): never in an insert-only load,
// from the first compaction that leaves garbage in the oldest files, and off
// again once GC has moved the live blobs out of them.
#include "plugin/hybridkv/blob/blobdb/blob_gc_policy.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "hybridkv/hybridkv.h"
#include "plugin/hybridkv/blob/io/rocksdb_compat.h"
#include "rocksdb/db.h"
#include "rocksdb/metadata.h"
#include "rocksdb/table.h"
#include "test_util.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

TEST(BlobGcPolicyTest, RatioCountsTheOldestFilesByNumber) {
  // Listed out of order: the oldest two of four (cutoff 0.5) are 3 and 5.
  std::vector<BlobFileGarbage> files = {
      {9, 100, 100}, {3, 100, 10}, {12, 100, 100}, {5, 300, 30}};
  EXPECT_DOUBLE_EQ(RelocatedFilesGarbageRatio(files, 0.5), 40.0 / 400);
  // floor(0.6 * 4) = 2 files as well; 1.0 takes them all.
  EXPECT_DOUBLE_EQ(RelocatedFilesGarbageRatio(files, 0.6), 40.0 / 400);
  EXPECT_DOUBLE_EQ(RelocatedFilesGarbageRatio(files, 1.0), 240.0 / 600);
}

TEST(BlobGcPolicyTest, RatioIsZeroWhenGcWouldRelocateNothing) {
  EXPECT_EQ(RelocatedFilesGarbageRatio({}, 0.25), 0);
  // floor(0.25 * 3) = 0 files.
  EXPECT_EQ(
      RelocatedFilesGarbageRatio({{1, 10, 10}, {2, 10, 10}, {3, 10, 10}}, 0.25),
      0);
  EXPECT_EQ(RelocatedFilesGarbageRatio({{1, 10, 10}}, 0), 0);
}

TEST(BlobGcPolicyTest, SwitchesOnAtTheMinimumAndOffBelowHalfOfIt) {
  EXPECT_FALSE(WantBlobGarbageCollection(0.19, 0.2, /*gc_on=*/false));
  EXPECT_TRUE(WantBlobGarbageCollection(0.2, 0.2, /*gc_on=*/false));
  // Once on, it stays on down to half the minimum.
  EXPECT_TRUE(WantBlobGarbageCollection(0.15, 0.2, /*gc_on=*/true));
  EXPECT_TRUE(WantBlobGarbageCollection(0.1, 0.2, /*gc_on=*/true));
  EXPECT_FALSE(WantBlobGarbageCollection(0.09, 0.2, /*gc_on=*/true));
}

std::string Key(int i) { return "key" + std::to_string(100000 + i); }
std::string Large(int i, int version) {
  // Above medium_max_value_size (999): BlobDB's.
  return std::string(2000, static_cast<char>('a' + (i * 7 + version) % 26));
}

Options MakeOptions(double min_garbage_ratio) {
  Options options;
  options.create_if_missing = true;
  HybridOptions hybrid;
  hybrid.blob_garbage_collection_min_garbage_ratio = min_garbage_ratio;
  EXPECT_OK(ConfigureOptions(&options, hybrid));
  // Several blob files per flush, so the oldest quarter is never empty; the
  // test decides when compactions run.
  options.blob_file_size = 64 << 10;
  options.disable_auto_compactions = true;
  return options;
}

std::set<uint64_t> BlobFileNumbers(DB* db) {
  ColumnFamilyMetaData meta;
  db->GetColumnFamilyMetaData(&meta);
  std::set<uint64_t> numbers;
  for (const BlobMetaData& f : meta.blob_files) {
    numbers.insert(f.blob_file_number);
  }
  return numbers;
}

bool GcEnabled(DB* db) {
  return db->GetOptions().enable_blob_garbage_collection;
}

// `flushes` flushes of 100 distinct keys each into `cf` (the default column
// family when null): with four, about 16 blob files, no garbage.
void InsertOnly(DB* db, int flushes = 4, ColumnFamilyHandle* cf = nullptr) {
  if (cf == nullptr) cf = db->DefaultColumnFamily();
  for (int flush = 0; flush < flushes; flush++) {
    for (int i = flush * 100; i < (flush + 1) * 100; i++) {
      ASSERT_OK(db->Put(WriteOptions(), cf, Key(i), Large(i, 0)));
    }
    ASSERT_OK(db->Flush(FlushOptions(), cf));
  }
}

// Rewrites every file, the bottommost level's too.
void CompactAll(DB* db) {
  CompactRangeOptions cro;
  cro.bottommost_level_compaction = BottommostLevelCompaction::kForce;
  ASSERT_OK(db->CompactRange(cro, nullptr, nullptr));
}

void ExpectValues(DB* db, int n, int overwritten_version) {
  for (int i = 0; i < n; i++) {
    std::string value;
    ASSERT_OK(db->Get(ReadOptions(), Key(i), &value)) << Key(i);
    ASSERT_EQ(value, Large(i, i % 2 == 0 ? overwritten_version : 0)) << Key(i);
  }
}

std::unique_ptr<DB> Open(const Options& options, const std::string& path) {
  DB* raw = nullptr;
  EXPECT_OK(OpenDB(options, path, &raw));
  return std::unique_ptr<DB>(raw);
}

// What one full compaction of an insert-only load did to the blob files.
struct InsertOnlyRun {
  bool gc_on_before = false;
  bool gc_on_after = false;
  size_t flushed_files = 0;
  bool kept_flushed_files = false;  // all of them, and no other
  bool wrote_blob_files = false;    // relocated blobs into new files
};

InsertOnlyRun CompactInsertOnlyLoad(const std::string& name,
                                    double min_garbage_ratio) {
  test::ScratchDir dir(name);
  std::unique_ptr<DB> db = Open(MakeOptions(min_garbage_ratio), dir.path());
  InsertOnlyRun run;
  if (db == nullptr) return run;
  run.gc_on_before = GcEnabled(db.get());
  InsertOnly(db.get());  // a failure is recorded; the run's checks then fail
  const std::set<uint64_t> flushed = BlobFileNumbers(db.get());
  run.flushed_files = flushed.size();
  CompactAll(db.get());
  const std::set<uint64_t> after = BlobFileNumbers(db.get());
  run.kept_flushed_files = after == flushed;
  run.wrote_blob_files = !after.empty() && *after.rbegin() > *flushed.rbegin();
  run.gc_on_after = GcEnabled(db.get());
  ExpectValues(db.get(), 400, 0);
  return run;
}

// Stock BlobDB (ratio 0, GC always on) copies the live blobs of the oldest
// files into new ones, though they hold no garbage: the cost the policy
// removes. This is the control for the test after it.
TEST(BlobGcPolicyTest, StockGcRelocatesBlobsOfAnInsertOnlyLoad) {
  const InsertOnlyRun run = CompactInsertOnlyLoad("blob_gc_stock", 0);
  ASSERT_GE(run.flushed_files, 8u);
  EXPECT_TRUE(run.gc_on_before);
  EXPECT_TRUE(run.wrote_blob_files);
  EXPECT_TRUE(run.gc_on_after);
}

TEST(BlobGcPolicyTest, InsertOnlyLoadRelocatesNothing) {
  const InsertOnlyRun run = CompactInsertOnlyLoad("blob_gc_insert_only", 0.2);
  ASSERT_GE(run.flushed_files, 8u);
  EXPECT_FALSE(run.gc_on_before);
  EXPECT_TRUE(run.kept_flushed_files);
  EXPECT_FALSE(run.gc_on_after);
}

// Overwrites every other key of InsertOnly's `flushes`, leaving each of its
// blob files half garbage once a compaction drops the old references.
void OverwriteHalf(DB* db, int flushes = 4, ColumnFamilyHandle* cf = nullptr) {
  if (cf == nullptr) cf = db->DefaultColumnFamily();
  for (int i = 0; i < flushes * 100; i += 2) {
    ASSERT_OK(db->Put(WriteOptions(), cf, Key(i), Large(i, 1)));
  }
  ASSERT_OK(db->Flush(FlushOptions(), cf));
}

// GC goes on with the first garbage, the next compaction relocates the oldest
// files' live half, and with the garbage gone GC goes off again.
TEST(BlobGcPolicyTest, GarbageTurnsGcOnUntilItIsCollected) {
  test::ScratchDir dir("blob_gc_overwrite");
  const Options options = MakeOptions(/*min_garbage_ratio=*/0.2);
  std::unique_ptr<DB> db = Open(options, dir.path());
  ASSERT_NE(db, nullptr);
  ASSERT_NO_FATAL_FAILURE(InsertOnly(db.get()));
  const std::set<uint64_t> inserted = BlobFileNumbers(db.get());
  ASSERT_NO_FATAL_FAILURE(OverwriteHalf(db.get()));
  // (On 9.10 Flush may return before the listener's flush callback has run;
  // either way a flush records no garbage.)
  EXPECT_FALSE(GcEnabled(db.get())) << "no compaction has counted garbage yet";

  // Counts the garbage (GC was off: nothing relocated) and turns GC on. One
  // job: the L0 files into the last level, which is not compacted again.
  ASSERT_OK(db->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  ASSERT_TRUE(GcEnabled(db.get()));
  std::set<uint64_t> after = BlobFileNumbers(db.get());
  EXPECT_TRUE(std::includes(after.begin(), after.end(), inserted.begin(),
                            inserted.end()));
  ASSERT_NO_FATAL_FAILURE(ExpectValues(db.get(), 400, 1));

  // The switch is not persisted as the user's choice: a reopen starts with GC
  // off, as ConfigureOptions set it, and the next job (here a flush) decides
  // again from the garbage on disk.
  db.reset();
  db = Open(options, dir.path());
  ASSERT_NE(db, nullptr);
  EXPECT_FALSE(GcEnabled(db.get()));
  ASSERT_OK(db->Put(WriteOptions(), "zz-after-reopen", "small"));
  ASSERT_OK(db->Flush(FlushOptions()));
  ASSERT_OK(db->WaitForCompact(WaitForCompactOptions()));
  ASSERT_TRUE(GcEnabled(db.get()));

  // Relocates the oldest files' live blobs into new files; the old ones go.
  const std::set<uint64_t> before = after;
  ASSERT_NO_FATAL_FAILURE(CompactAll(db.get()));
  after = BlobFileNumbers(db.get());
  EXPECT_EQ(after.count(*inserted.begin()), 0u);
  EXPECT_GT(*after.rbegin(), *before.rbegin());
  ASSERT_NO_FATAL_FAILURE(ExpectValues(db.get(), 400, 1));

  // Each compaction collects the oldest quarter; after a few, what GC would
  // relocate next is nearly clean and GC is off.
  for (int i = 0; i < 8 && GcEnabled(db.get()); i++) {
    ASSERT_NO_FATAL_FAILURE(CompactAll(db.get()));
  }
  EXPECT_FALSE(GcEnabled(db.get()));
  ASSERT_NO_FATAL_FAILURE(ExpectValues(db.get(), 400, 1));
}

// The policy switches only the column family whose job finished, and only if
// it is a HybridTable: a stock BlobDB column family beside it keeps GC on,
// though its insert-only load would have turned the policy's GC off.
TEST(BlobGcPolicyTest, SwitchesOnlyItsOwnColumnFamily) {
  test::ScratchDir dir("blob_gc_two_cfs");
  const Options hybrid = MakeOptions(/*min_garbage_ratio=*/0.2);
  ColumnFamilyOptions stock;
  stock.enable_blob_files = true;
  stock.min_blob_size = 1000;
  stock.blob_file_size = hybrid.blob_file_size;
  stock.enable_blob_garbage_collection = true;
  stock.disable_auto_compactions = true;
  std::vector<ColumnFamilyHandle*> handles;
  DB* raw = nullptr;
  Options db_options = hybrid;
  db_options.create_missing_column_families = true;
  ASSERT_OK(OpenDB(DBOptions(db_options), dir.path(),
                   {{kDefaultColumnFamilyName, stock},
                    {"hybrid", ColumnFamilyOptions(hybrid)}},
                   &handles, &raw));
  std::unique_ptr<DB> db(raw);
  ColumnFamilyHandle* const stock_cf = handles[0];
  ColumnFamilyHandle* const hybrid_cf = handles[1];
  auto gc_enabled = [&](ColumnFamilyHandle* cf) {
    return db->GetOptions(cf).enable_blob_garbage_collection;
  };
  // Insert-only in both.
  for (ColumnFamilyHandle* cf : handles) {
    ASSERT_NO_FATAL_FAILURE(InsertOnly(db.get(), /*flushes=*/2, cf));
    ASSERT_OK(db->CompactRange(CompactRangeOptions(), cf, nullptr, nullptr));
  }
  EXPECT_TRUE(gc_enabled(stock_cf));
  EXPECT_FALSE(gc_enabled(hybrid_cf));

  // Garbage in HybridKV's: its GC goes on, the stock one's stays on.
  ASSERT_NO_FATAL_FAILURE(OverwriteHalf(db.get(), /*flushes=*/2, hybrid_cf));
  ASSERT_OK(
      db->CompactRange(CompactRangeOptions(), hybrid_cf, nullptr, nullptr));
  EXPECT_TRUE(gc_enabled(hybrid_cf));
  EXPECT_TRUE(gc_enabled(stock_cf));
  for (ColumnFamilyHandle* cf : handles) {
    ASSERT_OK(db->DestroyColumnFamilyHandle(cf));
  }
}

TEST(BlobGcPolicyTest, RatioOutsideZeroToOneIsRejected) {
  for (double ratio : {-0.1, 1.5}) {
    Options options;
    HybridOptions hybrid;
    hybrid.blob_garbage_collection_min_garbage_ratio = ratio;
    const Status s = ConfigureOptions(&options, hybrid);
    EXPECT_TRUE(s.IsInvalidArgument()) << ratio << ": " << s.ToString();
    EXPECT_NE(s.ToString().find("blob_garbage_collection_min_garbage_ratio"),
              std::string::npos)
        << s.ToString();
  }
}

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
