// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// HybridIterator (table/hybrid_iterator.h), without a DB: iterators of a
// flushed HybridTable SST opened through the factory. For users, pointer
// entries read as kTypeValue entries with their values, in both directions,
// resolved only when asked with allow_unprepared_value, and BlobDB's own
// blob indexes pass through; values stay valid while the caller pins. For
// compactions, they read as compaction pointers without any medium read,
// unless the column family's compactions must resolve; a table whose
// pointers do not verify under the DB's secret, or whose secret is missing,
// fails the iteration. scan_prefetcher_test.cc covers scan prefetching.
#include "plugin/hybridkv/table/hybrid_iterator.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "db/blob/blob_index.h"
#include "db/pinned_iterators_manager.h"
#include "hybrid_table_harness.h"
#include "test_util.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

using test::HybridTableHarness;

using test::Key;
using test::Medium;

std::string BlobIndexValue() {
  std::string index;
  BlobIndex::EncodeBlob(&index, 7, 100, 5000, kNoCompression);
  return index;
}

ParsedInternalKey Parse(const Slice& ikey) {
  ParsedInternalKey parsed;
  EXPECT_OK(ParseInternalKey(ikey, &parsed, /*log_err_key=*/false));
  return parsed;
}

// SST 20 of a flush: key0 small, key1..key3 medium, key4 a BlobDB blob index,
// key5 medium.
class HybridIteratorTest : public testing::Test {
 protected:
  void SetUp() override { Flush(h_, 20, &path_); }

  static void Flush(const HybridTableHarness& h, uint64_t number,
                    std::string* path) {
    auto b = h.NewBuild(number, TableFileCreationReason::kFlush, 0);
    b->Add(Key(0), 10, kTypeValue, "small");
    for (int i = 1; i <= 3; i++) b->Add(Key(i), 10 + i, kTypeValue, Medium(i));
    b->Add(Key(4), 14, kTypeBlobIndex, BlobIndexValue());
    b->Add(Key(5), 15, kTypeValue, Medium(5));
    ASSERT_OK(b->Finish());
    *path = b->path;
  }

  std::unique_ptr<InternalIterator> NewIterator(
      TableReader* reader, TableReaderCaller caller,
      bool allow_unprepared_value = false,
      const ReadOptions& ro = ReadOptions()) {
    read_options_ = ro;
    return std::unique_ptr<InternalIterator>(reader->NewIterator(
        read_options_, nullptr, nullptr, /*skip_filters=*/false, caller,
        /*compaction_readahead_size=*/0, allow_unprepared_value));
  }
  std::unique_ptr<TableReader> Open() {
    std::unique_ptr<TableReader> reader;
    EXPECT_OK(h_.Open(path_, &reader));
    return reader;
  }
  uint64_t Resolved() const {
    return h_.state()->counters.medium_values_resolved.load();
  }

  test::ScratchDir dir_{"iterator"};
  HybridTableHarness h_{dir_.path()};
  std::string path_;
  ReadOptions read_options_;  // outlives the iterators
};

TEST_F(HybridIteratorTest, UsersSeeValuesInBothDirections) {
  auto reader = Open();
  auto it = NewIterator(reader.get(), TableReaderCaller::kUserIterator);
  std::vector<std::pair<std::string, std::string>> forward;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    const ParsedInternalKey k = Parse(it->key());
    if (k.type == kTypeBlobIndex) {
      // BlobDB's own blob index: passed through as it is.
      EXPECT_EQ(k.user_key.ToString(), Key(4));
      EXPECT_EQ(it->value().ToString(), BlobIndexValue());
      continue;
    }
    EXPECT_EQ(k.type, kTypeValue);
    EXPECT_EQ(it->user_key().ToString(), k.user_key.ToString());
    EXPECT_EQ(k.sequence, 10u + (k.user_key[6] - '0'));  // as written
    forward.emplace_back(k.user_key.ToString(), it->value().ToString());
  }
  ASSERT_OK(it->status());
  const std::vector<std::pair<std::string, std::string>> want = {
      {Key(0), "small"},
      {Key(1), Medium(1)},
      {Key(2), Medium(2)},
      {Key(3), Medium(3)},
      {Key(5), Medium(5)}};
  EXPECT_EQ(forward, want);

  std::vector<std::pair<std::string, std::string>> backward;
  for (it->SeekToLast(); it->Valid(); it->Prev()) {
    const ParsedInternalKey k = Parse(it->key());
    if (k.type == kTypeValue) {
      backward.emplace_back(k.user_key.ToString(), it->value().ToString());
    }
  }
  ASSERT_OK(it->status());
  const std::vector<std::pair<std::string, std::string>> reversed(want.rbegin(),
                                                                  want.rend());
  EXPECT_EQ(backward, reversed);

  it->Seek(InternalKey(Key(2), kMaxSequenceNumber, kValueTypeForSeek).Encode());
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(it->value().ToString(), Medium(2));
  it->SeekForPrev(InternalKey(Key(3), 0, kTypeValue).Encode());
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(Parse(it->key()).user_key.ToString(), Key(3));
  EXPECT_EQ(it->value().ToString(), Medium(3));
}

// With allow_unprepared_value a pointer is read in PrepareValue only:
// entries the caller skips cost no medium read.
TEST_F(HybridIteratorTest, UnpreparedValuesAreReadOnlyWhenPrepared) {
  auto reader = Open();
  auto it = NewIterator(reader.get(), TableReaderCaller::kUserIterator,
                        /*allow_unprepared_value=*/true);
  it->Seek(InternalKey(Key(1), kMaxSequenceNumber, kValueTypeForSeek).Encode());
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(Parse(it->key()).type, kTypeValue);  // known before the value
  EXPECT_EQ(Resolved(), 0u);
  it->Next();
  it->Next();  // key3
  ASSERT_TRUE(it->Valid());
  EXPECT_EQ(Resolved(), 0u);
  ASSERT_TRUE(it->PrepareValue());
  EXPECT_EQ(it->value().ToString(), Medium(3));
  EXPECT_EQ(Resolved(), 1u);
  ASSERT_TRUE(it->PrepareValue());  // once
  EXPECT_EQ(Resolved(), 1u);

  // NextAndGetResult says whether the value is prepared, with the rewritten
  // key.
  IterateResult result;
  ASSERT_TRUE(it->NextAndGetResult(&result));  // key4, BlobDB's
  ASSERT_TRUE(it->NextAndGetResult(&result));  // key5, a pointer
  EXPECT_EQ(Parse(result.key).type, kTypeValue);
  EXPECT_EQ(Parse(result.key).user_key.ToString(), Key(5));
  EXPECT_FALSE(result.value_prepared);
  EXPECT_FALSE(it->NextAndGetResult(&result));
  EXPECT_EQ(Resolved(), 1u);

  auto prepared = NewIterator(reader.get(), TableReaderCaller::kUserIterator);
  prepared->Seek(
      InternalKey(Key(3), kMaxSequenceNumber, kValueTypeForSeek).Encode());
  ASSERT_TRUE(prepared->NextAndGetResult(&result));
  ASSERT_TRUE(prepared->NextAndGetResult(&result));
  EXPECT_EQ(Parse(result.key).user_key.ToString(), Key(5));
  EXPECT_TRUE(result.value_prepared);
  EXPECT_EQ(prepared->value().ToString(), Medium(5));
}

// While the caller's PinnedIteratorsManager pins, a resolved value stays
// valid after the iterator moves on; without pinning it is not promised.
TEST_F(HybridIteratorTest, PinnedValuesOutliveTheMove) {
  auto reader = Open();
  auto it = NewIterator(reader.get(), TableReaderCaller::kUserIterator);
  PinnedIteratorsManager pinned;
  it->SetPinnedItersMgr(&pinned);
  it->Seek(InternalKey(Key(1), kMaxSequenceNumber, kValueTypeForSeek).Encode());
  ASSERT_TRUE(it->Valid());
  EXPECT_FALSE(it->IsValuePinned());

  pinned.StartPinning();
  it->Seek(InternalKey(Key(1), kMaxSequenceNumber, kValueTypeForSeek).Encode());
  ASSERT_TRUE(it->Valid());
  EXPECT_TRUE(it->IsValuePinned());
  std::vector<Slice> values;
  std::vector<Slice> keys;
  for (int i = 1; i <= 3; i++, it->Next()) {
    ASSERT_TRUE(it->Valid());
    values.push_back(it->value());
    if (it->IsKeyPinned()) keys.push_back(it->key());
  }
  for (int i = 1; i <= 3; i++) {
    EXPECT_EQ(values[i - 1].ToString(), Medium(i)) << i;
  }
  for (size_t i = 0; i < keys.size(); i++) {
    EXPECT_EQ(Parse(keys[i]).user_key.ToString(), Key(1 + i)) << i;
    EXPECT_EQ(Parse(keys[i]).type, kTypeValue) << i;
  }
  pinned.ReleasePinnedData();
  it->SetPinnedItersMgr(nullptr);
}

// Compactions see compaction pointers that carry the SST's own pointer bytes
// and name the table; nothing is read from medium files.
TEST_F(HybridIteratorTest, CompactionsSeeCompactionPointers) {
  std::map<std::string, std::string> stored;
  for (const auto& e : test::RawEntries(path_)) stored[e.user_key] = e.value;
  auto reader = Open();
  auto it = NewIterator(reader.get(), TableReaderCaller::kCompaction);
  int pointers = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    const ParsedInternalKey k = Parse(it->key());
    CompactionPointer cp;
    const bool is_pointer = DecodeCompactionPointer(it->value(), &cp);
    if (k.user_key == Key(0) || k.user_key == Key(4)) {
      EXPECT_FALSE(is_pointer);
      continue;
    }
    ASSERT_TRUE(is_pointer) << k.user_key.ToString();
    pointers++;
    EXPECT_EQ(k.type, kTypeValue);
    EXPECT_EQ(cp.stored.ToString(), stored[k.user_key.ToString()]);
    EXPECT_EQ(cp.pointer.file_number, 20u);
    EXPECT_EQ(cp.table->context().state, h_.state());
    // The compaction pointer resolves to the value.
    std::string value;
    ASSERT_OK(cp.table->ResolvePointer(MediumReadOptions(), cp.pointer,
                                       k.user_key, &value));
    EXPECT_EQ(value, Medium(k.user_key[6] - '0'));
  }
  ASSERT_OK(it->status());
  EXPECT_EQ(pointers, 4);
  // Only the test's own ResolvePointer calls read.
  EXPECT_EQ(Resolved(), 4u);
}

// A column family whose compactions must resolve (its options would lose
// pointers) gets values from its compaction iterators.
TEST_F(HybridIteratorTest, CompactionsGetValuesWhenTheyMustResolve) {
  h_.state()->NoteCompactionsResolvePointers(0);
  auto reader = Open();
  auto it = NewIterator(reader.get(), TableReaderCaller::kCompaction);
  std::vector<std::string> values;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    const ParsedInternalKey k = Parse(it->key());
    if (k.type != kTypeValue) continue;
    CompactionPointer cp;
    EXPECT_FALSE(DecodeCompactionPointer(it->value(), &cp));
    values.push_back(it->value().ToString());
  }
  ASSERT_OK(it->status());
  const std::vector<std::string> want = {"small", Medium(1), Medium(2),
                                         Medium(3), Medium(5)};
  EXPECT_EQ(values, want);
  EXPECT_EQ(Resolved(), 4u);
}

// A copy of the SST and its medium file in a directory whose secret is
// another DB's: the first pointer does not verify, and a compaction fails
// rather than carry it. Without any secret file it fails too, saying so.
TEST_F(HybridIteratorTest, CompactionsFailOnPointersTheSecretDoesNotVerify) {
  for (bool with_secret : {true, false}) {
    SCOPED_TRACE(with_secret);
    test::ScratchDir copy("iterator-copy");
    HybridTableHarness c(copy.path());
    const std::string sst = c.SstPath(20);
    test::WriteWholeFile(sst, test::ReadWholeFile(path_));
    test::WriteWholeFile(MediumFileName(copy.path(), 20),
                         test::ReadWholeFile(MediumFileName(dir_.path(), 20)));
    if (with_secret) c.Secret();  // a new random key for the same DB id
    std::unique_ptr<TableReader> reader;
    ASSERT_OK(c.Open(sst, &reader));
    auto it = NewIterator(reader.get(), TableReaderCaller::kCompaction);
    it->SeekToFirst();  // key0: inline
    ASSERT_TRUE(it->Valid());
    it->Next();  // key1: the first pointer
    EXPECT_FALSE(it->Valid());
    Status s = it->status();
    EXPECT_TRUE(s.IsCorruption()) << s.ToString();
    EXPECT_NE(
        s.ToString().find(with_secret ? "does not verify" : kSecretFileName),
        std::string::npos)
        << s.ToString();
    // Users' reads do not check MACs: the record's crc covers the key.
    auto user = NewIterator(reader.get(), TableReaderCaller::kUserIterator);
    user->Seek(
        InternalKey(Key(1), kMaxSequenceNumber, kValueTypeForSeek).Encode());
    ASSERT_TRUE(user->Valid());
    EXPECT_EQ(user->value().ToString(), Medium(1));
  }
}

// A value that cannot be read stops the iteration with its error.
TEST_F(HybridIteratorTest, UnreadableValueInvalidatesWithItsError) {
  // Another table in the directory keeps its medium file, so this one opens
  // with its own lost (one lost file among others).
  std::string other;
  Flush(h_, 21, &other);
  ASSERT_EQ(std::remove(MediumFileName(dir_.path(), 20).c_str()), 0);
  auto reader = Open();
  auto it = NewIterator(reader.get(), TableReaderCaller::kUserIterator);
  it->SeekToFirst();
  ASSERT_TRUE(it->Valid());  // key0: inline
  EXPECT_EQ(it->value().ToString(), "small");
  it->Next();
  EXPECT_FALSE(it->Valid());
  Status s = it->status();
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find(MediumFileName(dir_.path(), 20)),
            std::string::npos)
      << s.ToString();
}

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
