// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// HybridTableReader (table/hybrid_table_reader.h), without a DB: SSTs flushed
// by HybridTableBuilder and opened through the factory, read with the
// GetContext a Version hands a table. Get answers with resolved values; what
// the lookup's GetContext decides (a snapshot, a covering range tombstone, a
// read callback, a merge) is respected, and values it would not take are not
// read; kBlockCacheTier lookups do no medium I/O; iterators placed in an
// arena; VerifyChecksum reads every referenced record. point_read_test.cc has
// Get and MultiGet through a DB; hybrid_iterator_test.cc the iterators.
#include "plugin/hybridkv/table/hybrid_table_reader.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "db/merge_context.h"
#include "db/read_callback.h"
#include "hybrid_table_harness.h"
#include "memory/arena.h"
#include "table/get_context.h"
#include "test_util.h"
#include "utilities/merge_operators.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

using test::HybridTableHarness;

using test::Key;
using test::Medium;

// What one lookup found.
struct Found {
  Status status;
  GetContext::GetState state = GetContext::kNotFound;
  std::string value;
  bool value_found = true;  // false: MarkKeyMayExist
};

// What a lookup wants beyond the key and snapshot.
struct LookupOptions {
  ReadOptions read_options;
  const MergeOperator* merge_operator = nullptr;
  SequenceNumber covering_tombstone = 0;
  ReadCallback* callback = nullptr;
};

Found Lookup(TableReader* reader, const std::string& user_key,
             SequenceNumber snapshot = kMaxSequenceNumber,
             const LookupOptions& o = LookupOptions()) {
  Found found;
  PinnableSlice value;
  MergeContext merge_context;
  SequenceNumber tombstone = o.covering_tombstone;
  GetContext get_context(BytewiseComparator(), o.merge_operator,
                         /*logger=*/nullptr, /*statistics=*/nullptr,
                         GetContext::kNotFound, user_key, &value,
                         /*columns=*/nullptr, &found.value_found,
                         &merge_context, /*do_merge=*/true, &tombstone,
                         SystemClock::Default().get(), /*seq=*/nullptr,
                         /*_pinned_iters_mgr=*/nullptr, o.callback);
  const std::string ikey =
      InternalKey(user_key, snapshot, kValueTypeForSeek).Encode().ToString();
  found.status = reader->Get(o.read_options, ikey, &get_context,
                             /*prefix_extractor=*/nullptr);
  found.state = get_context.State();
  if (found.state == GetContext::kFound) found.value = value.ToString();
  return found;
}

// Hides one sequence number, as a transaction's read callback hides
// uncommitted writes.
class HideSeq : public ReadCallback {
 public:
  explicit HideSeq(SequenceNumber hidden)
      : ReadCallback(kMaxSequenceNumber), hidden_(hidden) {}
  bool IsVisibleFullCheck(SequenceNumber seq) override {
    return seq != hidden_;
  }

 private:
  const SequenceNumber hidden_;
};

// SST 20 of a flush: key0 small, key1 medium, key2 deleted over an older
// medium value, key3 medium at seq 15 over medium at seq 9, key4 a merge
// operand over a medium value, key5 medium.
class HybridTableReaderTest : public testing::Test {
 protected:
  void SetUp() override {
    auto b = h_.NewBuild(20, TableFileCreationReason::kFlush, 0);
    b->Add(Key(0), 10, kTypeValue, "small");
    b->Add(Key(1), 11, kTypeValue, Medium(1));
    b->Add(Key(2), 12, kTypeDeletion, "");
    b->Add(Key(2), 5, kTypeValue, Medium(2));
    b->Add(Key(3), 15, kTypeValue, Medium(3));
    b->Add(Key(3), 9, kTypeValue, Medium(30));
    b->Add(Key(4), 16, kTypeMerge, "op");
    b->Add(Key(4), 6, kTypeValue, Medium(4));
    b->Add(Key(5), 17, kTypeValue, Medium(5));
    ASSERT_OK(b->Finish());
    ASSERT_OK(h_.Open(b->path, &reader_));
  }
  uint64_t Resolved() const {
    return h_.state()->counters.medium_values_resolved.load();
  }
  HybridTableReader* hybrid() const {
    return static_cast<HybridTableReader*>(reader_.get());
  }

  test::ScratchDir dir_{"reader"};
  HybridTableHarness h_{dir_.path()};
  std::unique_ptr<TableReader> reader_;
};

TEST_F(HybridTableReaderTest, GetAnswersWithResolvedValues) {
  EXPECT_TRUE(hybrid()->has_medium_refs());
  EXPECT_TRUE(hybrid()->medium_refs_known());
  Found f = Lookup(reader_.get(), Key(1));
  ASSERT_OK(f.status);
  EXPECT_EQ(f.state, GetContext::kFound);
  EXPECT_EQ(f.value, Medium(1));
  EXPECT_EQ(Resolved(), 1u);

  f = Lookup(reader_.get(), Key(0));
  EXPECT_EQ(f.state, GetContext::kFound);
  EXPECT_EQ(f.value, "small");
  EXPECT_EQ(Resolved(), 1u);  // no medium read for an inline value

  f = Lookup(reader_.get(), Key(2));
  EXPECT_EQ(f.state, GetContext::kDeleted);
  f = Lookup(reader_.get(), Key(9));
  ASSERT_OK(f.status);
  EXPECT_EQ(f.state, GetContext::kNotFound);
  EXPECT_EQ(Resolved(), 1u);  // the older medium value under the deletion

  // Snapshots: the version each sees.
  EXPECT_EQ(Lookup(reader_.get(), Key(3)).value, Medium(3));
  EXPECT_EQ(Lookup(reader_.get(), Key(3), 14).value, Medium(30));
  EXPECT_EQ(Lookup(reader_.get(), Key(2), 11).value, Medium(2));
  EXPECT_EQ(Lookup(reader_.get(), Key(1), 10).state, GetContext::kNotFound);
  EXPECT_EQ(Resolved(), 4u);
}

// The probe ignores range tombstones; the value a covering tombstone hides is
// reported deleted, and not read.
TEST_F(HybridTableReaderTest, ValueUnderACoveringTombstoneIsNotRead) {
  LookupOptions o;
  o.covering_tombstone = 20;
  Found f = Lookup(reader_.get(), Key(5), kMaxSequenceNumber, o);
  ASSERT_OK(f.status);
  EXPECT_EQ(f.state, GetContext::kDeleted);
  EXPECT_EQ(Resolved(), 0u);
  // A tombstone older than the value does not hide it.
  o.covering_tombstone = 3;
  f = Lookup(reader_.get(), Key(5), kMaxSequenceNumber, o);
  EXPECT_EQ(f.state, GetContext::kFound);
  EXPECT_EQ(f.value, Medium(5));
}

// A read callback that hides the newest entry gets the older one, resolved;
// the hidden one is not read.
TEST_F(HybridTableReaderTest, ReadCallbackHidingTheNewestGetsTheOlder) {
  HideSeq hide(15);
  LookupOptions o;
  o.callback = &hide;
  Found f = Lookup(reader_.get(), Key(3), kMaxSequenceNumber, o);
  ASSERT_OK(f.status);
  EXPECT_EQ(f.state, GetContext::kFound);
  EXPECT_EQ(f.value, Medium(30));
  EXPECT_EQ(Resolved(), 1u);
}

// A merge operand over a pointer: the caller's merge operator merges the
// resolved base value.
TEST_F(HybridTableReaderTest, MergeOperandsMergeOntoTheResolvedValue) {
  std::shared_ptr<MergeOperator> append =
      MergeOperators::CreateStringAppendOperator();
  LookupOptions o;
  o.merge_operator = append.get();
  Found f = Lookup(reader_.get(), Key(4), kMaxSequenceNumber, o);
  ASSERT_OK(f.status);
  EXPECT_EQ(f.state, GetContext::kFound);
  EXPECT_EQ(f.value, Medium(4) + ",op");
  // Below the operand, the base alone.
  f = Lookup(reader_.get(), Key(4), 10, o);
  EXPECT_EQ(f.value, Medium(4));
}

// kBlockCacheTier: a pointer whose record is not cached is Incomplete, with
// the key marked as possibly there; once a read cached it, it is found.
TEST_F(HybridTableReaderTest, BlockCacheTierDoesNoMediumIo) {
  // The SST's own blocks cached by a lookup that reads no medium value.
  ASSERT_EQ(Lookup(reader_.get(), Key(0)).value, "small");
  LookupOptions o;
  o.read_options.read_tier = kBlockCacheTier;
  Found f = Lookup(reader_.get(), Key(1), kMaxSequenceNumber, o);
  EXPECT_TRUE(f.status.IsIncomplete()) << f.status.ToString();
  EXPECT_FALSE(f.value_found);
  EXPECT_EQ(Resolved(), 0u);

  ASSERT_EQ(Lookup(reader_.get(), Key(1)).value, Medium(1));
  f = Lookup(reader_.get(), Key(1), kMaxSequenceNumber, o);
  ASSERT_OK(f.status);
  EXPECT_EQ(f.value, Medium(1));
}

// Iterators placed in an arena (as RocksDB's merging iterators place them)
// resolve as heap ones do, and only their destructor runs.
TEST_F(HybridTableReaderTest, ArenaIteratorsResolveValues) {
  Arena arena;
  ReadOptions ro;
  InternalIterator* it =
      reader_->NewIterator(ro, nullptr, &arena, /*skip_filters=*/false,
                           TableReaderCaller::kUserIterator);
  std::vector<std::string> values;
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    ParsedInternalKey parsed;
    ASSERT_OK(ParseInternalKey(it->key(), &parsed, false));
    EXPECT_NE(parsed.type, kTypeBlobIndex);
    if (parsed.type == kTypeValue) values.push_back(it->value().ToString());
  }
  ASSERT_OK(it->status());
  it->~InternalIterator();
  const std::vector<std::string> want = {"small",   Medium(1),  Medium(2),
                                         Medium(3), Medium(30), Medium(4),
                                         Medium(5)};
  EXPECT_EQ(values, want);
}

// VerifyChecksum reads every record the table points to: a damaged record
// fails it, naming the medium file, while the SST's own checksums pass.
TEST_F(HybridTableReaderTest, VerifyChecksumReadsReferencedRecords) {
  ASSERT_OK(reader_->VerifyChecksum(ReadOptions(),
                                    TableReaderCaller::kUserVerifyChecksum));
  // Another table, whose medium file is then damaged in one value's bytes.
  auto b = h_.NewBuild(21, TableFileCreationReason::kFlush, 0);
  for (int i = 0; i < 8; i++) b->Add(Key(i), 30 + i, kTypeValue, Medium(i));
  ASSERT_OK(b->Finish());
  const std::string medium = MediumFileName(dir_.path(), 21);
  std::string bytes = test::ReadWholeFile(medium);
  ASSERT_GT(bytes.size(), 1000u);
  bytes[bytes.size() / 2] ^= 0x40;  // within the records
  test::WriteWholeFile(medium, bytes);
  std::unique_ptr<TableReader> damaged;
  ASSERT_OK(h_.Open(b->path, &damaged));  // header and footer are intact
  Status s = damaged->VerifyChecksum(ReadOptions(),
                                     TableReaderCaller::kUserVerifyChecksum);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find(medium), std::string::npos) << s.ToString();
  // The first table's records are intact.
  EXPECT_OK(reader_->VerifyChecksum(ReadOptions(),
                                    TableReaderCaller::kUserVerifyChecksum));
}

// A table that references no medium file (SstFileWriter output) is served by
// the inner reader: values as stored, nothing resolved.
TEST(HybridTableReaderStandaloneTest, TableWithoutReferencesReadsAsStored) {
  test::ScratchDir dir("reader");
  HybridTableHarness h(dir.path());
  auto b = h.NewBuild(30, TableFileCreationReason::kMisc, -1);
  b->Add(Key(1), 0, kTypeValue, Medium(1));
  ASSERT_OK(b->Finish());
  std::unique_ptr<TableReader> reader;
  ASSERT_OK(h.Open(b->path, &reader));
  auto* hybrid = static_cast<HybridTableReader*>(reader.get());
  EXPECT_FALSE(hybrid->has_medium_refs());
  EXPECT_TRUE(hybrid->medium_refs_known());
  Found f = Lookup(reader.get(), Key(1));
  ASSERT_OK(f.status);
  EXPECT_EQ(f.value, Medium(1));
  EXPECT_EQ(h.state()->counters.medium_values_resolved.load(), 0u);
  EXPECT_OK(reader->VerifyChecksum(ReadOptions(),
                                   TableReaderCaller::kUserVerifyChecksum));
}

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
