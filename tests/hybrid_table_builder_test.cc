// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// HybridTableBuilder (table/hybrid_table_builder.h), without a DB: builders
// made by the factory for a flush, a compaction above and at the merge level,
// and SstFileWriter (kMisc), fed internal keys directly; their SSTs read back
// with a stock BlockBasedTable reader. What each places where (pointers,
// medium files, inline values), the refs property and counters it leaves, and
// how it fails: refused, another DB's pointer, a medium file it cannot create,
// abandoned. hybrid_placement_test.cc covers placement through a DB.
#include "plugin/hybridkv/table/hybrid_table_builder.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "hybrid_table_harness.h"
#include "test_util.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

using test::HybridTableHarness;
using test::RawEntries;
using test::RawEntry;

bool Exists(const std::string& path) {
  return FileSystem::Default()->FileExists(path, IOOptions(), nullptr).ok();
}

using test::Key;

// Values of each class under the default options (medium: 96 to 999 bytes).
std::string Small(int i) { return "small-" + std::to_string(i); }
using test::Medium;
std::string Large(int i) {
  return std::string(1500, static_cast<char>('A' + i % 26));
}

// A medium file's record, read back through its handle.
std::string ReadRecord(const std::string& dir, const MediumPointer& p,
                       const std::string& user_key) {
  std::unique_ptr<MediumFileReader> reader;
  EXPECT_OK(MediumFileReader::Open(FileSystem::Default(),
                                   MediumFileName(dir, p.file_number),
                                   FileOptions(), &reader));
  std::string value;
  if (reader == nullptr) return value;
  EXPECT_OK(test::ReadRecord(*reader, p.handle, user_key, &value));
  return value;
}

// A flush (and WAL recovery) writes medium values to "<sst>.medium" and MACed
// pointers in their place, typed kTypeBlobIndex; small and large values stay,
// and so does every other entry type.
TEST(HybridTableBuilderTest, FlushExtractsMediumValuesBehindPointers) {
  for (TableFileCreationReason reason :
       {TableFileCreationReason::kFlush, TableFileCreationReason::kRecovery}) {
    SCOPED_TRACE(static_cast<int>(reason));
    test::ScratchDir dir("builder");
    HybridTableHarness h(dir.path());
    auto b = h.NewBuild(20, reason, 0);
    b->Add(Key(0), 10, kTypeValue, Small(0));
    b->Add(Key(1), 11, kTypeValue, Medium(1));
    b->Add(Key(2), 12, kTypeValue, Large(2));
    b->Add(Key(3), 13, kTypeDeletion, "");
    b->Add(Key(4), 14, kTypeMerge, Medium(4));  // operands stay inline
    b->Add(Key(5), 15, kTypeValue, Medium(5));
    b->Add(Key(5), 9, kTypeValue, Medium(6));  // an older version
    EXPECT_FALSE(b->builder->IsEmpty());
    ASSERT_OK(b->Finish());

    const std::vector<RawEntry> entries = RawEntries(b->path);
    ASSERT_EQ(entries.size(), 7u);
    const SipKey secret = h.Secret();
    std::map<std::string, std::string> want_medium = {
        {Key(1) + "@11", Medium(1)},
        {Key(5) + "@15", Medium(5)},
        {Key(5) + "@9", Medium(6)}};
    int pointers = 0;
    for (const RawEntry& e : entries) {
      const std::string id = e.user_key + "@" + std::to_string(e.seq);
      if (want_medium.count(id) == 0) {
        EXPECT_NE(e.type, kTypeBlobIndex) << id;
        continue;
      }
      pointers++;
      EXPECT_EQ(e.type, kTypeBlobIndex) << id;
      MediumPointer p;
      ASSERT_TRUE(DecodeMediumPointer(secret, e.value, e.user_key, &p)) << id;
      EXPECT_EQ(p.file_number, 20u);
      EXPECT_EQ(ReadRecord(dir.path(), p, e.user_key), want_medium[id]) << id;
      // Bound to its key: it does not verify for another.
      EXPECT_FALSE(DecodeMediumPointer(secret, e.value, Key(7), &p));
    }
    EXPECT_EQ(pointers, 3);
    EXPECT_EQ(entries[0].value, Small(0));
    EXPECT_EQ(entries[2].value, Large(2));
    EXPECT_EQ(entries[3].type, kTypeDeletion);
    EXPECT_EQ(entries[4].type, kTypeMerge);
    EXPECT_EQ(entries[4].value, Medium(4));

    std::unique_ptr<MediumFileReader> medium;
    ASSERT_OK(MediumFileReader::Open(FileSystem::Default(),
                                     MediumFileName(dir.path(), 20),
                                     FileOptions(), &medium));
    EXPECT_EQ(medium->num_records(), 3u);

    bool known = false;
    const MediumRefs refs = test::RefsOf(b->path, &known);
    EXPECT_TRUE(known);
    ASSERT_EQ(refs.size(), 1u);
    EXPECT_EQ(refs.at(20).pointers, 3u);

    const DbCounters& c = h.state()->counters;
    EXPECT_EQ(c.medium_values_extracted.load(), 3u);
    EXPECT_EQ(c.medium_bytes_extracted.load(),
              Medium(1).size() + Medium(5).size() + Medium(6).size());
    EXPECT_EQ(c.medium_files_created.load(), 1u);
    EXPECT_EQ(c.small_values_flushed.load(), 1u);
    EXPECT_EQ(c.small_bytes_flushed.load(), Small(0).size());
    EXPECT_EQ(c.large_values_flushed.load(), 1u);
  }
}

// A flush with nothing medium writes no medium file, and still a refs
// property: it tells the SST was built by HybridKV and points nowhere.
TEST(HybridTableBuilderTest, FlushWithoutMediumValuesWritesNoMediumFile) {
  test::ScratchDir dir("builder");
  HybridTableHarness h(dir.path());
  auto b = h.NewBuild(21, TableFileCreationReason::kFlush, 0);
  b->Add(Key(0), 1, kTypeValue, Small(0));
  b->Add(Key(1), 2, kTypeValue, Large(1));
  ASSERT_OK(b->Finish());
  EXPECT_FALSE(Exists(MediumFileName(dir.path(), 21)));
  bool known = false;
  EXPECT_TRUE(test::RefsOf(b->path, &known).empty());
  EXPECT_TRUE(known);
  EXPECT_EQ(h.state()->counters.medium_files_created.load(), 0u);
  for (const RawEntry& e : RawEntries(b->path)) {
    EXPECT_EQ(e.type, kTypeValue);
  }
}

// The classes come from the options: with classify_by=ratio, a value is
// medium by its key's share of the entry, not by its size.
TEST(HybridTableBuilderTest, FlushClassifiesByTheTableOptions) {
  test::ScratchDir dir("builder");
  HybridOptions hybrid;
  hybrid.table.classify_by = ClassifyBy::kRatio;
  hybrid.table.small_medium_ratio = 0.2;
  hybrid.table.medium_large_ratio = 0.05;
  HybridTableHarness h(dir.path(), hybrid);
  auto b = h.NewBuild(22, TableFileCreationReason::kFlush, 0);
  const std::string key(10, 'k');
  b->Add(key + "1", 1, kTypeValue, std::string(20, 'x'));    // 11/31: small
  b->Add(key + "2", 2, kTypeValue, std::string(100, 'x'));   // 11/111: medium
  b->Add(key + "3", 3, kTypeValue, std::string(5000, 'x'));  // large
  ASSERT_OK(b->Finish());
  const auto entries = RawEntries(b->path);
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0].type, kTypeValue);
  EXPECT_EQ(entries[1].type, kTypeBlobIndex);
  EXPECT_EQ(entries[2].type, kTypeValue);
  EXPECT_EQ(h.state()->counters.large_values_flushed.load(), 1u);
}

// SstFileWriter and other kMisc builds pass everything through: no medium
// file, no secret created, values as given.
TEST(HybridTableBuilderTest, OtherBuildsPassEntriesThrough) {
  test::ScratchDir dir("builder");
  HybridTableHarness h(dir.path());
  auto b = h.NewBuild(23, TableFileCreationReason::kMisc, -1);
  b->Add(Key(0), 0, kTypeValue, Medium(0));
  b->Add(Key(1), 0, kTypeValue, Small(1));
  ASSERT_OK(b->Finish());
  EXPECT_FALSE(Exists(MediumFileName(dir.path(), 23)));
  EXPECT_FALSE(Exists(dir.Sub(kSecretFileName)));
  const auto entries = RawEntries(b->path);
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].type, kTypeValue);
  EXPECT_EQ(entries[0].value, Medium(0));
  EXPECT_EQ(h.state()->counters.medium_values_extracted.load(), 0u);
  EXPECT_EQ(h.state()->counters.small_values_flushed.load(), 0u);
}

// Flushes a table whose entries 0..n-1 are medium values; its reader and
// medium values, opened through the factory, hand compactions pointers.
struct FlushedTable {
  std::unique_ptr<TableReader> reader;
  std::vector<std::string> stored;  // the SST's pointers, by entry
};

FlushedTable FlushMedium(const HybridTableHarness& h, uint64_t number, int n) {
  FlushedTable t;
  auto b = h.NewBuild(number, TableFileCreationReason::kFlush, 0);
  for (int i = 0; i < n; i++) b->Add(Key(i), 100 + i, kTypeValue, Medium(i));
  EXPECT_OK(b->Finish());
  for (const RawEntry& e : RawEntries(b->path)) t.stored.push_back(e.value);
  EXPECT_OK(h.Open(b->path, &t.reader, 0));
  return t;
}

// The TableMediumValues a compaction pointer of `reader` names: read back
// from one it hands a compaction.
TableMediumValues* MediumValuesOf(TableReader* reader) {
  ReadOptions ro;
  std::unique_ptr<InternalIterator> it(reader->NewIterator(
      ro, nullptr, nullptr, true, TableReaderCaller::kCompaction));
  it->SeekToFirst();
  EXPECT_TRUE(it->Valid());
  CompactionPointer cp;
  EXPECT_TRUE(it->Valid() && DecodeCompactionPointer(it->value(), &cp));
  return cp.table;
}

// Above the merge level a compaction stores the pointers it is handed as the
// input stored them, and records their references.
TEST(HybridTableBuilderTest, CompactionAboveTheMergeLevelKeepsPointers) {
  test::ScratchDir dir("builder");
  HybridOptions hybrid;
  hybrid.table.merge_level = 3;
  HybridTableHarness h(dir.path(), hybrid);
  FlushedTable input = FlushMedium(h, 30, 4);
  TableMediumValues* table = MediumValuesOf(input.reader.get());
  ASSERT_NE(table, nullptr);

  auto b = h.NewBuild(31, TableFileCreationReason::kCompaction, 2);
  for (int i = 0; i < 4; i++) {
    std::string cp;
    EncodeCompactionPointer(table, input.stored[i], &cp);
    b->Add(Key(i), 100 + i, kTypeValue, cp);
  }
  // A user's value that is a stored pointer's bytes is a value, not a pointer.
  b->Add(Key(9), 1, kTypeValue, input.stored[0]);
  ASSERT_OK(b->Finish());
  const auto entries = RawEntries(b->path);
  ASSERT_EQ(entries.size(), 5u);
  for (int i = 0; i < 4; i++) {
    EXPECT_EQ(entries[i].type, kTypeBlobIndex) << i;
    EXPECT_EQ(entries[i].value, input.stored[i]) << i;
    EXPECT_EQ(entries[i].seq, 100u + i) << i;
  }
  EXPECT_EQ(entries[4].type, kTypeValue);
  EXPECT_EQ(entries[4].value, input.stored[0]);
  bool known = false;
  const MediumRefs refs = test::RefsOf(b->path, &known);
  ASSERT_EQ(refs.count(30), 1u);
  EXPECT_EQ(refs.at(30).pointers, 4u);
  EXPECT_EQ(refs.size(), 1u);
  EXPECT_EQ(h.state()->counters.pointers_kept.load(), 4u);
  EXPECT_EQ(h.state()->counters.medium_values_inlined.load(), 0u);
  // Compactions write no medium file.
  EXPECT_FALSE(Exists(MediumFileName(dir.path(), 31)));
}

// At the merge level a compaction reads each value and writes it inline.
TEST(HybridTableBuilderTest, CompactionAtTheMergeLevelWritesValuesInline) {
  test::ScratchDir dir("builder");
  HybridOptions hybrid;
  hybrid.table.merge_level = 3;
  HybridTableHarness h(dir.path(), hybrid);
  FlushedTable input = FlushMedium(h, 40, 6);
  TableMediumValues* table = MediumValuesOf(input.reader.get());
  ASSERT_NE(table, nullptr);

  auto b = h.NewBuild(41, TableFileCreationReason::kCompaction, 3);
  uint64_t bytes = 0;
  for (int i = 0; i < 6; i++) {
    std::string cp;
    EncodeCompactionPointer(table, input.stored[i], &cp);
    b->Add(Key(i), 100 + i, kTypeValue, cp);
    bytes += Medium(i).size();
  }
  ASSERT_OK(b->Finish());
  const auto entries = RawEntries(b->path);
  ASSERT_EQ(entries.size(), 6u);
  for (int i = 0; i < 6; i++) {
    EXPECT_EQ(entries[i].type, kTypeValue) << i;
    EXPECT_EQ(entries[i].value, Medium(i)) << i;
  }
  bool known = false;
  EXPECT_TRUE(test::RefsOf(b->path, &known).empty());
  EXPECT_TRUE(known);
  const DbCounters& c = h.state()->counters;
  EXPECT_EQ(c.medium_values_inlined.load(), 6u);
  EXPECT_EQ(c.medium_bytes_inlined.load(), bytes);
  EXPECT_GE(c.merge_reads.load(), 1u);
  EXPECT_GE(c.merge_bytes_read.load(), bytes);
  EXPECT_EQ(c.pointers_kept.load(), 0u);
}

// A compaction handed a pointer of another DB's table writes nothing and
// fails: its medium file is not this DB's.
TEST(HybridTableBuilderTest, AnotherDbsPointerFailsTheCompaction) {
  test::ScratchDir dir("builder"), other_dir("builder-other");
  HybridOptions hybrid;
  hybrid.table.merge_level = 3;
  HybridTableHarness h(dir.path(), hybrid);
  HybridTableHarness other(other_dir.path(), hybrid);
  FlushedTable foreign = FlushMedium(other, 50, 2);
  TableMediumValues* table = MediumValuesOf(foreign.reader.get());
  ASSERT_NE(table, nullptr);
  for (int level : {2, 3}) {  // keeping pointers and writing values inline
    SCOPED_TRACE(level);
    auto b =
        h.NewBuild(51 + level, TableFileCreationReason::kCompaction, level);
    b->Add(Key(0), 5, kTypeValue, Small(0));
    std::string cp;
    EncodeCompactionPointer(table, foreign.stored[1], &cp);
    b->Add(Key(1), 6, kTypeValue, cp);
    b->Add(Key(2), 7, kTypeValue, Small(2));  // ignored once failed
    Status s = b->builder->status();
    EXPECT_TRUE(s.IsCorruption()) << s.ToString();
    EXPECT_NE(s.ToString().find("another DB"), std::string::npos)
        << s.ToString();
    EXPECT_EQ(b->builder->NumEntries(), 1u);
    EXPECT_TRUE(b->builder->Finish().IsCorruption());
    b->file->Close(IOOptions()).PermitUncheckedError();
  }
  EXPECT_EQ(h.state()->counters.pointers_kept.load(), 0u);
  EXPECT_EQ(h.state()->counters.medium_values_inlined.load(), 0u);
}

// Refuse fails the build: nothing is added, the builder is not empty (so a
// flush asks its status), and Finish returns the reason.
TEST(HybridTableBuilderTest, RefusedBuildAddsNothingAndFinishFails) {
  test::ScratchDir dir("builder");
  HybridTableHarness h(dir.path());
  auto b = h.NewBuild(60, TableFileCreationReason::kFlush, 0);
  EXPECT_TRUE(b->builder->IsEmpty());
  static_cast<HybridTableBuilder*>(b->builder.get())
      ->Refuse(Status::InvalidArgument("refused for the test"));
  EXPECT_FALSE(b->builder->IsEmpty());
  b->Add(Key(0), 1, kTypeValue, Medium(0));
  EXPECT_EQ(b->builder->NumEntries(), 0u);
  Status s = b->builder->Finish();
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_NE(s.ToString().find("refused for the test"), std::string::npos);
  EXPECT_FALSE(Exists(MediumFileName(dir.path(), 60)));
  b->file->Close(IOOptions()).PermitUncheckedError();
}

// A medium file that cannot be created fails the flush, before its first
// entry reached the SST: not empty, and the error is the I/O status RocksDB's
// error handler classifies.
TEST(HybridTableBuilderTest, MediumFileCreateFailureFailsTheFlush) {
  test::ScratchDir dir("builder");
  HybridTableHarness h(dir.path());
  // A directory where the medium file would go.
  ASSERT_EQ(mkdir(MediumFileName(dir.path(), 61).c_str(), 0755), 0);
  auto b = h.NewBuild(61, TableFileCreationReason::kFlush, 0);
  b->Add(Key(0), 1, kTypeValue, Medium(0));
  EXPECT_FALSE(b->builder->status().ok());
  EXPECT_FALSE(b->builder->io_status().ok());
  EXPECT_FALSE(b->builder->IsEmpty());
  EXPECT_EQ(b->builder->NumEntries(), 0u);
  EXPECT_FALSE(b->builder->Finish().ok());
  b->file->Close(IOOptions()).PermitUncheckedError();
  EXPECT_EQ(h.state()->counters.medium_files_created.load(), 0u);
}

// Abandon deletes the medium file a flush had started.
TEST(HybridTableBuilderTest, AbandonDeletesTheMediumFile) {
  test::ScratchDir dir("builder");
  HybridTableHarness h(dir.path());
  auto b = h.NewBuild(62, TableFileCreationReason::kFlush, 0);
  b->Add(Key(0), 1, kTypeValue, Medium(0));
  ASSERT_OK(b->builder->status());
  EXPECT_TRUE(Exists(MediumFileName(dir.path(), 62)));
  b->builder->Abandon();
  EXPECT_FALSE(Exists(MediumFileName(dir.path(), 62)));
  b->file->Close(IOOptions()).PermitUncheckedError();
  EXPECT_EQ(h.state()->counters.medium_files_created.load(), 0u);
  EXPECT_EQ(h.state()->counters.medium_values_extracted.load(), 0u);
}

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
