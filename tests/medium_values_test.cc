// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// One table's medium values (table/medium_values.h), without a DB: which
// references a table's properties give it, how GroupIntoReadSpans groups
// pointers into reads, how ResolvePointer reads through the block cache (and
// refuses I/O for kBlockCacheTier), what AddMediumReads reads, which files
// HoldMediumFiles holds and when it fails, and GetSecret's error. Medium files
// are written with MediumFileWriter; SSTs are their properties only.
#include "plugin/hybridkv/table/medium_values.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "db/dbformat.h"
#include "plugin/hybridkv/blob/format/medium_refs.h"
#include "plugin/hybridkv/blob/format/medium_runs.h"
#include "plugin/hybridkv/blob/io/read_batch.h"
#include "plugin/hybridkv/blob/lifecycle/db_secret.h"
#include "plugin/hybridkv/blob/lifecycle/db_state.h"
#include "rocksdb/cache.h"
#include "rocksdb/comparator.h"
#include "rocksdb/system_clock.h"
#include "test_util.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

constexpr uint64_t kFile = 7;
constexpr int kRecords = 64;
const std::string kSession = "MEDIUMVALUESSESSION1";
const std::string kOtherSession = "MEDIUMVALUESSESSION2";

std::string Key(int i) { return "key" + std::to_string(1000 + i); }
// 1,000 bytes: four records to a cache block.
std::string Value(int i) {
  return std::string(1000, static_cast<char>('a' + i % 26));
}

// Writes medium file `number` of `dir` with kRecords records; their handles.
std::vector<MediumRecordHandle> WriteMediumFile(const std::string& dir,
                                                uint64_t number) {
  return test::WriteMediumRecords(MediumFileName(dir, number), kRecords, Key,
                                  Value);
}

// The properties of an SST that points to one record of each of `files`, as
// HybridTable's builder and collector write them.
TableProperties PropsReferencing(const std::vector<uint64_t>& files,
                                 const std::string& session = kOtherSession) {
  MediumRefs refs;
  for (uint64_t f : files) refs[f].AddRecord(16, 100);
  MediumRefsCollectorFactory factory(&refs);
  std::unique_ptr<InternalTblPropColl> collector(
      factory.CreateInternalTblPropColl(0, 1, 7, kMaxSequenceNumber));
  TableProperties props;
  props.db_id = "medium-values-db";
  props.db_session_id = session;
  EXPECT_OK(collector->Finish(&props.user_collected_properties));
  return props;
}

MediumReadContext Context(const std::string& dir,
                          std::shared_ptr<Cache> cache = NewLRUCache(8 << 20)) {
  MediumReadContext context;
  context.fs = FileSystem::Default();
  context.dirs = {dir};
  context.user_comparator = BytewiseComparator();
  context.db_id = "medium-values-db";
  context.block_cache = std::move(cache);
  context.state = DbStateFor(dir);
  context.session_id = kSession;
  context.clock = SystemClock::Default().get();
  return context;
}

MediumPointer PointerTo(const std::vector<MediumRecordHandle>& handles, int i,
                        uint64_t file = kFile) {
  MediumPointer p;
  p.file_number = file;
  p.handle = handles[i];
  return p;
}

MediumReadOptions CacheOnly() {
  ReadOptions ro;
  ro.read_tier = kBlockCacheTier;
  return MediumReadOptions(ro);
}

MediumReadOptions NoFill() {
  ReadOptions ro;
  ro.fill_cache = false;
  return MediumReadOptions(ro);
}

TEST(MediumValuesTest, ReferencesComeFromTheTableProperties) {
  test::ScratchDir dir("medium-values");
  {
    TableMediumValues none(Context(dir.path()), nullptr);
    EXPECT_FALSE(none.refs_known());
    EXPECT_TRUE(none.has_medium_refs());  // unknown: the slow, correct path
  }
  {
    TableProperties stock;  // no refs property: not built by HybridKV
    TableMediumValues values(Context(dir.path()), &stock);
    EXPECT_FALSE(values.refs_known());
    EXPECT_TRUE(values.has_medium_refs());
  }
  {
    TableProperties empty = PropsReferencing({});
    TableMediumValues values(Context(dir.path()), &empty);
    EXPECT_TRUE(values.refs_known());
    EXPECT_FALSE(values.has_medium_refs());
    EXPECT_TRUE(values.medium_refs().empty());
  }
  {
    TableProperties two = PropsReferencing({3, 9});
    TableMediumValues values(Context(dir.path()), &two);
    EXPECT_TRUE(values.refs_known());
    EXPECT_TRUE(values.has_medium_refs());
    ASSERT_EQ(values.medium_refs().size(), 2u);
    EXPECT_EQ(values.medium_refs().at(3).pointers, 1u);
    EXPECT_EQ(values.medium_refs().at(9).record_bytes, 100u);
  }
  {
    TableProperties damaged;
    damaged.user_collected_properties[kMediumRefsProperty] = "\xff\xff";
    TableMediumValues values(Context(dir.path()), &damaged);
    EXPECT_FALSE(values.refs_known());
    EXPECT_TRUE(values.has_medium_refs());
    EXPECT_TRUE(values.medium_refs().empty());
  }
}

TEST(MediumValuesTest, ReadSpansAreSortedAndSplitByFileAndGap) {
  auto at = [](uint64_t file, uint64_t offset, uint32_t size) {
    MediumPointer p;
    p.file_number = file;
    p.handle.offset = offset;
    p.handle.size = size;
    return p;
  };
  constexpr uint64_t kGap = kMediumRunMergeGap;
  std::vector<MediumPointer> pointers = {
      at(7, 100 + kGap, 50),          // exactly the gap after [0, 100)
      at(8, 0, 10),                   // another file at the same offset
      at(7, 0, 100),                  //
      at(7, 150 + 2 * kGap + 1, 20),  // one byte past the gap
      at(3, 500, 10),                 // the lowest file number
  };
  const auto spans = TableMediumValues::GroupIntoReadSpans(&pointers);
  ASSERT_EQ(pointers.size(), 5u);
  EXPECT_EQ(pointers[0].file_number, 3u);
  EXPECT_EQ(pointers[1].file_number, 7u);
  EXPECT_EQ(pointers[1].handle.offset, 0u);
  EXPECT_EQ(pointers[2].handle.offset, 100 + kGap);
  EXPECT_EQ(pointers[3].handle.offset, 150 + 2 * kGap + 1);
  EXPECT_EQ(pointers[4].file_number, 8u);
  const std::vector<std::pair<size_t, size_t>> want = {
      {0, 1}, {1, 3}, {3, 4}, {4, 5}};
  EXPECT_EQ(spans, want);

  std::vector<MediumPointer> none;
  EXPECT_TRUE(TableMediumValues::GroupIntoReadSpans(&none).empty());
}

TEST(MediumValuesTest, ResolveReadsOnceThenFindsTheBlockInTheCache) {
  test::ScratchDir dir("medium-values");
  const auto handles = WriteMediumFile(dir.path(), kFile);
  TableProperties props = PropsReferencing({kFile});
  TableMediumValues values(Context(dir.path()), &props);
  const DbCounters& c = values.context().state->counters;

  std::string value;
  ASSERT_OK(values.ResolvePointer(MediumReadOptions(), PointerTo(handles, 2),
                                  Key(2), &value));
  EXPECT_EQ(value, Value(2));
  EXPECT_EQ(c.medium_values_resolved.load(), 1u);
  EXPECT_EQ(c.medium_bytes_resolved.load(), 1000u);
  EXPECT_EQ(c.resolve_reads.load(), 1u);
  // Whole cache blocks are read.
  EXPECT_GE(c.resolve_bytes_read.load(), uint64_t{handles[2].size});
  EXPECT_EQ(c.resolve_bytes_read.load() % MediumBlockCache::kBlockSize, 0u);

  // Again, and a neighbour in the same block: from the cache, no read.
  const uint64_t bytes_read = c.resolve_bytes_read.load();
  value.clear();
  ASSERT_OK(values.ResolvePointer(MediumReadOptions(), PointerTo(handles, 2),
                                  Key(2), &value));
  EXPECT_EQ(value, Value(2));
  ASSERT_OK(values.ResolvePointer(CacheOnly(), PointerTo(handles, 1), Key(1),
                                  &value));
  EXPECT_EQ(value, Value(1));
  EXPECT_EQ(c.resolve_reads.load(), 1u);
  EXPECT_EQ(c.resolve_bytes_read.load(), bytes_read);
  EXPECT_EQ(c.medium_values_resolved.load(), 3u);

  // A record in a block never read: a cache-only read does no I/O.
  Status s = values.ResolvePointer(CacheOnly(), PointerTo(handles, 40), Key(40),
                                   &value);
  EXPECT_TRUE(s.IsIncomplete()) << s.ToString();
  EXPECT_EQ(c.resolve_reads.load(), 1u);
  EXPECT_EQ(c.medium_values_resolved.load(), 3u);
}

TEST(MediumValuesTest, ResolveWithoutFillCacheLeavesTheCacheCold) {
  test::ScratchDir dir("medium-values");
  const auto handles = WriteMediumFile(dir.path(), kFile);
  TableProperties props = PropsReferencing({kFile});
  TableMediumValues values(Context(dir.path()), &props);
  const DbCounters& c = values.context().state->counters;
  std::string value;
  for (int round = 0; round < 2; round++) {
    ASSERT_OK(
        values.ResolvePointer(NoFill(), PointerTo(handles, 5), Key(5), &value));
    EXPECT_EQ(value, Value(5));
  }
  EXPECT_EQ(c.resolve_reads.load(), 2u);
  EXPECT_TRUE(
      values.ResolvePointer(CacheOnly(), PointerTo(handles, 5), Key(5), &value)
          .IsIncomplete());

  // Without a block cache at all, every resolve reads.
  test::ScratchDir dir2("medium-values");
  const auto handles2 = WriteMediumFile(dir2.path(), kFile);
  TableMediumValues uncached(Context(dir2.path(), nullptr), &props);
  const DbCounters& c2 = uncached.context().state->counters;
  for (int round = 0; round < 2; round++) {
    ASSERT_OK(uncached.ResolvePointer(MediumReadOptions(),
                                      PointerTo(handles2, 5), Key(5), &value));
    EXPECT_EQ(value, Value(5));
  }
  EXPECT_EQ(c2.resolve_reads.load(), 2u);
}

// A record handed another key's pointer fails its crc check, read from disk
// or found in the cache; either way the error names the file and offset.
TEST(MediumValuesTest, WrongKeyIsCorruptionNamingTheFile) {
  test::ScratchDir dir("medium-values");
  const auto handles = WriteMediumFile(dir.path(), kFile);
  TableProperties props = PropsReferencing({kFile});
  TableMediumValues values(Context(dir.path()), &props);
  const std::string file = MediumFileName(dir.path(), kFile);
  const std::string offset = "offset " + std::to_string(handles[9].offset);
  std::string value = "untouched";
  Status s = values.ResolvePointer(MediumReadOptions(), PointerTo(handles, 9),
                                   Key(8), &value);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find(file), std::string::npos) << s.ToString();
  EXPECT_NE(s.ToString().find(offset), std::string::npos) << s.ToString();

  // Cached now (the read filled the cache): the check fails all the same.
  ASSERT_OK(values.ResolvePointer(MediumReadOptions(), PointerTo(handles, 9),
                                  Key(9), &value));
  EXPECT_EQ(value, Value(9));
  s = values.ResolvePointer(CacheOnly(), PointerTo(handles, 9), Key(8), &value);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find(file), std::string::npos) << s.ToString();
  EXPECT_EQ(values.context().state->counters.medium_values_resolved.load(), 1u);
}

TEST(MediumValuesTest, HandleOutsideTheFileOrAMissingFileFails) {
  test::ScratchDir dir("medium-values");
  const auto handles = WriteMediumFile(dir.path(), kFile);
  TableProperties props = PropsReferencing({kFile});
  TableMediumValues values(Context(dir.path()), &props);
  std::string value;

  MediumPointer past_end = PointerTo(handles, kRecords - 1);
  past_end.handle.offset += 4 * handles.back().size;  // into the footer
  Status s =
      values.ResolvePointer(MediumReadOptions(), past_end, Key(0), &value);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find("outside the data region"), std::string::npos)
      << s.ToString();

  MediumPointer in_header = PointerTo(handles, 0);
  in_header.handle.offset = 0;
  s = values.ResolvePointer(MediumReadOptions(), in_header, Key(0), &value);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();

  s = values.ResolvePointer(MediumReadOptions(), PointerTo(handles, 0, 99),
                            Key(0), &value);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find(MediumFileName(dir.path(), 99)),
            std::string::npos)
      << s.ToString();
  EXPECT_EQ(values.context().state->counters.medium_values_resolved.load(), 0u);
}

// Reads `spans` of `pointers` into the block cache, as a scan's prefetch
// window does.
void Warm(TableMediumValues* values, const std::vector<MediumPointer>& pointers,
          const std::vector<std::pair<size_t, size_t>>& spans) {
  IOOptions io;
  ReadBatch batch(io);
  values->AddMediumReads(&batch, io, pointers, spans);
}

// One request per span, into the cache, where cache-only resolves then find
// every value; spans already cached are not read again.
TEST(MediumValuesTest, AddMediumReadsReadsEachUncachedSpanOnce) {
  test::ScratchDir dir("medium-values");
  const auto handles = WriteMediumFile(dir.path(), kFile);
  TableProperties props = PropsReferencing({kFile});
  TableMediumValues values(Context(dir.path()), &props);
  const DbCounters& c = values.context().state->counters;

  // Records 10 to 13 lie together; 50 is far from them.
  const std::vector<int> wanted = {50, 12, 10, 13, 11};
  std::vector<MediumPointer> pointers;
  for (int i : wanted) pointers.push_back(PointerTo(handles, i));
  const auto spans = TableMediumValues::GroupIntoReadSpans(&pointers);
  ASSERT_EQ(spans.size(), 2u);

  Warm(&values, pointers, spans);
  EXPECT_EQ(c.resolve_reads.load(), 2u);
  EXPECT_GE(c.resolve_bytes_read.load(), 5 * 1000u);
  std::string value;
  for (int i : wanted) {
    ASSERT_OK(values.ResolvePointer(CacheOnly(), PointerTo(handles, i), Key(i),
                                    &value))
        << i;
    EXPECT_EQ(value, Value(i)) << i;
  }
  // Warming only: the values were counted resolved when read, not warmed.
  EXPECT_EQ(c.medium_values_resolved.load(), wanted.size());

  const uint64_t bytes = c.resolve_bytes_read.load();
  Warm(&values, pointers, spans);
  EXPECT_EQ(c.resolve_reads.load(), 2u);
  EXPECT_EQ(c.resolve_bytes_read.load(), bytes);

  // A span whose first records are cached reads from the first uncached one.
  std::vector<MediumPointer> longer;
  for (int i = 10; i < 20; i++) longer.push_back(PointerTo(handles, i));
  const auto one_span = TableMediumValues::GroupIntoReadSpans(&longer);
  ASSERT_EQ(one_span.size(), 1u);
  Warm(&values, longer, one_span);
  EXPECT_EQ(c.resolve_reads.load(), 3u);
  EXPECT_LT(
      c.resolve_bytes_read.load() - bytes,
      uint64_t{handles[19].offset + handles[19].size - handles[10].offset});
  ASSERT_OK(values.ResolvePointer(CacheOnly(), PointerTo(handles, 19), Key(19),
                                  &value));
  EXPECT_EQ(value, Value(19));
}

TEST(MediumValuesTest, WarmingWithoutABlockCacheReadsNothing) {
  test::ScratchDir dir("medium-values");
  const auto handles = WriteMediumFile(dir.path(), kFile);
  TableProperties props = PropsReferencing({kFile});
  TableMediumValues values(Context(dir.path(), nullptr), &props);
  std::vector<MediumPointer> pointers = {PointerTo(handles, 1),
                                         PointerTo(handles, 2)};
  const auto spans = TableMediumValues::GroupIntoReadSpans(&pointers);
  Warm(&values, pointers, spans);
  EXPECT_EQ(values.context().state->counters.resolve_reads.load(), 0u);
}

TEST(MediumValuesTest, HeldFilesStayHeldUntilTheTableGoes) {
  test::ScratchDir dir("medium-values");
  const auto handles = WriteMediumFile(dir.path(), kFile);
  WriteMediumFile(dir.path(), 8);
  const std::string sst = dir.Sub("000020.sst");
  test::WriteWholeFile(sst, "an SST");
  MediumFileCache& cache = DbStateFor(dir.path())->medium_files;
  TableProperties props = PropsReferencing({kFile, 8});
  {
    TableMediumValues values(Context(dir.path()), &props);
    EXPECT_FALSE(cache.HeldByOtherSession(kFile, kOtherSession));
    ASSERT_OK(values.HoldMediumFiles(sst));
    EXPECT_TRUE(cache.HeldByOtherSession(kFile, kOtherSession));
    EXPECT_TRUE(cache.HeldByOtherSession(8, kOtherSession));
    EXPECT_FALSE(cache.HeldByOtherSession(kFile, kSession));
    // The held reader is the one handed out.
    std::shared_ptr<MediumFileReader> a, b;
    ASSERT_OK(values.GetMediumFile(IOOptions(), kFile, &a));
    ASSERT_OK(values.GetMediumFile(IOOptions(), kFile, &b));
    EXPECT_EQ(a.get(), b.get());
    EXPECT_EQ(a->path(), MediumFileName(dir.path(), kFile));
    // Held open: a deleted file stays readable.
    ASSERT_EQ(std::remove(MediumFileName(dir.path(), kFile).c_str()), 0);
    std::string value;
    ASSERT_OK(
        values.ResolvePointer(NoFill(), PointerTo(handles, 3), Key(3), &value));
    EXPECT_EQ(value, Value(3));
  }
  EXPECT_FALSE(cache.HeldByOtherSession(kFile, kOtherSession));
  EXPECT_FALSE(cache.HeldByOtherSession(8, kOtherSession));
}

TEST(MediumValuesTest, HoldFailsForACopyWithoutAnyMediumFile) {
  test::ScratchDir dir("medium-values");
  const std::string sst = dir.Sub("000020.sst");
  test::WriteWholeFile(sst, "an SST");
  TableProperties props = PropsReferencing({kFile});
  TableMediumValues values(Context(dir.path()), &props);
  Status s = values.HoldMediumFiles(sst);
  // Without the secret either: a copy. IOError, which RocksDB's recovery
  // passes through without naming its MANIFEST.
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_NE(s.ToString().find(MediumFileName(dir.path(), kFile)),
            std::string::npos)
      << s.ToString();
  EXPECT_NE(s.ToString().find(sst), std::string::npos) << s.ToString();
  EXPECT_NE(s.ToString().find("hybridkv::CreateNewBackup"), std::string::npos)
      << s.ToString();

  // With the DB's secret, perhaps a secondary whose primary freed the files:
  // Corruption, which its catch-up skips.
  SipKey secret;
  ASSERT_OK(GetDbSecret(FileSystem::Default(), dir.path(), "medium-values-db",
                        /*create=*/true, &secret));
  s = values.HoldMediumFiles(sst);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find("TryCatchUpWithPrimary"), std::string::npos)
      << s.ToString();
}

// One file lost among others is not fatal: the table opens, and only reads
// of that file's values fail.
TEST(MediumValuesTest, HoldToleratesOneLostFileAmongOthers) {
  test::ScratchDir dir("medium-values");
  const auto handles = WriteMediumFile(dir.path(), kFile);
  const std::string sst = dir.Sub("000020.sst");
  test::WriteWholeFile(sst, "an SST");
  TableProperties props = PropsReferencing({kFile, 8});
  TableMediumValues values(Context(dir.path()), &props);
  ASSERT_OK(values.HoldMediumFiles(sst));
  MediumFileCache& cache = values.context().state->medium_files;
  EXPECT_TRUE(cache.HeldByOtherSession(kFile, kOtherSession));
  EXPECT_FALSE(cache.HeldByOtherSession(8, kOtherSession));
  std::string value;
  EXPECT_TRUE(values
                  .ResolvePointer(MediumReadOptions(), PointerTo(handles, 0, 8),
                                  Key(0), &value)
                  .IsCorruption());
  ASSERT_OK(values.ResolvePointer(MediumReadOptions(), PointerTo(handles, 0),
                                  Key(0), &value));
  EXPECT_EQ(value, Value(0));
}

// A table whose SST is gone once its files are held was deleted by another
// instance (a secondary's primary); not one this session wrote, nor one that
// holds nothing.
TEST(MediumValuesTest, HoldFailsWhenAnotherInstanceDeletedTheSst) {
  test::ScratchDir dir("medium-values");
  WriteMediumFile(dir.path(), kFile);
  const std::string gone = dir.Sub("000021.sst");
  {
    TableProperties props = PropsReferencing({kFile}, kOtherSession);
    TableMediumValues values(Context(dir.path()), &props);
    Status s = values.HoldMediumFiles(gone);
    EXPECT_TRUE(s.IsCorruption()) << s.ToString();
    EXPECT_NE(s.ToString().find("deleted by another instance"),
              std::string::npos)
        << s.ToString();
  }
  {
    TableProperties props = PropsReferencing({kFile}, kSession);
    TableMediumValues values(Context(dir.path()), &props);
    EXPECT_OK(values.HoldMediumFiles(gone));
  }
  {
    TableProperties props = PropsReferencing({}, kOtherSession);
    TableMediumValues values(Context(dir.path()), &props);
    EXPECT_OK(values.HoldMediumFiles(gone));
  }
}

TEST(MediumValuesTest, GetSecretNeedsTheSecretFile) {
  test::ScratchDir dir("medium-values");
  TableProperties props = PropsReferencing({kFile});
  TableMediumValues values(Context(dir.path()), &props);
  SipKey secret;
  Status s = values.GetSecret(&secret);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find(kSecretFileName), std::string::npos)
      << s.ToString();

  SipKey created;
  ASSERT_OK(GetDbSecret(FileSystem::Default(), dir.path(), "medium-values-db",
                        /*create=*/true, &created));
  ASSERT_OK(values.GetSecret(&secret));
  EXPECT_EQ(secret.k0, created.k0);
  EXPECT_EQ(secret.k1, created.k1);
}

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
