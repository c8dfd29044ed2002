// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// Hybrid placement against real DBs on disk: medium values go to .medium files
// at flush, SSTs above the merge level hold pointers, compactions at the merge
// level write the values back inline, and every read returns the exact bytes.
// Each level's contents are checked with a raw scan by stock BlockBasedTable,
// independent of HybridKV's own reader.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "hybridkv/hybridkv.h"
#include "plugin/hybridkv/blob/format/medium_pointer.h"
#include "plugin/hybridkv/blob/format/medium_refs.h"
#include "plugin/hybridkv/blob/io/rocksdb_compat.h"
#include "plugin/hybridkv/blob/lifecycle/db_secret.h"
#include "plugin/hybridkv/blob/lifecycle/db_state.h"
#include "plugin/hybridkv/blob/lifecycle/medium_lifecycle.h"
#include "plugin/hybridkv/table/hybridkv_partitioner.h"
#include "rocksdb/convenience.h"
#include "rocksdb/db.h"
#include "rocksdb/merge_operator.h"
#include "rocksdb/metadata.h"
#include "rocksdb/rate_limiter.h"
#include "rocksdb/sst_file_writer.h"
#include "rocksdb/sst_partitioner.h"
#include "rocksdb/statistics.h"
#include "test_util.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

using Model = std::map<std::string, std::string>;

// 24-byte keys, as in Parallax's Table 4.1.
std::string Key(uint64_t i) {
  char buf[32];
  snprintf(buf, sizeof(buf), "user%020llu", static_cast<unsigned long long>(i));
  return buf;
}

// 9, 104 or 1004 bytes with probability 20/60/20, deterministic in (i,
// version).
std::string MixedValue(uint64_t i, int version) {
  std::mt19937_64 rng(i * 7919 + version);
  const int pick = static_cast<int>(rng() % 10);
  const size_t size = pick < 2 ? 9 : (pick < 8 ? 104 : 1004);
  std::string v(size, '\0');
  for (size_t j = 0; j < size; ++j)
    v[j] = static_cast<char>('a' + (rng() % 26));
  v[0] = static_cast<char>('0' + version % 10);
  return v;
}

struct Config {
  const char* name;
  ClassifyBy classify_by;
  int merge_level;
};

Options MakeOptions(const Config& c = {"default", ClassifyBy::kSize, -2}) {
  HybridOptions hybrid;
  hybrid.table.classify_by = c.classify_by;
  hybrid.table.merge_level = c.merge_level;
  // A small LSM with several populated levels: L0 and the upper levels hold
  // pointers.
  Options options = test::SmallLsmOptions(256 << 10, 128 << 10, hybrid);
  options.num_levels = 5;
  return options;
}

std::unique_ptr<DB> Open(const Options& options, const std::string& path) {
  DB* raw = nullptr;
  EXPECT_OK(hybridkv::OpenDB(options, path, &raw));
  return std::unique_ptr<DB>(raw);
}

void Load(DB* db, Model* model, uint64_t n, int version, uint64_t stride = 1) {
  for (uint64_t i = 0; i < n; i += stride) {
    std::string v = MixedValue(i, version);
    ASSERT_OK(db->Put(WriteOptions(), Key(i), v));
    (*model)[Key(i)] = std::move(v);
  }
}

// Checks Get, MultiGet and a forward and a reverse scan against `model`.
void CheckAll(DB* db, const Model& model, uint64_t get_stride = 7) {
  using Pairs = std::vector<std::pair<std::string, std::string>>;
  ASSERT_EQ(test::ScanAll(db), Pairs(model.begin(), model.end()));
  std::unique_ptr<Iterator> it(db->NewIterator(ReadOptions()));
  auto m = model.rbegin();
  for (it->SeekToLast(); it->Valid(); it->Prev(), ++m) {
    ASSERT_NE(m, model.rend());
    ASSERT_EQ(it->key().ToString(), m->first);
    ASSERT_EQ(it->value().ToString(), m->second);
  }
  ASSERT_OK(it->status());
  ASSERT_EQ(m, model.rend());
  std::vector<std::string> keys;
  uint64_t i = 0;
  for (const auto& kv : model) {
    if (i++ % get_stride != 0) continue;
    std::string v;
    ASSERT_OK(db->Get(ReadOptions(), kv.first, &v)) << kv.first;
    ASSERT_EQ(v, kv.second) << kv.first;
    keys.push_back(kv.first);
  }
  keys.push_back("absent-key");
  std::vector<Slice> slices(keys.begin(), keys.end());
  std::vector<PinnableSlice> values(keys.size());
  std::vector<Status> statuses(keys.size());
  db->MultiGet(ReadOptions(), db->DefaultColumnFamily(), keys.size(),
               slices.data(), values.data(), statuses.data());
  for (size_t k = 0; k + 1 < keys.size(); ++k) {
    ASSERT_OK(statuses[k]) << keys[k];
    ASSERT_EQ(values[k].ToString(), model.at(keys[k]));
  }
  ASSERT_TRUE(statuses.back().IsNotFound());
}

// The medium files the live SSTs reference, from their properties.
MediumRefs LiveRefs(DB* db) {
  TablePropertiesCollection props;
  EXPECT_OK(db->GetPropertiesOfAllTables(&props));
  MediumRefs all;
  for (const auto& [file, p] : props) {
    MediumRefs refs;
    bool known = false;
    EXPECT_OK(GetMediumRefs(*p, &refs, &known));
    EXPECT_TRUE(known) << file;
    for (const auto& [number, ref] : refs) {
      all[number].pointers += ref.pointers;
      all[number].record_bytes += ref.record_bytes;
    }
  }
  return all;
}

// Raw pointer counts per level, and the level count.
std::vector<test::RawSstScan> ScanLevels(DB* db) {
  ColumnFamilyMetaData meta;
  db->GetColumnFamilyMetaData(&meta);
  std::vector<test::RawSstScan> levels(meta.levels.size());
  for (const auto& level : meta.levels) {
    for (const auto& f : level.files) {
      auto one = test::ScanSstRaw(f.directory + "/" + f.relative_filename);
      EXPECT_OK(one.status);
      levels[level.level].entries += one.entries;
      levels[level.level].pointer_entries += one.pointer_entries;
      levels[level.level].pointer_bytes += one.pointer_bytes;
      levels[level.level].blob_index_entries += one.blob_index_entries;
    }
  }
  return levels;
}

TEST(HybridPlacementTest, LoadThenFullCompaction) {
  test::ScratchDir dir("load");
  Options options = MakeOptions();
  auto db = Open(options, dir.path());
  Model model;
  Load(db.get(), &model, 200000, 1);
  ASSERT_OK(db->Flush(FlushOptions()));
  ASSERT_OK(db->WaitForCompact(WaitForCompactOptions()));

  // Medium values sit in .medium files, large ones in .blob files.
  EXPECT_FALSE(test::FilesWithSuffix(dir.path(), ".medium").empty());
  EXPECT_FALSE(test::FilesWithSuffix(dir.path(), ".blob").empty());
  // SSTs above the merge level (num_levels 5, merge_level -2: level 3) hold
  // pointers; the merge level holds none: compactions into it write values
  // inline, and HybridKVPartitioner vetoes trivial moves into it. RocksDB does
  // not consult partitioners for moves into the last level (4), so pointers can
  // reach it by trivial move; the full compaction below rewrites them, and the
  // lifecycle work (issue 4) rewrites such files in the background.
  auto levels = ScanLevels(db.get());
  uint64_t above = 0, at_or_below = 0, blob_indexes = 0;
  for (size_t l = 0; l < levels.size(); ++l) {
    if (l < 3) {
      above += levels[l].pointer_entries;
    } else if (l == 3) {
      at_or_below += levels[l].pointer_entries;
    }
    blob_indexes += levels[l].blob_index_entries;
  }
  uint64_t pointers = 0, pointer_bytes = 0;
  for (const auto& l : levels) {
    pointers += l.pointer_entries;
    pointer_bytes += l.pointer_bytes;
  }
  std::printf("medium pointers on disk: %llu, average %.2f bytes\n",
              static_cast<unsigned long long>(pointers),
              pointers ? static_cast<double>(pointer_bytes) /
                             static_cast<double>(pointers)
                       : 0.0);
  EXPECT_GT(above, 0u);
  EXPECT_EQ(at_or_below, 0u) << [&] {
    std::string shape;
    for (size_t l = 0; l < levels.size(); ++l) {
      shape += " L" + std::to_string(l) + ":" +
               std::to_string(levels[l].pointer_entries) + "/" +
               std::to_string(levels[l].entries);
    }
    return "pointers/entries per level:" + shape;
  }();
  EXPECT_GT(blob_indexes, 0u);  // the large class, in BlobDB
  EXPECT_GT(levels[3].entries + levels[4].entries, 0u)
      << "the merge level was never reached";
  CheckAll(db.get(), model);
  HybridStatistics stats;
  ASSERT_OK(GetStatistics(db.get(), &stats));
  EXPECT_GT(stats.medium_values_extracted, 100000u)
      << stats.ToString();  // ~60% of 200k
  EXPECT_GT(stats.small_values_flushed, 30000u) << stats.ToString();
  EXPECT_GT(stats.medium_values_resolved, 0u) << stats.ToString();
  EXPECT_GT(stats.live_medium_files, 0u) << stats.ToString();

  CompactRangeOptions cro;
  cro.bottommost_level_compaction = BottommostLevelCompaction::kForce;
  ASSERT_OK(db->CompactRange(cro, nullptr, nullptr));
  auto raw = test::ScanAllSstsRaw(dir.path());
  ASSERT_OK(raw.status);
  EXPECT_EQ(raw.pointer_entries, 0u);  // no pointer remains in any SST
  EXPECT_GT(raw.entries, 0u);
  EXPECT_TRUE(
      LiveRefs(db.get()).empty());  // every .medium file is unreferenced...
  // ... and deleted by HybridKVListener once the compaction inputs are gone.
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!test::FilesWithSuffix(dir.path(), ".medium").empty() &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE(test::FilesWithSuffix(dir.path(), ".medium").empty());
  HybridStatistics after;
  ASSERT_OK(GetStatistics(db.get(), &after));
  EXPECT_GT(after.medium_values_inlined, stats.medium_values_inlined)
      << after.ToString();
  EXPECT_GT(after.merge_bytes_read, 0u);
  EXPECT_EQ(after.live_medium_files, 0u);
  // Merge reads are sequential and chunked: far fewer I/Os than values.
  EXPECT_LT(after.merge_reads * 10, after.medium_values_inlined)
      << after.ToString();
  std::printf("HybridKV statistics after the full compaction:\n%s",
              after.ToString().c_str());
  CheckAll(db.get(), model);
  ASSERT_OK(db->VerifyChecksum());
  ASSERT_OK(db->Close());
  db = Open(options, dir.path());
  CheckAll(db.get(), model, 101);
}

TEST(HybridPlacementTest, ClassChangesDeletesSnapshotsAndReopen) {
  test::ScratchDir dir("edges");
  Options options = MakeOptions();
  options.disable_auto_compactions =
      true;  // keep pointers in L0 until we compact
  auto db = Open(options, dir.path());
  Model model;
  const std::string small(9, 's'), medium(300, 'm'), large(3000, 'l');
  // Keys move between classes in both directions, across flushes.
  const std::vector<std::vector<std::string>> rounds = {
      {small, medium, large},
      {medium, large, small},
      {large, small, medium},
      {medium, medium, small}};
  auto reopen = [&] {
    ASSERT_OK(db->Close());
    db = Open(options, dir.path());
    CheckAll(db.get(), model, 1);
  };
  for (size_t r = 0; r < rounds.size(); ++r) {
    for (int k = 0; k < 300; ++k) {
      std::string v = rounds[r][k % 3] + std::to_string(r);
      ASSERT_OK(db->Put(WriteOptions(), Key(k), v));
      model[Key(k)] = v;
    }
    ASSERT_OK(db->Flush(FlushOptions()));
    CheckAll(db.get(), model, 1);
    reopen();
  }
  // A snapshot taken now must keep reading these medium values after
  // compaction.
  const Snapshot* snap = db->GetSnapshot();
  const Model at_snapshot = model;
  // Deletes and a DeleteRange over medium keys.
  for (int k = 0; k < 300; k += 10) {
    ASSERT_OK(db->Delete(WriteOptions(), Key(k)));
    model.erase(Key(k));
  }
  ASSERT_OK(db->DeleteRange(WriteOptions(), db->DefaultColumnFamily(), Key(100),
                            Key(150)));
  for (int k = 100; k < 150; ++k) model.erase(Key(k));
  for (int k = 200; k < 260; ++k) {  // overwrite with another medium value
    model[Key(k)] = std::string(150, 'n');
    ASSERT_OK(db->Put(WriteOptions(), Key(k), model[Key(k)]));
  }
  ASSERT_OK(db->Flush(FlushOptions()));
  CheckAll(db.get(), model, 1);
  ASSERT_OK(db->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  CheckAll(db.get(), model, 1);
  using Pairs = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(test::ScanAll(db.get(), nullptr, snap),
            Pairs(at_snapshot.begin(), at_snapshot.end()));
  db->ReleaseSnapshot(snap);
  reopen();
}

// The same workload reads identically under every classification and merge
// level.
TEST(HybridPlacementTest, SameBytesUnderEveryConfiguration) {
  const Config configs[] = {{"size-2", ClassifyBy::kSize, -2},
                            {"ratio-2", ClassifyBy::kRatio, -2},
                            {"size1", ClassifyBy::kSize, 1},
                            {"size-1", ClassifyBy::kSize, -1}};
  std::vector<std::pair<std::string, std::string>> first;
  for (const Config& c : configs) {
    SCOPED_TRACE(c.name);
    test::ScratchDir dir(c.name);
    auto db = Open(MakeOptions(c), dir.path());
    Model model;
    Load(db.get(), &model, 30000, 1);
    Load(db.get(), &model, 30000, 2, 3);  // overwrites change classes
    for (uint64_t i = 0; i < 30000; i += 17) {
      ASSERT_OK(db->Delete(WriteOptions(), Key(i)));
      model.erase(Key(i));
    }
    ASSERT_OK(db->Flush(FlushOptions()));
    ASSERT_OK(db->WaitForCompact(WaitForCompactOptions()));
    CheckAll(db.get(), model, 13);
    auto scanned = test::ScanAll(db.get());
    if (first.empty()) {
      first = scanned;
    } else {
      EXPECT_TRUE(scanned == first);
    }
  }
}

// A value written through Put that imitates a pointer reads back verbatim and
// never breaks a compaction, at any level.
TEST(HybridPlacementTest, ForgedPointersAreJustValues) {
  test::ScratchDir dir("forged");
  Options options = MakeOptions();
  auto db = Open(options, dir.path());
  Model model;
  Load(db.get(), &model, 5000, 1);  // medium values exist, so the secret exists
  ASSERT_OK(db->Flush(FlushOptions()));
  for (int k = 0; k < 200; ++k) {
    MediumPointer p;
    p.file_number = 7 + k;  // plausible numbers, offsets and sizes
    p.handle.offset = 16 + k * 120;
    p.handle.size = 120;
    std::string forged;
    EncodeMediumPointer(SipKey{static_cast<uint64_t>(k), 42}, p,
                        Key(900000 + k), &forged);
    ASSERT_OK(db->Put(WriteOptions(), Key(900000 + k), forged));
    model[Key(900000 + k)] = forged;
  }
  ASSERT_OK(db->Flush(FlushOptions()));
  CheckAll(db.get(), model, 1);
  CompactRangeOptions cro;
  cro.bottommost_level_compaction = BottommostLevelCompaction::kForce;
  ASSERT_OK(db->CompactRange(cro, nullptr, nullptr));
  CheckAll(db.get(), model, 1);
}

// A flipped byte inside a .medium file: reads of the affected key fail with
// Corruption naming the file, other keys still read, and no read returns wrong
// bytes.
TEST(HybridPlacementTest, CorruptMediumFileIsReported) {
  test::ScratchDir dir("corrupt");
  Options options = MakeOptions();
  options.disable_auto_compactions = true;
  auto db = Open(options, dir.path());
  Model model;
  Load(db.get(), &model, 2000, 1);
  ASSERT_OK(db->Flush(FlushOptions()));
  auto medium = test::FilesWithSuffix(dir.path(), ".medium");
  ASSERT_FALSE(medium.empty());
  const std::string path = dir.Sub(medium[0]);
  {
    // The middle of the file lies inside a record; invert one byte there.
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(0, std::ios::end);
    const auto middle = static_cast<std::streamoff>(f.tellg()) / 2;
    f.seekg(middle);
    const char byte = static_cast<char>(f.get());
    f.seekp(middle);
    f.put(static_cast<char>(~byte));
  }
  ASSERT_OK(db->Close());
  db = Open(options, dir.path());
  int corrupt = 0, good = 0;
  for (const auto& kv : model) {
    std::string v;
    Status s = db->Get(ReadOptions(), kv.first, &v);
    if (s.ok()) {
      ASSERT_EQ(v, kv.second) << kv.first;  // never wrong bytes
      good++;
    } else {
      ASSERT_TRUE(s.IsCorruption()) << s.ToString();
      EXPECT_NE(s.ToString().find(medium[0]), std::string::npos)
          << s.ToString();
      corrupt++;
    }
  }
  EXPECT_EQ(corrupt, 1);
  EXPECT_EQ(good + corrupt, static_cast<int>(model.size()));
  Status s = db->VerifyChecksum();
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
}

// Opened by RocksDB without HybridKV (the user's own BlockBasedTable options),
// a DB with medium pointers fails loudly on them, and never returns a pointer
// as a value.
TEST(HybridPlacementTest, WithoutThePluginMediumKeysFailLoudly) {
  test::ScratchDir dir("noplugin");
  Options hybrid = MakeOptions();
  hybrid.disable_auto_compactions = true;
  Model model;
  {
    auto db = Open(hybrid, dir.path());
    for (int k = 0; k < 200; ++k) {
      model[Key(k)] =
          k % 2 ? std::string(300, 'm') : std::string(9, 's');  // medium, small
      ASSERT_OK(db->Put(WriteOptions(), Key(k), model[Key(k)]));
    }
    ASSERT_OK(db->Flush(FlushOptions()));
    ASSERT_OK(db->Close());
  }
  Options stock;
  stock.disable_auto_compactions = true;
  stock.num_levels = hybrid.num_levels;
  {
    auto db = Open(stock, dir.path());
    for (const auto& [key, value] : model) {
      std::string v;
      Status s = db->Get(ReadOptions(), key, &v);
      if (value.size() < 96) {
        ASSERT_OK(s);  // small values are plain SST values
        EXPECT_EQ(v, value);
      } else {
        EXPECT_FALSE(s.ok()) << key << " returned " << v.size() << " bytes";
      }
    }
    auto scanned = test::ScanAll(db.get());
    ASSERT_FALSE(scanned.empty());
    EXPECT_EQ(scanned.back().first, "<iterator error>");
    // A stock compaction either fails or copies the pointer entries untouched
    // (they are blob indexes to it): it never turns a pointer into a value.
    Status s = db->CompactRange(CompactRangeOptions(), nullptr, nullptr);
    std::printf("stock CompactRange on a HybridKV DB: %s\n",
                s.ToString().c_str());
    ASSERT_OK(db->Close());
  }
  auto db = Open(hybrid, dir.path());  // nothing was lost
  CheckAll(db.get(), model, 1);
  // The stock compaction's SSTs hold pointers but no HybridKV properties:
  // seeding must scan them, not take their medium file for a leftover.
  ASSERT_OK(db->Put(WriteOptions(), "another", std::string(300, 'a')));
  model["another"] = std::string(300, 'a');
  ASSERT_OK(db->Flush(FlushOptions()));
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!DbStateFor(dir.path())->tracker().seeded() &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_TRUE(DbStateFor(dir.path())->tracker().seeded());
  CheckAll(db.get(), model, 1);
  ASSERT_OK(db->Close());
  db = Open(hybrid, dir.path());
  CheckAll(db.get(), model, 1);
}

// SstFileWriter output (reason kMisc) keeps every value inline, even with
// HybridTable options; ingested, it reads back exactly. So does the output of
// a stock SstFileWriter (BlockBasedTable, no HybridKV property), which cannot
// hold pointers: SstFileWriter writes no blob index entries.
TEST(HybridPlacementTest, SstFileWriterNeverExtracts) {
  for (bool stock_writer : {false, true}) {
    SCOPED_TRACE(stock_writer ? "stock SstFileWriter" : "HybridTable options");
    test::ScratchDir dir(stock_writer ? "sstwriter-stock" : "sstwriter");
    test::ScratchDir outside(stock_writer ? "sstwriter-stock-ext"
                                          : "sstwriter-ext");
    Options options = MakeOptions();
    auto db = Open(options, dir.path());
    // Written outside the DB, as ingested files usually are.
    const std::string sst = outside.Sub("external.sst");
    SstFileWriter writer(EnvOptions(), stock_writer ? Options() : options);
    ASSERT_OK(writer.Open(sst));
    Model model;
    for (int k = 0; k < 500; ++k) {
      model[Key(k)] = std::string(100 + k, 'w');  // medium-sized
      ASSERT_OK(writer.Put(Key(k), model[Key(k)]));
    }
    ASSERT_OK(writer.Finish());
    auto raw = test::ScanSstRaw(sst);
    ASSERT_OK(raw.status);
    EXPECT_EQ(raw.entries, 500u);
    EXPECT_EQ(raw.pointer_entries, 0u);
    EXPECT_TRUE(test::FilesWithSuffix(dir.path(), ".medium").empty());
    ASSERT_OK(db->IngestExternalFile({sst}, IngestExternalFileOptions()));
    CheckAll(db.get(), model, 1);
  }
}

// Medium files are I/O like any other of the DB's: the rate limiter charges a
// flush's medium writes, and the reads a Get asks it to charge
// (ReadOptions::rate_limiter_priority), as it does for SSTs and blob files.
TEST(HybridPlacementTest, MediumIoGoesThroughTheRateLimiter) {
  test::ScratchDir dir("rate-limited");
  Options options = MakeOptions();
  options.disable_auto_compactions = true;
  options.write_buffer_size = 4 << 20;  // one flush
  std::shared_ptr<RateLimiter> limiter(NewGenericRateLimiter(
      int64_t{1} << 40, 100 * 1000, 10, RateLimiter::Mode::kAllIo));
  options.rate_limiter = limiter;
  auto db = Open(options, dir.path());
  const std::string value(300, 'm');  // medium
  for (int k = 0; k < 1000; ++k) {
    ASSERT_OK(db->Put(WriteOptions(), Key(k), value));
  }
  ASSERT_OK(db->Flush(FlushOptions()));
  ASSERT_EQ(test::FilesWithSuffix(dir.path(), ".medium").size(), 1u);
  // The SST holds pointers of about 40 bytes; the values went to the medium
  // file.
  EXPECT_GE(limiter->GetTotalBytesThrough(Env::IO_HIGH), 1000u * 300)
      << "the flush's medium writes were not charged";
  // A Get charged at IO_USER, on a cold cache: the SST block and the medium
  // block.
  db.reset();
  db = Open(options, dir.path());
  const auto* table =
      options.table_factory->GetOptions<BlockBasedTableOptions>();
  ASSERT_NE(table, nullptr);
  if (table->block_cache != nullptr) table->block_cache->EraseUnRefEntries();
  ReadOptions charged;
  charged.rate_limiter_priority = Env::IO_USER;
  const int64_t before = limiter->GetTotalRequests(Env::IO_USER);
  std::string got;
  ASSERT_OK(db->Get(charged, Key(500), &got));
  EXPECT_EQ(got, value);
  EXPECT_GE(limiter->GetTotalRequests(Env::IO_USER) - before, 2)
      << "the medium read was not charged";
}

// Without dynamic level sizing, a negative merge level counts from the
// deepest level each column family has reached. Column families 0 and 64
// shared one slot: a new, shallow column family 64 took column family 0's
// depth, and its merge level was never reached.
TEST(HybridPlacementTest, DeepestLevelIsKeptPerColumnFamily) {
  DbCounters counters;
  counters.NoteLevel(0, 6);
  counters.NoteLevel(64, 2);
  counters.NoteLevel(64, 1);
  EXPECT_EQ(counters.DeepestLevel(0), 6);
  EXPECT_EQ(counters.DeepestLevel(64), 2);
  EXPECT_EQ(counters.DeepestLevel(128), 0);
}

// merge_level=auto against a real LSM as it deepens (num_levels 5: L4 is the
// deepest level, L3 the penultimate). While L0 compacts into L2, -1 applies:
// a compaction of L2 into L3 keeps pointers. Once L0 compacts into L1, -2
// applies: the same compaction writes the values inline, and trivial moves
// into L3 are vetoed. Every read stays exact through the change and a reopen.
TEST(HybridPlacementTest, AutoMergeLevelFollowsTheLsmAsItDeepens) {
  test::ScratchDir dir("auto");
  Options options = MakeOptions({"auto", ClassifyBy::kSize, kAutoMergeLevel});
  auto db = Open(options, dir.path());
  Model model;
  auto base_level = [&]() {
    uint64_t level = 0;
    EXPECT_TRUE(db->GetIntProperty("rocksdb.base-level", &level));
    return static_cast<int>(level);
  };
  auto l2_is_empty = [&]() { return test::FilesAt(db.get(), 2).empty(); };
  auto moves_into_l3_vetoed = [&]() {
    SstPartitioner::Context context;
    context.output_level = 3;
    return !options.sst_partitioner_factory->CreatePartitioner(context)
                ->CanDoTrivialMove("a", "z");
  };
  // Compacts L2 into L3 and counts the outputs' entries and pointers. With
  // background work paused, no compaction takes an output away before it is
  // read.
  auto compact_l2_into_l3 = [&](uint64_t* entries, uint64_t* pointers) {
    ASSERT_OK(db->PauseBackgroundWork());
    const std::vector<std::string> inputs = test::FilesAt(db.get(), 2);
    ASSERT_FALSE(inputs.empty());
    std::vector<std::string> outputs;
    ASSERT_OK(
        db->CompactFiles(CompactionOptions(), inputs, 3, -1, &outputs));
    *entries = *pointers = 0;
    for (const auto& path : outputs) {
      auto scan = test::ScanSstRaw(path);
      ASSERT_OK(scan.status);
      *entries += scan.entries;
      *pointers += scan.pointer_entries;
    }
    ASSERT_OK(db->ContinueBackgroundWork());
  };
  // Keys in a scattered order, so that every flush overlaps every level.
  constexpr uint64_t kKeys = 400000;
  uint64_t next = 0;
  auto load_batch = [&](uint64_t n) {
    for (uint64_t end = next + n; next < end; ++next) {
      const uint64_t i = (next * 7919) % kKeys;
      std::string v = MixedValue(i, static_cast<int>(next / kKeys));
      ASSERT_OK(db->Put(WriteOptions(), Key(i), v));
      model[Key(i)] = std::move(v);
    }
    ASSERT_OK(db->Flush(FlushOptions()));
    ASSERT_OK(db->WaitForCompact(WaitForCompactOptions()));
  };

  // The base level can reach L2 before any L0 compaction has written there:
  // load on until one has, while L2 is still the base level.
  while ((base_level() > 2 || (base_level() == 2 && l2_is_empty())) &&
         next < 4 * kKeys && !HasFatalFailure()) {
    load_batch(10000);
  }
  ASSERT_EQ(base_level(), 2);
  EXPECT_FALSE(moves_into_l3_vetoed());
  uint64_t entries = 0, pointers = 0;
  ASSERT_NO_FATAL_FAILURE(compact_l2_into_l3(&entries, &pointers));
  EXPECT_GT(entries, 0u);
  EXPECT_GT(pointers, entries / 4) << "-1 keeps pointers above L4";

  while (base_level() > 1 && next < 4 * kKeys && !HasFatalFailure()) {
    load_batch(10000);
  }
  ASSERT_EQ(base_level(), 1);
  // A compaction out of L0 resolves the merge level anew; L2, emptied into L3
  // above, needs an input again.
  do {
    load_batch(10000);
  } while (l2_is_empty() && next < 4 * kKeys && !HasFatalFailure());
  EXPECT_TRUE(moves_into_l3_vetoed());
  ASSERT_NO_FATAL_FAILURE(compact_l2_into_l3(&entries, &pointers));
  EXPECT_GT(entries, 0u);
  EXPECT_EQ(pointers, 0u) << "-2 writes the values back inline at L3";

  CheckAll(db.get(), model);
  db.reset();
  db = Open(options, dir.path());
  CheckAll(db.get(), model);
}

// After a restart, until L0 next compacts, merge_level=auto takes the base
// level to be the shallowest level below L0 that an opened SST sits at: never
// above the true base level, so it can only err toward -1.
TEST(HybridPlacementTest, BaseLevelBeforeL0CompactsIsTheShallowestSeen) {
  DbCounters counters;
  EXPECT_EQ(counters.BaseLevel(0), 0);
  counters.NoteLevel(0, 0);  // L0 says nothing of the base level
  EXPECT_EQ(counters.BaseLevel(0), 0);
  counters.NoteLevel(0, 6);
  counters.NoteLevel(0, 3);
  counters.NoteLevel(0, 5);
  EXPECT_EQ(counters.BaseLevel(0), 3);
  EXPECT_EQ(counters.BaseLevel(64), 0);
  counters.NoteBaseLevel(0, 4);  // L0 compacted into L4: that is the base
  EXPECT_EQ(counters.BaseLevel(0), 4);
}

// Column families sharing one partitioner factory each report their merge
// level; moves are vetoed from the lowest. Before any reports, the level
// resolved at open applies.
TEST(HybridPlacementTest, SharedPartitionerVetoesFromTheLowestMergeLevel) {
  HybridKVPartitionerFactory factory;
  auto vetoed = [&](int output_level) {
    SstPartitioner::Context context;
    context.output_level = output_level;
    return !factory.CreatePartitioner(context)->CanDoTrivialMove("a", "z");
  };
  EXPECT_TRUE(vetoed(1));  // unconfigured: every move
  factory.SetMergeLevelAtOpen(6);
  EXPECT_FALSE(vetoed(5));
  EXPECT_TRUE(vetoed(6));
  int db_a = 0, db_b = 0;  // any stable identities
  factory.SetMergeLevel(&db_a, 0, 6);
  factory.SetMergeLevel(&db_a, 1, 5);  // a deeper column family: -2
  EXPECT_TRUE(vetoed(5));
  EXPECT_FALSE(vetoed(4));
  factory.SetMergeLevel(&db_b, 1, 6);  // same id, another DB
  EXPECT_TRUE(vetoed(5));
  factory.SetMergeLevelAtOpen(6);  // another open changes nothing reported
  EXPECT_TRUE(vetoed(5));
  factory.SetMergeLevel(&db_a, 1, 6);
  EXPECT_FALSE(vetoed(5));
}

// Table iterators resolve a medium value only in PrepareValue() (RocksDB's
// iterators always ask tables for unprepared values), so entries that DBIter
// steps over, such as older versions and deleted keys, cost no medium read.
TEST(HybridPlacementTest, ShadowedEntriesAreNeverResolved) {
  test::ScratchDir dir("lazy");
  Options options = MakeOptions();
  options.disable_auto_compactions = true;
  auto db = Open(options, dir.path());
  Model model;
  for (int version = 0; version < 2;
       ++version) {  // two L0 files, each with every key
    for (int k = 0; k < 300; ++k) {
      model[Key(k)] =
          std::string(200, static_cast<char>('a' + (k + version) % 26));
      ASSERT_OK(db->Put(WriteOptions(), Key(k), model[Key(k)]));
    }
    ASSERT_OK(db->Flush(FlushOptions()));
  }
  for (int k = 0; k < 300; k += 3) {
    ASSERT_OK(db->Delete(WriteOptions(), Key(k)));
    model.erase(Key(k));
  }
  HybridStatistics before, after;
  ASSERT_OK(GetStatistics(db.get(), &before));
  using Pairs = std::vector<std::pair<std::string, std::string>>;
  ASSERT_EQ(test::ScanAll(db.get()), Pairs(model.begin(), model.end()));
  ASSERT_OK(GetStatistics(db.get(), &after));
  // 600 pointers on disk; only the 200 newest, live ones are read.
  EXPECT_EQ(after.medium_values_resolved - before.medium_values_resolved, 200u);
}

// Backward iteration over keys with several medium versions, with direction
// changes: DBIter pins values while it looks for a key's newest visible
// version, and a resolved value must stay valid exactly as long as it says.
TEST(HybridPlacementTest, ReverseAndDirectionChangesOverVersions) {
  test::ScratchDir dir("reverse");
  Options options = MakeOptions();
  options.disable_auto_compactions = true;
  auto db = Open(options, dir.path());
  Model model;
  for (int version = 0; version < 3; ++version) {
    for (int k = 0; k < 200; ++k) {
      model[Key(k)] = std::string(150 + version,
                                  static_cast<char>('a' + (k + version) % 26));
      ASSERT_OK(db->Put(WriteOptions(), Key(k), model[Key(k)]));
    }
    ASSERT_OK(db->Flush(FlushOptions()));
  }
  std::unique_ptr<Iterator> it(db->NewIterator(ReadOptions()));
  auto m = model.rbegin();
  for (it->SeekToLast(); it->Valid(); it->Prev(), ++m) {
    ASSERT_EQ(it->key().ToString(), m->first);
    ASSERT_EQ(it->value().ToString(), m->second);
  }
  ASSERT_OK(it->status());
  it->Seek(Key(100));
  for (int step = 0; step < 50; ++step) {  // zig-zag: Next twice, Prev once
    const int k = 100 + step;
    ASSERT_TRUE(it->Valid());
    ASSERT_EQ(it->value().ToString(), model[Key(k)]);
    it->Next();
    ASSERT_EQ(it->value().ToString(), model[Key(k + 1)]);
    it->Next();
    it->Prev();
    ASSERT_EQ(it->key().ToString(), Key(k + 1));
    ASSERT_EQ(it->value().ToString(), model[Key(k + 1)]);
  }
  ASSERT_OK(it->status());
}

// A DB without auto compactions holding keys 0..99, each with `value`, in one
// flushed SST.
std::unique_ptr<DB> OpenWithOneMediumSst(
    const test::ScratchDir& dir, const std::string& value,
    std::shared_ptr<Statistics> statistics = nullptr) {
  Options options = MakeOptions();
  options.statistics = std::move(statistics);
  options.disable_auto_compactions = true;
  auto db = Open(options, dir.path());
  for (int k = 0; k < 100; ++k) {
    EXPECT_OK(db->Put(WriteOptions(), Key(k), value));
  }
  EXPECT_OK(db->Flush(FlushOptions()));
  return db;
}

// Point reads of medium values go through the inner table's block cache.
TEST(HybridPlacementTest, MediumReadsUseTheBlockCache) {
  test::ScratchDir dir("cache");
  const std::string medium(500, 'm');
  auto db = OpenWithOneMediumSst(dir, medium);
  std::string v;
  HybridStatistics before, after_first, after_second;
  ASSERT_OK(GetStatistics(db.get(), &before));
  ASSERT_OK(db->Get(ReadOptions(), Key(42), &v));
  ASSERT_EQ(v, medium);
  ASSERT_OK(GetStatistics(db.get(), &after_first));
  ASSERT_OK(db->Get(ReadOptions(), Key(42), &v));
  ASSERT_EQ(v, medium);
  ASSERT_OK(GetStatistics(db.get(), &after_second));
  EXPECT_EQ(after_first.medium_values_resolved,
            before.medium_values_resolved + 1);
  EXPECT_GT(after_first.resolve_bytes_read,
            before.resolve_bytes_read);  // a miss reads
  EXPECT_EQ(after_second.medium_values_resolved,
            after_first.medium_values_resolved + 1);
  EXPECT_EQ(after_second.resolve_bytes_read,
            after_first.resolve_bytes_read);  // a hit does not
  // The cache holds the medium file's blocks, not single values: key 43's
  // record (507 bytes after key 42's) came in key 42's 4 KiB block.
  ASSERT_OK(db->Get(ReadOptions(), Key(43), &v));
  ASSERT_EQ(v, medium);
  HybridStatistics after_neighbour;
  ASSERT_OK(GetStatistics(db.get(), &after_neighbour));
  EXPECT_EQ(after_neighbour.resolve_bytes_read, after_first.resolve_bytes_read);
  // Key 90 lies blocks away: a read.
  ASSERT_OK(db->Get(ReadOptions(), Key(90), &v));
  ASSERT_EQ(v, medium);
  HybridStatistics after_far;
  ASSERT_OK(GetStatistics(db.get(), &after_far));
  EXPECT_GT(after_far.resolve_bytes_read, after_neighbour.resolve_bytes_read);
}

// Medium reads follow the caller's ReadOptions: a kBlockCacheTier read does no
// I/O (Incomplete when the value is not cached), and fill_cache=false leaves
// the cache alone.
TEST(HybridPlacementTest, MediumReadsHonourReadOptions) {
  test::ScratchDir dir("readopts");
  const std::string medium(500, 'm');
  std::shared_ptr<Statistics> statistics = CreateDBStatistics();
  auto db = OpenWithOneMediumSst(dir, medium, statistics);
  std::string v;
  ASSERT_OK(db->Get(ReadOptions(), Key(42), &v));  // caches its data block
  ReadOptions cache_only;
  cache_only.read_tier = kBlockCacheTier;
  ASSERT_OK(db->Get(cache_only, Key(42), &v));  // the value is cached too
  EXPECT_EQ(v, medium);
  // Key 49 shares key 42's SST data block (the read misses no data block),
  // but its medium record (16 + 49 * 507 bytes into the file: header, then
  // 507-byte records) starts in the medium file's next 4 KiB block, which was
  // never read.
  const uint64_t data_misses =
      statistics->getTickerCount(BLOCK_CACHE_DATA_MISS);
  Status s = db->Get(cache_only, Key(49), &v);
  EXPECT_TRUE(s.IsIncomplete()) << s.ToString();
  EXPECT_EQ(statistics->getTickerCount(BLOCK_CACHE_DATA_MISS), data_misses);
  ReadOptions no_fill;
  no_fill.fill_cache = false;
  ASSERT_OK(db->Get(no_fill, Key(49), &v));
  EXPECT_EQ(v, medium);
  s = db->Get(cache_only, Key(49), &v);
  EXPECT_TRUE(s.IsIncomplete()) << s.ToString();
  // Iterators too.
  std::unique_ptr<Iterator> it(db->NewIterator(cache_only));
  it->Seek(Key(49));
  EXPECT_TRUE(!it->Valid() && it->status().IsIncomplete())
      << it->status().ToString();
}

// A merge result that is the existing (resolved) value itself, as the "max"
// operator returns, survives the compaction.
TEST(HybridPlacementTest, MergeResultThatIsTheBaseValue) {
  test::ScratchDir dir("merge-max");
  Options options;
  options.create_if_missing = true;
  options.disable_auto_compactions = true;
  ConfigOptions config;
  ASSERT_OK(
      MergeOperator::CreateFromString(config, "max", &options.merge_operator));
  ASSERT_OK(ConfigureOptions(&options));
  auto db = Open(options, dir.path());
  const std::string base(300, 'z');
  for (int k = 0; k < 100; ++k)
    ASSERT_OK(db->Put(WriteOptions(), Key(k), base));
  ASSERT_OK(db->Flush(FlushOptions()));
  for (int k = 0; k < 100; ++k)
    ASSERT_OK(db->Merge(WriteOptions(), Key(k), "a"));
  ASSERT_OK(db->Flush(FlushOptions()));
  ASSERT_OK(db->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  for (int k = 0; k < 100; ++k) {
    std::string v;
    ASSERT_OK(db->Get(ReadOptions(), Key(k), &v));
    ASSERT_EQ(v, base) << Key(k);
  }
}

// Merge operators and compaction filters see real values, never pointers: a
// medium base value merged with operands in a compaction gives the same bytes
// as in a Get.
TEST(HybridPlacementTest, MergeOntoMediumBaseValueInCompaction) {
  test::ScratchDir dir("merge");
  Options options;
  options.create_if_missing = true;
  options.disable_auto_compactions = true;
  ConfigOptions config;
  ASSERT_OK(MergeOperator::CreateFromString(config, "stringappend",
                                            &options.merge_operator));
  ASSERT_OK(ConfigureOptions(&options));
  auto db = Open(options, dir.path());
  const std::string base(300, 'b');
  for (int k = 0; k < 100; ++k)
    ASSERT_OK(db->Put(WriteOptions(), Key(k), base));
  ASSERT_OK(db->Flush(FlushOptions()));  // the base values become pointers
  for (int k = 0; k < 100; ++k)
    ASSERT_OK(db->Merge(WriteOptions(), Key(k), "x"));
  ASSERT_OK(db->Flush(FlushOptions()));
  std::string v;
  ASSERT_OK(db->Get(ReadOptions(), Key(5), &v));
  ASSERT_EQ(v, base + ",x");
  ASSERT_OK(db->CompactRange(CompactRangeOptions(), nullptr, nullptr));
  for (int k = 0; k < 100; ++k) {
    ASSERT_OK(db->Get(ReadOptions(), Key(k), &v));
    ASSERT_EQ(v, base + ",x") << Key(k);
  }
}

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
