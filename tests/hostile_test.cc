// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// The "hostile user" suite: each test does what a RocksDB user may do through
// the public API alone (change options online, copy a DB's directory, merge
// into wide-column entities, look at values from a table properties collector,
// read from a read-only instance while the primary compacts, import column
// families, run transactions, spell paths oddly, write odd bytes...) and
// asserts the result stock RocksDB gives, written down in the test.
//
// Every test runs in two arms with otherwise identical options:
//   Stock:  BlockBasedTable and stock BlobDB (enable_blob_files=true,
//           min_blob_size=1000);
//   Hybrid: hybridkv::ConfigureOptions.
// The Stock arm passes every test, which shows that the expectations are
// RocksDB's behaviour; a test failing in the Hybrid arm marks a place where
// HybridKV differs from it. Run one arm with
//   hybridkv_tests --gtest_filter='*/HostileTest.*/Stock'
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <variant>
#include <vector>

#include "hybridkv/hybridkv.h"
#include "plugin/hybridkv/blob/io/rocksdb_compat.h"
#include "rocksdb/cache.h"
#include "rocksdb/compaction_filter.h"
#include "rocksdb/comparator.h"
#include "rocksdb/convenience.h"
#include "rocksdb/db.h"
#include "rocksdb/merge_operator.h"
#include "rocksdb/metadata.h"
#include "rocksdb/options.h"
#include "rocksdb/slice_transform.h"
#include "rocksdb/sst_file_writer.h"
#include "rocksdb/table.h"
#include "rocksdb/table_properties.h"
#include "rocksdb/utilities/checkpoint.h"
#include "rocksdb/utilities/optimistic_transaction_db.h"
#include "rocksdb/utilities/transaction.h"
#include "rocksdb/utilities/transaction_db.h"
#include "rocksdb/utilities/write_batch_with_index.h"
#include "rocksdb/wide_columns.h"
#include "rocksdb/write_batch.h"
#include "test_util.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

using test::Arm;
using Model = std::map<std::string, std::string>;
using Entries = std::vector<std::pair<std::string, std::string>>;
// The user's own settings, applied before the arm's (so that ConfigureOptions
// sees the user's merge operator and compaction filter, as in an application).
using UserOptions = std::function<void(Options*)>;

constexpr size_t kMedium = 300;  // the medium class in the Hybrid arm

std::string KeyOf(int i) {
  char buf[16];
  snprintf(buf, sizeof(buf), "key%06d", i);
  return buf;
}

// `size` bytes: `tag`, the key and the version, then a letter picked by both
// (truncated when `size` is shorter).
std::string MakeValue(const std::string& key, int version,
                      size_t size = kMedium, char tag = 'v') {
  std::string v =
      std::string(1, tag) + key + "#" + std::to_string(version) + "#";
  const int last = key.empty() ? 0 : static_cast<unsigned char>(key.back());
  v.resize(size, static_cast<char>('a' + (version * 7 + last) % 26));
  return v;
}

// A short, printable description of some bytes, for failure messages.
std::string Describe(const std::string& bytes) {
  return std::to_string(bytes.size()) + " bytes 0x" +
         Slice(bytes.data(), std::min<size_t>(bytes.size(), 24))
             .ToString(/*hex=*/true) +
         (bytes.size() > 24 ? "..." : "");
}

// The options of `arm`: a small LSM (64 KiB memtables and SSTs, 256 KiB in L1,
// compactions from 2 L0 files) so that flushes and compactions come quickly;
// `user`'s settings; then the arm's table and value separation.
Options ArmOptions(
    Arm arm, const UserOptions& user = {},
    HybridOptions hybrid = HybridOptions(),
    const BlockBasedTableOptions& bbto = BlockBasedTableOptions()) {
  Options options;
  options.create_if_missing = true;
  options.create_missing_column_families = true;
  options.write_buffer_size = 64 << 10;
  options.target_file_size_base = 64 << 10;
  options.max_bytes_for_level_base = 256 << 10;
  options.max_bytes_for_level_multiplier = 4;
  options.level0_file_num_compaction_trigger = 2;
  if (user) {
    user(&options);
  }
  std::shared_ptr<TableFactory> bbt(NewBlockBasedTableFactory(bbto));
  if (arm == Arm::kStock) {
    options.table_factory = bbt;
    options.enable_blob_files = true;
    options.min_blob_size = 1000;
  } else {
    hybrid.table.inner = bbt;
    EXPECT_OK(ConfigureOptions(&options, hybrid));
  }
  return options;
}

Status OpenDb(const Options& options, const std::string& path,
              std::unique_ptr<DB>* db) {
  db->reset();  // closes the previous one first
  DB* raw = nullptr;
  Status s = hybridkv::OpenDB(options, path, &raw);
  db->reset(raw);
  return s;
}

// CompactRange over everything, rewriting the bottommost level too.
Status CompactAll(DB* db, ColumnFamilyHandle* cf = nullptr) {
  CompactRangeOptions cro;
  cro.bottommost_level_compaction = BottommostLevelCompaction::kForce;
  return db->CompactRange(cro, cf != nullptr ? cf : db->DefaultColumnFamily(),
                          nullptr, nullptr);
}

// Puts KeyOf(first) to KeyOf(first + n - 1) at `version`, into `db` and
// `model`.
Status PutRange(DB* db, Model* model, int first, int n, int version,
                size_t size = kMedium, ColumnFamilyHandle* cf = nullptr) {
  if (cf == nullptr) {
    cf = db->DefaultColumnFamily();
  }
  for (int i = first; i < first + n; ++i) {
    const std::string key = KeyOf(i);
    std::string value = MakeValue(key, version, size);
    Status s = db->Put(WriteOptions(), cf, key, value);
    if (!s.ok()) {
      return s;
    }
    (*model)[key] = std::move(value);
  }
  return Status::OK();
}

// PutRange into the default column family, then a flush.
Status PutAndFlush(DB* db, Model* model, int first, int n, int version,
                   size_t size = kMedium) {
  Status s = PutRange(db, model, first, n, version, size);
  return s.ok() ? db->Flush(FlushOptions()) : s;
}

// Every key of `model` through Get, and the whole column family through an
// iterator, give exactly `model`.
testing::AssertionResult MatchesModel(DB* db, const Model& model,
                                      ColumnFamilyHandle* cf = nullptr,
                                      const Snapshot* snapshot = nullptr) {
  if (cf == nullptr) {
    cf = db->DefaultColumnFamily();
  }
  ReadOptions ro;
  ro.snapshot = snapshot;
  size_t bad = 0;
  std::string first;
  auto note = [&](const std::string& what) {
    if (bad++ == 0) {
      first = what;
    }
  };
  for (const auto& [key, value] : model) {
    std::string got;
    Status s = db->Get(ro, cf, key, &got);
    if (!s.ok()) {
      note("Get(" + Slice(key).ToString(true) + "): " + s.ToString());
    } else if (got != value) {
      note("Get(" + Slice(key).ToString(true) + ") returned " + Describe(got) +
           ", expected " + Describe(value));
    }
  }
  std::unique_ptr<Iterator> it(db->NewIterator(ro, cf));
  auto m = model.begin();
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    if (m == model.end()) {
      note("scan: unexpected key " + it->key().ToString(true));
      break;
    }
    if (it->key() != m->first || it->value() != m->second) {
      note("scan: " + it->key().ToString(true) + " = " +
           Describe(it->value().ToString()) + ", expected " +
           Slice(m->first).ToString(true) + " = " + Describe(m->second));
      break;
    }
    ++m;
  }
  if (!it->status().ok()) {
    note("scan: " + it->status().ToString());
  } else if (!it->Valid() && m != model.end()) {
    note("scan ended before " + Slice(m->first).ToString(true));
  }
  if (bad == 0) {
    return testing::AssertionSuccess();
  }
  return testing::AssertionFailure()
         << bad << " wrong reads of " << model.size()
         << " keys; first: " << first;
}

// `model` reads back now, and again after a flush and a full compaction.
void ExpectModelThroughFlushAndCompaction(DB* db, const Model& model) {
  EXPECT_TRUE(MatchesModel(db, model));
  ASSERT_OK(db->Flush(FlushOptions()));
  ASSERT_OK(CompactAll(db));
  EXPECT_TRUE(MatchesModel(db, model));
}

// The entries a scan yields, forward or backward, from a positioned
// iterator.
Entries Drain(Iterator* it, bool forward) {
  Entries out;
  for (; it->Valid(); forward ? it->Next() : it->Prev()) {
    out.emplace_back(it->key().ToString(), it->value().ToString());
  }
  if (!it->status().ok()) {
    out.emplace_back("<error>", it->status().ToString());
  }
  return out;
}

class HostileTest : public testing::TestWithParam<Arm> {
 protected:
  bool hybrid() const { return GetParam() == Arm::kHybrid; }
  Options MakeOptions(
      const UserOptions& user = {}, const HybridOptions& hybrid = {},
      const BlockBasedTableOptions& bbto = BlockBasedTableOptions()) const {
    return ArmOptions(GetParam(), user, hybrid, bbto);
  }
  void LowerMinBlobSizeOnline(const std::string& min_blob_size);
};

// --- Options changed online

// A user sets min_blob_size=`min_blob_size` on a live DB whose medium values
// are flushed, then forces a full compaction, writes more (300 and 600
// bytes), flushes and compacts. Stock RocksDB moves values into blob files
// (or keeps them inline) and reads them all back; so must HybridKV (its
// compactions hand BlobDB values, never pointers).
void HostileTest::LowerMinBlobSizeOnline(const std::string& min_blob_size) {
  test::ScratchDir dir("minblob");
  Options options = MakeOptions();
  std::unique_ptr<DB> db;
  ASSERT_OK(OpenDb(options, dir.path(), &db));
  Model model;
  ASSERT_OK(PutAndFlush(db.get(), &model, 0, 150, 0));
  ASSERT_OK(db->SetOptions({{"min_blob_size", min_blob_size}}));
  ASSERT_OK(CompactAll(db.get()));
  EXPECT_TRUE(MatchesModel(db.get(), model));
  ASSERT_OK(PutRange(db.get(), &model, 100, 100, 1));
  // Values the new threshold puts in BlobDB.
  ASSERT_OK(PutAndFlush(db.get(), &model, 200, 50, 1, 600));
  ASSERT_OK(CompactAll(db.get()));
  EXPECT_TRUE(MatchesModel(db.get(), model));
  ASSERT_OK(OpenDb(options, dir.path(), &db));
  EXPECT_TRUE(MatchesModel(db.get(), model));
}

// A user sets min_blob_size=0 online over flushed medium values and compacts.
TEST_P(HostileTest, MinBlobSizeZeroOnlineThenForcedCompaction) {
  LowerMinBlobSizeOnline("0");
}

// A user sets min_blob_size=500 (inside the medium band) online and compacts.
TEST_P(HostileTest, MinBlobSizeIntoMediumBandOnlineThenForcedCompaction) {
  LowerMinBlobSizeOnline("500");
}

// A user replaces the table factory online with a plain BlockBasedTable (a
// mutable option), then compacts: stock rewrites its SSTs, and so must
// HybridKV (the compaction hands the new format values, never pointers).
// Reopened with the original options, the DB reads everything.
TEST_P(HostileTest, TableFactoryReplacedOnlineThenCompaction) {
  test::ScratchDir dir("factory");
  Options options = MakeOptions();
  std::unique_ptr<DB> db;
  ASSERT_OK(OpenDb(options, dir.path(), &db));
  Model model;
  ASSERT_OK(PutAndFlush(db.get(), &model, 0, 200, 0));
  ASSERT_OK(PutAndFlush(db.get(), &model, 100, 200, 1));
  ASSERT_OK(db->SetOptions({{"table_factory", "BlockBasedTable"}}));
  ASSERT_OK(CompactAll(db.get()));
  EXPECT_TRUE(MatchesModel(db.get(), model));
  ASSERT_OK(PutAndFlush(db.get(), &model, 250, 50, 2));
  ASSERT_OK(CompactAll(db.get()));
  EXPECT_TRUE(MatchesModel(db.get(), model));
  ASSERT_OK(OpenDb(options, dir.path(), &db));
  EXPECT_TRUE(MatchesModel(db.get(), model));
}

// A user opens with auto compactions off, piles up L0 files, turns them on,
// shrinks the memtable online, toggles again.
TEST_P(HostileTest, AutoCompactionsAndWriteBufferChangedOnline) {
  test::ScratchDir dir("online");
  Options options =
      MakeOptions([](Options* o) { o->disable_auto_compactions = true; });
  std::unique_ptr<DB> db;
  ASSERT_OK(OpenDb(options, dir.path(), &db));
  Model model;
  for (int round = 0; round < 5; ++round) {
    ASSERT_OK(PutAndFlush(db.get(), &model, round * 50, 100, round));
  }
  EXPECT_GE(test::FilesAt(db.get(), 0).size(), 5u);
  EXPECT_TRUE(MatchesModel(db.get(), model));

  ASSERT_OK(db->SetOptions({{"disable_auto_compactions", "false"}}));
  ASSERT_OK(db->WaitForCompact(WaitForCompactOptions()));
  EXPECT_LT(test::FilesAt(db.get(), 0).size(), 2u);
  EXPECT_TRUE(MatchesModel(db.get(), model));

  ASSERT_OK(db->SetOptions({{"write_buffer_size", "32768"}}));
  ASSERT_OK(PutRange(db.get(), &model, 0, 400, 5));
  ASSERT_OK(db->WaitForCompact(WaitForCompactOptions()));
  EXPECT_TRUE(MatchesModel(db.get(), model));

  ASSERT_OK(db->SetOptions(
      {{"disable_auto_compactions", "true"}, {"write_buffer_size", "131072"}}));
  ASSERT_OK(PutAndFlush(db.get(), &model, 200, 400, 6));
  EXPECT_TRUE(MatchesModel(db.get(), model));
  ASSERT_OK(db->SetOptions({{"disable_auto_compactions", "false"}}));
  ASSERT_OK(db->WaitForCompact(WaitForCompactOptions()));
  EXPECT_TRUE(MatchesModel(db.get(), model));
  ASSERT_OK(OpenDb(options, dir.path(), &db));
  EXPECT_TRUE(MatchesModel(db.get(), model));
}

// A user turns blob files off online, then on again with a higher
// min_blob_size and garbage collection, overwriting values of every size.
TEST_P(HostileTest, BlobOptionsChangedOnline) {
  test::ScratchDir dir("bloboptions");
  Options options = MakeOptions();
  std::unique_ptr<DB> db;
  ASSERT_OK(OpenDb(options, dir.path(), &db));
  Model model;
  ASSERT_OK(PutRange(db.get(), &model, 0, 50, 0, 2000));
  ASSERT_OK(PutAndFlush(db.get(), &model, 50, 50, 0));

  ASSERT_OK(db->SetOptions({{"enable_blob_files", "false"}}));
  ASSERT_OK(PutRange(db.get(), &model, 0, 25, 1, 2000));
  ASSERT_OK(PutAndFlush(db.get(), &model, 50, 25, 1));
  ASSERT_OK(CompactAll(db.get()));
  EXPECT_TRUE(MatchesModel(db.get(), model));

  ASSERT_OK(db->SetOptions({{"enable_blob_files", "true"},
                            {"min_blob_size", "1500"},
                            {"blob_file_size", "65536"},
                            {"enable_blob_garbage_collection", "true"},
                            {"blob_garbage_collection_age_cutoff", "1.0"}}));
  ASSERT_OK(PutRange(db.get(), &model, 100, 50, 2, 1200));
  ASSERT_OK(PutRange(db.get(), &model, 0, 50, 2, 3000));
  ASSERT_OK(PutAndFlush(db.get(), &model, 50, 50, 2));
  ASSERT_OK(CompactAll(db.get()));
  EXPECT_TRUE(MatchesModel(db.get(), model));
  ASSERT_OK(PutAndFlush(db.get(), &model, 0, 50, 3, 3000));
  ASSERT_OK(CompactAll(db.get()));  // relocates the blobs: garbage collection
  EXPECT_TRUE(MatchesModel(db.get(), model));
  ASSERT_OK(OpenDb(options, dir.path(), &db));
  EXPECT_TRUE(MatchesModel(db.get(), model));
}

// --- Copies of one DB

// Settings of the copy tests: one memtable per flush and compactions only on
// request, so that both copies number their files alike.
void OneFlushPerCall(Options* o) {
  o->write_buffer_size = 4 << 20;
  o->disable_auto_compactions = true;
}

// A user copies a closed DB's directory twice, opens both copies in one
// process with a merge operator, writes other values into each, merges, and
// compacts both while a scan of each is open: each copy keeps its own values.
TEST_P(HostileTest, TwoCopiesInOneProcessKeepTheirOwnMergedValues) {
  test::ScratchDir dir("copies-merge");
  Options options = MakeOptions([](Options* o) {
    OneFlushPerCall(o);
    EXPECT_OK(MergeOperator::CreateFromString(ConfigOptions(), "stringappend",
                                              &o->merge_operator));
  });
  const int kKeys = 300;
  {
    std::unique_ptr<DB> db;
    ASSERT_OK(OpenDb(options, dir.Sub("orig"), &db));
    Model model;
    ASSERT_OK(PutAndFlush(db.get(), &model, 0, kKeys, 0));
    ASSERT_OK(db->Close());
  }
  std::filesystem::copy(dir.Sub("orig"), dir.Sub("a"),
                        std::filesystem::copy_options::recursive);
  std::filesystem::copy(dir.Sub("orig"), dir.Sub("b"),
                        std::filesystem::copy_options::recursive);
  std::unique_ptr<DB> a, b;
  ASSERT_OK(OpenDb(options, dir.Sub("a"), &a));
  ASSERT_OK(OpenDb(options, dir.Sub("b"), &b));
  Model model_a, model_b;
  for (int i = 0; i < kKeys; ++i) {
    const std::string key = KeyOf(i);
    model_a[key] = MakeValue(key, 1, kMedium, 'A');
    model_b[key] = MakeValue(key, 1, kMedium, 'B');
    ASSERT_OK(a->Put(WriteOptions(), key, model_a[key]));
    ASSERT_OK(b->Put(WriteOptions(), key, model_b[key]));
  }
  ASSERT_OK(a->Flush(FlushOptions()));
  ASSERT_OK(b->Flush(FlushOptions()));
  for (int i = 0; i < kKeys; ++i) {
    const std::string key = KeyOf(i);
    ASSERT_OK(a->Merge(WriteOptions(), key, "x"));
    ASSERT_OK(b->Merge(WriteOptions(), key, "x"));
    model_a[key] += ",x";
    model_b[key] += ",x";
  }
  EXPECT_TRUE(MatchesModel(a.get(), model_a));
  EXPECT_TRUE(MatchesModel(b.get(), model_b));
  ASSERT_OK(a->Flush(FlushOptions()));
  ASSERT_OK(b->Flush(FlushOptions()));
  std::unique_ptr<Iterator> scan_a(a->NewIterator(ReadOptions()));
  std::unique_ptr<Iterator> scan_b(b->NewIterator(ReadOptions()));
  ASSERT_OK(CompactAll(a.get()));
  ASSERT_OK(CompactAll(b.get()));
  scan_a->SeekToFirst();
  scan_b->SeekToFirst();
  EXPECT_EQ(Drain(scan_a.get(), true), Entries(model_a.begin(), model_a.end()));
  EXPECT_EQ(Drain(scan_b.get(), true), Entries(model_b.begin(), model_b.end()));
  scan_a.reset();
  scan_b.reset();
  EXPECT_TRUE(MatchesModel(a.get(), model_a));
  EXPECT_TRUE(MatchesModel(b.get(), model_b));
}

// Removes every value that starts with 'A'.
class DropValuesStartingWithA : public CompactionFilter {
 public:
  bool Filter(int /*level*/, const Slice& /*key*/, const Slice& existing_value,
              std::string* /*new_value*/,
              bool* /*value_changed*/) const override {
    return existing_value.starts_with("A");
  }
  const char* Name() const override { return "HostileDropValuesStartingWithA"; }
};

// A user copies a closed DB twice, opens both copies in one process with a
// compaction filter that drops values by content, writes 'A...' values into
// copy A and 'B...' values into copy B, and compacts both while a scan of
// each is open: A loses them all, B nothing.
TEST_P(HostileTest, TwoCopiesInOneProcessFilterByTheirOwnValues) {
  static const DropValuesStartingWithA kFilter;
  test::ScratchDir dir("copies-filter");
  Options options = MakeOptions([](Options* o) {
    OneFlushPerCall(o);
    o->compaction_filter = &kFilter;
  });
  const int kKeys = 300;
  {
    std::unique_ptr<DB> db;
    ASSERT_OK(OpenDb(options, dir.Sub("orig"), &db));
    for (int i = 0; i < kKeys; ++i) {
      ASSERT_OK(db->Put(WriteOptions(), KeyOf(i),
                        MakeValue(KeyOf(i), 0, kMedium, 'C')));
    }
    ASSERT_OK(db->Flush(FlushOptions()));
    ASSERT_OK(db->Close());
  }
  std::filesystem::copy(dir.Sub("orig"), dir.Sub("a"),
                        std::filesystem::copy_options::recursive);
  std::filesystem::copy(dir.Sub("orig"), dir.Sub("b"),
                        std::filesystem::copy_options::recursive);
  std::unique_ptr<DB> a, b;
  ASSERT_OK(OpenDb(options, dir.Sub("a"), &a));
  ASSERT_OK(OpenDb(options, dir.Sub("b"), &b));
  Model model_b;
  for (int i = 0; i < kKeys; ++i) {
    const std::string key = KeyOf(i);
    model_b[key] = MakeValue(key, 1, kMedium, 'B');
    ASSERT_OK(a->Put(WriteOptions(), key, MakeValue(key, 1, kMedium, 'A')));
    ASSERT_OK(b->Put(WriteOptions(), key, model_b[key]));
  }
  ASSERT_OK(a->Flush(FlushOptions()));
  ASSERT_OK(b->Flush(FlushOptions()));
  std::unique_ptr<Iterator> scan_a(a->NewIterator(ReadOptions()));
  std::unique_ptr<Iterator> scan_b(b->NewIterator(ReadOptions()));
  ASSERT_OK(CompactAll(a.get()));
  ASSERT_OK(CompactAll(b.get()));
  scan_a.reset();
  scan_b.reset();
  EXPECT_TRUE(MatchesModel(a.get(), Model()));  // the filter removed them all
  EXPECT_TRUE(MatchesModel(b.get(), model_b));
}

// --- Merges, wide columns, collectors, filters

// Says which kind of base value FullMergeV3 got (the index of
// ExistingValue: 0 none, 1 plain, 2 wide columns), then the base and the
// operands.
class ExistingValueKindMerge : public MergeOperator {
 public:
  bool FullMergeV3(const MergeOperationInputV3& in,
                   MergeOperationOutputV3* out) const override {
    std::string result =
        "kind" + std::to_string(in.existing_value.index()) + ":";
    if (const auto* plain = std::get_if<Slice>(&in.existing_value)) {
      result += plain->ToString();
    } else if (const auto* columns =
                   std::get_if<WideColumns>(&in.existing_value)) {
      for (const WideColumn& c : *columns) {
        result += "[" + c.name().ToString() + "=" + c.value().ToString() + "]";
      }
    }
    for (const Slice& op : in.operand_list) {
      result += "+" + op.ToString();
    }
    out->new_value = std::move(result);
    return true;
  }
  const char* Name() const override { return "HostileExistingValueKind"; }
};

// A user merges into wide-column entities (of the default column alone,
// small and 300 bytes, and one with another column), stored beside a plain
// medium value, with a FullMergeV3 operator: stock hands it the entity, and
// Get, the iterator, GetEntity and MultiGet all return that result.
TEST_P(HostileTest, MergeOntoWideColumnEntityGetsTheEntity) {
  test::ScratchDir dir("entity");
  Options options = MakeOptions([](Options* o) {
    o->merge_operator = std::make_shared<ExistingValueKindMerge>();
  });
  std::unique_ptr<DB> db;
  ASSERT_OK(OpenDb(options, dir.path(), &db));
  const std::string big = MakeValue("e2", 0);
  const std::string big3 = MakeValue("e3", 0);
  const std::string plain = MakeValue("m", 0);
  ASSERT_OK(db->PutEntity(WriteOptions(), db->DefaultColumnFamily(), "e",
                          {{kDefaultWideColumnName, "base"}}));
  ASSERT_OK(db->PutEntity(WriteOptions(), db->DefaultColumnFamily(), "e2",
                          {{kDefaultWideColumnName, big}, {"attr", "a"}}));
  ASSERT_OK(db->PutEntity(WriteOptions(), db->DefaultColumnFamily(), "e3",
                          {{kDefaultWideColumnName, big3}}));
  ASSERT_OK(db->Put(WriteOptions(), "m", plain));
  ASSERT_OK(db->Flush(FlushOptions()));
  for (const char* key : {"e", "e2", "e3", "m"}) {
    ASSERT_OK(db->Merge(WriteOptions(), key, "op"));
  }
  const Model expected = {{"e", "kind2:[=base]+op"},
                          {"e2", "kind2:[=" + big + "][attr=a]+op"},
                          {"e3", "kind2:[=" + big3 + "]+op"},
                          {"m", "kind1:" + plain + "+op"}};

  auto check = [&](const char* when) {
    SCOPED_TRACE(when);
    EXPECT_TRUE(MatchesModel(db.get(), expected));  // Get and the iterator
    std::unique_ptr<Iterator> it(db->NewIterator(ReadOptions()));
    int n = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next(), ++n) {
      const std::string& want = expected.at(it->key().ToString());
      ASSERT_EQ(it->columns().size(), 1u) << it->key().ToString();
      EXPECT_EQ(it->columns()[0].name(), kDefaultWideColumnName);
      EXPECT_EQ(it->columns()[0].value().ToString(), want);
    }
    EXPECT_OK(it->status());
    EXPECT_EQ(n, 4);
    for (const auto& [key, want] : expected) {
      PinnableWideColumns columns;
      ASSERT_OK(db->GetEntity(ReadOptions(), db->DefaultColumnFamily(), key,
                              &columns));
      ASSERT_EQ(columns.columns().size(), 1u) << key;
      EXPECT_EQ(columns.columns()[0].name(), kDefaultWideColumnName);
      EXPECT_EQ(columns.columns()[0].value().ToString(), want) << key;
    }
    std::vector<Slice> keys;
    for (const auto& kv : expected) {
      keys.emplace_back(kv.first);
    }
    std::vector<std::string> values;
    std::vector<Status> statuses = db->MultiGet(ReadOptions(), keys, &values);
    ASSERT_EQ(statuses.size(), keys.size());
    for (size_t i = 0; i < keys.size(); ++i) {
      EXPECT_OK(statuses[i]);
      EXPECT_EQ(values[i], expected.at(keys[i].ToString()))
          << keys[i].ToString();
    }
  };
  check("operand in the memtable");
  ASSERT_OK(db->Flush(FlushOptions()));
  check("operand flushed");
  ASSERT_OK(CompactAll(db.get()));
  check("merged by a compaction");
}

// Entities with large columns (RocksDB 11 keeps them in blob files; 9.x
// inline) and medium ones, in SSTs that also hold medium pointers: Get,
// GetEntity, MultiGet, MultiGetEntity and iterators give stock's columns,
// flushed and after a compaction.
TEST_P(HostileTest, EntitiesWithLargeColumnsBesideMediumPointers) {
  test::ScratchDir dir("entity-blob-columns");
  std::unique_ptr<DB> db;
  ASSERT_OK(OpenDb(MakeOptions(), dir.path(), &db));
  ColumnFamilyHandle* cf = db->DefaultColumnFamily();
  using Columns = std::vector<std::pair<std::string, std::string>>;
  const std::map<std::string, Columns> entities = {
      {"e1", {{"", "small"}, {"big", MakeValue("e1", 1, 3000)}, {"mid", "m1"}}},
      {"e2",
       {{"", MakeValue("e2", 2, 2000)}, {"attr", MakeValue("e2", 3, 200)}}},
      {"e3", {{"a", MakeValue("e3", 4, 1500)}, {"b", MakeValue("e3", 5)}}}};
  auto put_all = [&](int version) {
    for (const auto& [key, columns] : entities) {
      WideColumns wide;
      for (const auto& [name, value] : columns) wide.emplace_back(name, value);
      ASSERT_OK(db->PutEntity(WriteOptions(), cf, key, wide));
    }
    for (const char* key : {"k1", "k2", "k3"}) {  // medium pointers
      ASSERT_OK(db->Put(WriteOptions(), key, MakeValue(key, version)));
    }
    ASSERT_OK(db->Flush(FlushOptions()));
  };
  auto expect_columns = [&](const std::string& key, const WideColumns& got) {
    const Columns& want = entities.at(key);
    ASSERT_EQ(got.size(), want.size()) << key;
    for (size_t i = 0; i < want.size(); ++i) {
      EXPECT_EQ(got[i].name().ToString(), want[i].first) << key;
      EXPECT_EQ(got[i].value().ToString(), want[i].second)
          << key << "." << want[i].first;
    }
  };
  auto default_of = [&](const std::string& key) {
    const Columns& c = entities.at(key);
    return c.front().first.empty() ? c.front().second : std::string();
  };
  auto check = [&](const char* when, int version) {
    SCOPED_TRACE(when);
    std::vector<std::string> key_strings;
    for (const auto& [key, columns] : entities) {
      std::string value;
      ASSERT_OK(db->Get(ReadOptions(), key, &value)) << key;
      EXPECT_EQ(value, default_of(key)) << key;
      PinnableWideColumns columns_read;
      ASSERT_OK(db->GetEntity(ReadOptions(), cf, key, &columns_read)) << key;
      expect_columns(key, columns_read.columns());
      key_strings.push_back(key);
    }
    for (const char* key : {"k1", "k2", "k3"}) key_strings.push_back(key);
    const std::vector<Slice> keys(key_strings.begin(), key_strings.end());
    std::vector<std::string> values;
    const std::vector<Status> statuses =
        db->MultiGet(ReadOptions(), keys, &values);
    std::vector<PinnableWideColumns> results(keys.size());
    std::vector<Status> entity_statuses(keys.size());
    db->MultiGetEntity(ReadOptions(), cf, keys.size(), keys.data(),
                       results.data(), entity_statuses.data());
    for (size_t i = 0; i < keys.size(); ++i) {
      const std::string key = keys[i].ToString();
      ASSERT_OK(statuses[i]) << key;
      ASSERT_OK(entity_statuses[i]) << key;
      if (entities.count(key)) {
        EXPECT_EQ(values[i], default_of(key)) << key;
        expect_columns(key, results[i].columns());
      } else {
        EXPECT_EQ(values[i], MakeValue(key, version)) << key;
      }
    }
    std::unique_ptr<Iterator> it(db->NewIterator(ReadOptions()));
    size_t n = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next(), ++n) {
      const std::string key = it->key().ToString();
      if (entities.count(key)) {
        expect_columns(key, it->columns());
      } else {
        EXPECT_EQ(it->value().ToString(), MakeValue(key, version)) << key;
      }
    }
    EXPECT_OK(it->status());
    EXPECT_EQ(n, keys.size());
  };
  put_all(0);
  check("flushed", 0);
  put_all(1);
  ASSERT_OK(CompactAll(db.get()));
  check("compacted", 1);
}

// Records the value of key "k" each time a table builder adds it, whatever
// its entry type.
struct Recorded {
  std::mutex mu;
  std::string value;
  int times = 0;

  // The last value recorded, and how many were since the last call.
  std::string Take(int* times_out) {
    std::lock_guard<std::mutex> lock(mu);
    *times_out = times;
    times = 0;
    return value;
  }
};

class RecordingCollector : public TablePropertiesCollector {
 public:
  explicit RecordingCollector(std::shared_ptr<Recorded> recorded)
      : recorded_(std::move(recorded)) {}
  Status AddUserKey(const Slice& key, const Slice& value, EntryType /*type*/,
                    SequenceNumber /*seq*/, uint64_t /*file_size*/) override {
    if (key == "k") {
      std::lock_guard<std::mutex> lock(recorded_->mu);
      recorded_->value = value.ToString();
      ++recorded_->times;
    }
    return Status::OK();
  }
  Status Finish(UserCollectedProperties* /*properties*/) override {
    return Status::OK();
  }
  UserCollectedProperties GetReadableProperties() const override { return {}; }
  const char* Name() const override { return "HostileRecordingCollector"; }

 private:
  std::shared_ptr<Recorded> recorded_;
};

class RecordingCollectorFactory : public TablePropertiesCollectorFactory {
 public:
  explicit RecordingCollectorFactory(std::shared_ptr<Recorded> recorded)
      : recorded_(std::move(recorded)) {}
  TablePropertiesCollector* CreateTablePropertiesCollector(
      TablePropertiesCollectorFactory::Context /*context*/) override {
    return new RecordingCollector(recorded_);
  }
  const char* Name() const override {
    return "HostileRecordingCollectorFactory";
  }

 private:
  std::shared_ptr<Recorded> recorded_;
};

// A user's table properties collector records the bytes it sees for key "k"
// at a flush; the user then stores exactly those bytes as k's value, flushes
// and compacts: Get returns them.
TEST_P(HostileTest, BytesSeenByPropertiesCollectorStoredAsValue) {
  test::ScratchDir dir("collector");
  auto recorded = std::make_shared<Recorded>();
  Options options = MakeOptions([&](Options* o) {
    o->table_properties_collector_factories.push_back(
        std::make_shared<RecordingCollectorFactory>(recorded));
  });
  std::unique_ptr<DB> db;
  ASSERT_OK(OpenDb(options, dir.path(), &db));
  ASSERT_OK(db->Put(WriteOptions(), "k", MakeValue("k", 0)));
  ASSERT_OK(db->Flush(FlushOptions()));
  int times = 0;
  const std::string bytes = recorded->Take(&times);
  ASSERT_EQ(times, 1);
  ASSERT_OK(db->Put(WriteOptions(), "k", bytes));
  ASSERT_OK(db->Flush(FlushOptions()));
  ASSERT_OK(CompactAll(db.get()));
  EXPECT_TRUE(MatchesModel(db.get(), {{"k", bytes}}));
  ASSERT_OK(OpenDb(options, dir.path(), &db));
  EXPECT_TRUE(MatchesModel(db.get(), {{"k", bytes}}));
}

// As above, but the user first overwrites and compacts until whatever the
// recorded bytes stood for is long gone, then stores them: no failure, the
// bytes read back, and later writes succeed.
TEST_P(HostileTest, BytesSeenByPropertiesCollectorStoredAfterTheirFileIsGone) {
  test::ScratchDir dir("collector-gone");
  auto recorded = std::make_shared<Recorded>();
  Options options = MakeOptions([&](Options* o) {
    o->table_properties_collector_factories.push_back(
        std::make_shared<RecordingCollectorFactory>(recorded));
  });
  std::unique_ptr<DB> db;
  ASSERT_OK(OpenDb(options, dir.path(), &db));
  Model model;
  model["k"] = MakeValue("k", 0);
  ASSERT_OK(db->Put(WriteOptions(), "k", model["k"]));
  ASSERT_OK(PutAndFlush(db.get(), &model, 0, 150, 0));
  int times = 0;
  const std::string bytes = recorded->Take(&times);
  ASSERT_EQ(times, 1);
  for (int round = 1; round <= 3; ++round) {
    model["k"] = MakeValue("k", round);
    ASSERT_OK(db->Put(WriteOptions(), "k", model["k"]));
    for (int i = 0; i < 150; i += 2) {
      ASSERT_OK(db->Delete(WriteOptions(), KeyOf(i)));
      model.erase(KeyOf(i));
    }
    ASSERT_OK(PutAndFlush(db.get(), &model, 150 * round, 150, round));
    ASSERT_OK(CompactAll(db.get()));
  }
  ASSERT_OK(db->WaitForCompact(WaitForCompactOptions()));
  model["k"] = bytes;
  ASSERT_OK(db->Put(WriteOptions(), "k", bytes));
  ASSERT_OK(db->Flush(FlushOptions()));
  ASSERT_OK(CompactAll(db.get()));
  EXPECT_TRUE(MatchesModel(db.get(), model));
  model["z"] = MakeValue("z", 0);
  ASSERT_OK(db->Put(WriteOptions(), "z", model["z"]));
  ASSERT_OK(db->Flush(FlushOptions()));
  ASSERT_OK(CompactAll(db.get()));
  EXPECT_TRUE(MatchesModel(db.get(), model));
}

// Turns values starting with 'C' into the same bytes starting with 'D'.
class RewriteCToD : public CompactionFilter {
 public:
  bool Filter(int /*level*/, const Slice& /*key*/, const Slice& existing_value,
              std::string* new_value, bool* value_changed) const override {
    if (existing_value.starts_with("C")) {
      *new_value = "D" + existing_value.ToString().substr(1);
      *value_changed = true;
    }
    return false;
  }
  const char* Name() const override { return "HostileRewriteCToD"; }
};

// A user's compaction filter rewrites medium values: reads return the
// rewritten bytes.
TEST_P(HostileTest, CompactionFilterRewritesMediumValues) {
  static const RewriteCToD kFilter;
  test::ScratchDir dir("filter-change");
  Options options =
      MakeOptions([](Options* o) { o->compaction_filter = &kFilter; });
  std::unique_ptr<DB> db;
  ASSERT_OK(OpenDb(options, dir.path(), &db));
  Model model;
  for (int i = 0; i < 200; ++i) {
    const std::string key = KeyOf(i);
    const char tag = i % 2 == 0 ? 'C' : 'E';
    ASSERT_OK(db->Put(WriteOptions(), key, MakeValue(key, 0, kMedium, tag)));
    model[key] = MakeValue(key, 0, kMedium, tag == 'C' ? 'D' : 'E');
  }
  ASSERT_OK(db->Flush(FlushOptions()));
  ASSERT_OK(CompactAll(db.get()));
  EXPECT_TRUE(MatchesModel(db.get(), model));
}

// A user asks for the merge operands of keys whose base is a flushed medium
// value: the base comes first, as written.
TEST_P(HostileTest, GetMergeOperandsOverMediumBase) {
  test::ScratchDir dir("operands");
  Options options = MakeOptions([](Options* o) {
    EXPECT_OK(MergeOperator::CreateFromString(ConfigOptions(), "stringappend",
                                              &o->merge_operator));
  });
  std::unique_ptr<DB> db;
  ASSERT_OK(OpenDb(options, dir.path(), &db));
  const std::string base = MakeValue("m", 0);
  ASSERT_OK(db->Put(WriteOptions(), "m", base));
  ASSERT_OK(db->Flush(FlushOptions()));
  ASSERT_OK(db->Merge(WriteOptions(), "m", "a"));
  ASSERT_OK(db->Flush(FlushOptions()));
  ASSERT_OK(db->Merge(WriteOptions(), "m", "b"));

  auto operands = [&]() {
    GetMergeOperandsOptions opts;
    opts.expected_max_number_of_operands = 8;
    std::vector<PinnableSlice> slices(8);
    int n = 0;
    Status s = db->GetMergeOperands(ReadOptions(), db->DefaultColumnFamily(),
                                    "m", slices.data(), &opts, &n);
    std::vector<std::string> out;
    if (!s.ok()) {
      out.push_back("<" + s.ToString() + ">");
    }
    for (int i = 0; s.ok() && i < n; ++i) {
      out.push_back(slices[i].ToString());
    }
    return out;
  };
  EXPECT_EQ(operands(), (std::vector<std::string>{base, "a", "b"}));
  EXPECT_TRUE(MatchesModel(db.get(), {{"m", base + ",a,b"}}));
  ASSERT_OK(db->Flush(FlushOptions()));
  EXPECT_EQ(operands(), (std::vector<std::string>{base, "a", "b"}));
  ASSERT_OK(CompactAll(db.get()));
  EXPECT_EQ(operands(), (std::vector<std::string>{base + ",a,b"}));
  EXPECT_TRUE(MatchesModel(db.get(), {{"m", base + ",a,b"}}));
}

// A user merges in a WriteBatchWithIndex over a flushed medium base and reads
// through the batch before writing it.
TEST_P(HostileTest, WriteBatchWithIndexMergesOverMediumBase) {
  test::ScratchDir dir("wbwi");
  Options options = MakeOptions([](Options* o) {
    EXPECT_OK(MergeOperator::CreateFromString(ConfigOptions(), "stringappend",
                                              &o->merge_operator));
  });
  std::unique_ptr<DB> db;
  ASSERT_OK(OpenDb(options, dir.path(), &db));
  Model model;
  ASSERT_OK(PutAndFlush(db.get(), &model, 0, 100, 0));
  WriteBatchWithIndex batch(BytewiseComparator(), 0, /*overwrite_key=*/true);
  ASSERT_OK(batch.Merge(KeyOf(7), "m"));
  ASSERT_OK(batch.Put(KeyOf(8), MakeValue(KeyOf(8), 1)));
  std::string value;
  ASSERT_OK(batch.GetFromBatchAndDB(db.get(), ReadOptions(), KeyOf(7), &value));
  EXPECT_EQ(value, model[KeyOf(7)] + ",m");
  ASSERT_OK(batch.GetFromBatchAndDB(db.get(), ReadOptions(), KeyOf(9), &value));
  EXPECT_EQ(value, model[KeyOf(9)]);
  ASSERT_OK(db->Write(WriteOptions(), batch.GetWriteBatch()));
  model[KeyOf(7)] += ",m";
  model[KeyOf(8)] = MakeValue(KeyOf(8), 1);
  ExpectModelThroughFlushAndCompaction(db.get(), model);
}

// --- Other instances, caches, import

// A user opens a read-only instance with the primary's path plus "/" in the
// same process. Before its first read the primary overwrites half the keys and
// compacts L0 into L1 (CompactFiles; older data sits in the last level); then
// the user keeps reading while the primary overwrites, flushes and compacts
// everything in a loop. The read-only instance returns the values it opened
// with (a NotFound is tolerated), never an error or other bytes.
TEST_P(HostileTest, ReadOnlyInstanceWhilePrimaryCompacts) {
  test::ScratchDir dir("readonly");
  Options options = MakeOptions([](Options* o) {
    o->disable_auto_compactions = true;
    o->write_buffer_size = 4 << 20;
  });
  std::unique_ptr<DB> primary;
  ASSERT_OK(OpenDb(options, dir.path(), &primary));
  const int kKeys = 300;
  Model model;
  ASSERT_OK(PutRange(primary.get(), &model, 1000, 100, 0));
  ASSERT_OK(primary->Flush(FlushOptions()));
  ASSERT_OK(primary->CompactFiles(CompactionOptions(),
                                  test::FilesAt(primary.get(), 0), 6));
  ASSERT_OK(PutRange(primary.get(), &model, 0, kKeys, 0));
  ASSERT_OK(primary->Flush(FlushOptions()));
  DB* raw = nullptr;
  ASSERT_OK(test::OpenReadOnlyDB(options, dir.path() + "/", &raw));
  std::unique_ptr<DB> readonly(raw);

  int reads = 0, failures = 0;
  std::string first_failure;
  auto fail = [&](const std::string& what) {
    if (failures++ == 0) {
      first_failure = what;
    }
  };
  auto get = [&](const std::string& key) {
    std::string value;
    Status s = readonly->Get(ReadOptions(), key, &value);
    ++reads;
    if (s.ok() && value != model[key]) {
      fail("Get(" + key + ") returned " + Describe(value));
    } else if (!s.ok() && !s.IsNotFound()) {
      fail("Get(" + key + "): " + s.ToString());
    }
  };
  auto scan = [&]() {
    std::unique_ptr<Iterator> it(readonly->NewIterator(ReadOptions()));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      if (it->value() != model[it->key().ToString()]) {
        fail("scan: " + it->key().ToString() + " = " +
             Describe(it->value().ToString()));
        break;
      }
    }
    if (!it->status().ok()) {
      fail("scan: " + it->status().ToString());
    }
  };

  // The L0 table the read-only instance sees is gone before it reads.
  Model newer;
  ASSERT_OK(PutRange(primary.get(), &newer, 0, kKeys / 2, 1));
  ASSERT_OK(primary->Flush(FlushOptions()));
  ASSERT_OK(primary->CompactFiles(CompactionOptions(),
                                  test::FilesAt(primary.get(), 0), 1));
  for (const auto& kv : model) {
    get(kv.first);
  }
  scan();
  EXPECT_EQ(failures, 0) << "after one compaction; first: " << first_failure;

  std::atomic<bool> stop{false};
  std::mutex mu;
  std::string writer_error;
  std::thread writer([&] {
    for (int version = 2; !stop.load(); ++version) {
      Model ignored;
      Status s = PutRange(primary.get(), &ignored, 0, kKeys, version);
      if (s.ok()) {
        s = primary->Flush(FlushOptions());
      }
      if (s.ok()) {
        s = CompactAll(primary.get());
      }
      if (!s.ok()) {
        std::lock_guard<std::mutex> lock(mu);
        writer_error = s.ToString();
        return;
      }
    }
  });
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (std::chrono::steady_clock::now() < deadline) {
    get(reads % 4 == 0 ? KeyOf(1000 + reads % 100) : KeyOf(reads % kKeys));
    if (reads % 100 == 0) {
      scan();
    }
  }
  stop = true;
  writer.join();
  EXPECT_EQ(writer_error, "");
  EXPECT_GT(reads, 1000);
  EXPECT_EQ(failures, 0) << "of " << reads
                         << " reads; first: " << first_failure;
}

// A user scans everything with fill_cache=true, then reads each key with
// read_tier=kBlockCacheTier: all found in the cache.
TEST_P(HostileTest, BlockCacheTierGetsAfterAFillingScan) {
  test::ScratchDir dir("cachetier");
  BlockBasedTableOptions bbto;
  bbto.block_cache = NewLRUCache(8 << 20);
  HybridOptions hybrid_options;
  hybrid_options.table.scan_prefetch = false;
  Options options = MakeOptions(
      [](Options* o) { o->write_buffer_size = 4 << 20; }, hybrid_options, bbto);
  std::unique_ptr<DB> db;
  ASSERT_OK(OpenDb(options, dir.path(), &db));
  Model model;
  ASSERT_OK(PutAndFlush(db.get(), &model, 0, 300, 0));
  ASSERT_OK(OpenDb(options, dir.path(), &db));  // nothing cached yet
  ReadOptions fill;
  fill.fill_cache = true;
  std::unique_ptr<Iterator> it(db->NewIterator(fill));
  it->SeekToFirst();
  auto scanned = Drain(it.get(), true);
  it.reset();
  ASSERT_EQ(scanned.size(), model.size());
  ReadOptions cached;
  cached.read_tier = kBlockCacheTier;
  int incomplete = 0;
  std::string first;
  for (const auto& [key, want] : model) {
    std::string value;
    Status s = db->Get(cached, key, &value);
    if (!s.ok()) {
      if (incomplete++ == 0) {
        first = key + ": " + s.ToString();
      }
    } else {
      EXPECT_EQ(value, want) << key;
    }
  }
  EXPECT_EQ(incomplete, 0) << "of " << model.size() << "; first: " << first;
}

// A user exports a column family from a stock RocksDB DB
// (Checkpoint::ExportColumnFamily) and imports it into a DB of this arm.
TEST_P(HostileTest, ImportColumnFamilyExportedFromStock) {
  test::ScratchDir dir("import");
  Model model;
  ExportImportFilesMetaData* exported = nullptr;
  {
    std::unique_ptr<DB> src;
    ASSERT_OK(OpenDb(ArmOptions(Arm::kStock), dir.Sub("src"), &src));
    ASSERT_OK(PutRange(src.get(), &model, 0, 300, 0));
    ASSERT_OK(PutRange(src.get(), &model, 300, 100, 0, 40));
    ASSERT_OK(src->Flush(FlushOptions()));
    Checkpoint* raw = nullptr;
    ASSERT_OK(Checkpoint::Create(src.get(), &raw));
    std::unique_ptr<Checkpoint> checkpoint(raw);
    ASSERT_OK(checkpoint->ExportColumnFamily(src->DefaultColumnFamily(),
                                             dir.Sub("export"), &exported));
  }
  std::unique_ptr<ExportImportFilesMetaData> owned(exported);
  Options options = MakeOptions();
  std::unique_ptr<DB> db;
  ASSERT_OK(OpenDb(options, dir.Sub("dst"), &db));
  Model own;
  ASSERT_OK(PutAndFlush(db.get(), &own, 1000, 200, 5));
  ColumnFamilyHandle* handle = nullptr;
  ASSERT_OK(db->CreateColumnFamilyWithImport(
      ColumnFamilyOptions(options), "imported", ImportColumnFamilyOptions(),
      *exported, &handle));
  EXPECT_TRUE(MatchesModel(db.get(), model, handle));
  ASSERT_OK(PutRange(db.get(), &model, 100, 100, 1, kMedium, handle));
  ASSERT_OK(db->Flush(FlushOptions(), handle));
  ASSERT_OK(CompactAll(db.get(), handle));
  EXPECT_TRUE(MatchesModel(db.get(), model, handle));
  EXPECT_TRUE(MatchesModel(db.get(), own));
  ASSERT_OK(db->DestroyColumnFamilyHandle(handle));
  db.reset();

  std::vector<ColumnFamilyDescriptor> families = {
      {kDefaultColumnFamilyName, ColumnFamilyOptions(options)},
      {"imported", ColumnFamilyOptions(options)}};
  std::vector<ColumnFamilyHandle*> handles;
  DB* raw = nullptr;
  ASSERT_OK(hybridkv::OpenDB(DBOptions(options), dir.Sub("dst"), families,
                             &handles, &raw));
  db.reset(raw);
  EXPECT_TRUE(MatchesModel(db.get(), model, handles[1]));
  EXPECT_TRUE(MatchesModel(db.get(), own, handles[0]));
  for (auto* h : handles) {
    ASSERT_OK(db->DestroyColumnFamilyHandle(h));
  }
}

// A user checkpoints a live DB with the arm's natural call (RocksDB's
// Checkpoint; hybridkv::CreateCheckpoint), then overwrites and compacts the
// source until its old files are gone: the checkpoint reads what it held.
TEST_P(HostileTest, CheckpointOfLiveDbOutlivesSourceCompactions) {
  test::ScratchDir dir("checkpoint");
  Options options = MakeOptions();
  std::unique_ptr<DB> db;
  ASSERT_OK(OpenDb(options, dir.Sub("db"), &db));
  Model model;
  ASSERT_OK(PutAndFlush(db.get(), &model, 0, 300, 0));
  ASSERT_OK(PutRange(db.get(), &model, 0, 100, 1));  // partly unflushed
  if (hybrid()) {
    ASSERT_OK(hybridkv::CreateCheckpoint(db.get(), dir.Sub("ckpt")));
  } else {
    Checkpoint* raw = nullptr;
    ASSERT_OK(Checkpoint::Create(db.get(), &raw));
    std::unique_ptr<Checkpoint> checkpoint(raw);
    ASSERT_OK(checkpoint->CreateCheckpoint(dir.Sub("ckpt")));
  }
  const Model at_checkpoint = model;
  for (int version = 2; version < 4; ++version) {
    ASSERT_OK(PutAndFlush(db.get(), &model, 0, 300, version));
    ASSERT_OK(CompactAll(db.get()));
  }
  ASSERT_OK(db->WaitForCompact(WaitForCompactOptions()));
  EXPECT_TRUE(MatchesModel(db.get(), model));
  db.reset();
  ASSERT_OK(OpenDb(options, dir.Sub("ckpt"), &db));
  EXPECT_TRUE(MatchesModel(db.get(), at_checkpoint));
  Model copy = at_checkpoint;
  ASSERT_OK(PutAndFlush(db.get(), &copy, 200, 200, 9));
  ASSERT_OK(CompactAll(db.get()));
  EXPECT_TRUE(MatchesModel(db.get(), copy));
}

// A user writes an SST of medium values with SstFileWriter (given the DB's own
// options) and ingests it over flushed values.
TEST_P(HostileTest, IngestExternalFileOverMediumValues) {
  test::ScratchDir dir("ingest");
  Options options = MakeOptions();
  std::unique_ptr<DB> db;
  ASSERT_OK(OpenDb(options, dir.Sub("db"), &db));
  Model model;
  ASSERT_OK(PutAndFlush(db.get(), &model, 0, 300, 0));
  SstFileWriter writer(EnvOptions(), options);
  ASSERT_OK(writer.Open(dir.Sub("ingest.sst")));
  for (int i = 100; i < 400; ++i) {
    const std::string key = KeyOf(i);
    model[key] = MakeValue(key, 1, i % 3 == 0 ? 50 : kMedium);
    ASSERT_OK(writer.Put(key, model[key]));
  }
  ASSERT_OK(writer.Finish());
  ASSERT_OK(db->IngestExternalFile({dir.Sub("ingest.sst")},
                                   IngestExternalFileOptions()));
  EXPECT_TRUE(MatchesModel(db.get(), model));
  ASSERT_OK(CompactAll(db.get()));
  EXPECT_TRUE(MatchesModel(db.get(), model));
  ASSERT_OK(OpenDb(options, dir.Sub("db"), &db));
  EXPECT_TRUE(MatchesModel(db.get(), model));
}

// --- The merge level

// SSTs at or below the merge level (-2: the level above the deepest non-empty
// one) hold no medium pointer. The Stock arm holds none anywhere.
testing::AssertionResult NoPointersAtOrBelowMinusTwo(DB* db) {
  ColumnFamilyMetaData meta;
  db->GetColumnFamilyMetaData(&meta);
  int deepest = -1;
  for (const auto& level : meta.levels) {
    if (!level.files.empty()) {
      deepest = level.level;
    }
  }
  std::string shape;
  uint64_t pointers_at_or_below = 0;
  for (const auto& level : meta.levels) {
    uint64_t entries = 0, pointers = 0;
    for (const auto& f : level.files) {
      auto scan = test::ScanSstRaw(f.directory + "/" + f.relative_filename);
      if (!scan.status.ok()) {
        return testing::AssertionFailure()
               << f.relative_filename << ": " << scan.status.ToString();
      }
      entries += scan.entries;
      pointers += scan.pointer_entries;
    }
    shape += " L" + std::to_string(level.level) + ":" +
             std::to_string(pointers) + "/" + std::to_string(entries);
    if (level.level >= deepest - 1) {
      pointers_at_or_below += pointers;
    }
  }
  if (deepest < 1 || pointers_at_or_below > 0) {
    return testing::AssertionFailure()
           << pointers_at_or_below << " pointers at or below L" << deepest - 1
           << "; pointers/entries per level:" << shape;
  }
  return testing::AssertionSuccess();
}

// A user loads 150,000 keys of 104-byte values in key order into a 7-level
// LSM without dynamic level sizing (merge_level=-2 in the Hybrid arm), lets
// compactions settle, then compacts fully and lets them settle again: every
// value reads back, and no SST at or below the merge level holds a medium
// pointer, at either point.
TEST_P(HostileTest, SequentialLoadWithMergeLevelMinusTwo) {
  test::ScratchDir dir("sequential");
  HybridOptions hybrid_options;
  hybrid_options.table.merge_level = -2;
  Options options = MakeOptions(
      [](Options* o) {
        o->num_levels = 7;
        o->level_compaction_dynamic_level_bytes = false;
        o->write_buffer_size = 512 << 10;
        o->target_file_size_base = 256 << 10;
        o->max_bytes_for_level_base = 1 << 20;
        o->max_bytes_for_level_multiplier = 4;
      },
      hybrid_options);
  std::unique_ptr<DB> db;
  ASSERT_OK(OpenDb(options, dir.path(), &db));
  Model model;
  ASSERT_OK(PutAndFlush(db.get(), &model, 0, 150000, 0, 104));
  ASSERT_OK(db->WaitForCompact(WaitForCompactOptions()));
  EXPECT_TRUE(MatchesModel(db.get(), model));
  EXPECT_TRUE(NoPointersAtOrBelowMinusTwo(db.get())) << "after the load";
  ASSERT_OK(CompactAll(db.get()));
  ASSERT_OK(db->WaitForCompact(WaitForCompactOptions()));
  EXPECT_TRUE(MatchesModel(db.get(), model));
  EXPECT_TRUE(NoPointersAtOrBelowMinusTwo(db.get()))
      << "after a full compaction";
  if (hybrid()) {  // the load did separate values, or this tested nothing
    HybridStatistics stats;
    ASSERT_OK(GetStatistics(db.get(), &stats));
    EXPECT_GT(stats.medium_values_extracted, 100000u) << stats.ToString();
  }
}

// A user compacts L0 files with CompactFiles straight into the last level,
// then newer ones into a middle level.
TEST_P(HostileTest, CompactFilesIntoChosenLevels) {
  test::ScratchDir dir("compactfiles");
  Options options = MakeOptions([](Options* o) {
    o->disable_auto_compactions = true;
    o->num_levels = 7;
  });
  std::unique_ptr<DB> db;
  ASSERT_OK(OpenDb(options, dir.path(), &db));
  Model model;
  ASSERT_OK(PutAndFlush(db.get(), &model, 0, 300, 0));
  ASSERT_OK(
      db->CompactFiles(CompactionOptions(), test::FilesAt(db.get(), 0), 6));
  EXPECT_TRUE(MatchesModel(db.get(), model));
  ASSERT_OK(PutAndFlush(db.get(), &model, 0, 150, 1));
  ASSERT_OK(
      db->CompactFiles(CompactionOptions(), test::FilesAt(db.get(), 0), 3));
  EXPECT_TRUE(MatchesModel(db.get(), model));
  ASSERT_OK(
      db->CompactFiles(CompactionOptions(), test::FilesAt(db.get(), 3), 5));
  EXPECT_TRUE(MatchesModel(db.get(), model));
  ASSERT_OK(CompactAll(db.get()));
  EXPECT_TRUE(MatchesModel(db.get(), model));
}

// --- Reads across compactions

// A user takes a snapshot, overwrites and compacts twice: the snapshot still
// reads the old values; after its release a compaction keeps the new ones.
TEST_P(HostileTest, SnapshotReadsOldValuesAcrossCompactions) {
  test::ScratchDir dir("snapshot");
  Options options = MakeOptions();
  std::unique_ptr<DB> db;
  ASSERT_OK(OpenDb(options, dir.path(), &db));
  Model old_model;
  ASSERT_OK(PutAndFlush(db.get(), &old_model, 0, 300, 0));
  const Snapshot* snapshot = db->GetSnapshot();
  Model model = old_model;
  for (int version = 1; version <= 2; ++version) {
    ASSERT_OK(PutAndFlush(db.get(), &model, 0, 300, version));
    ASSERT_OK(CompactAll(db.get()));
  }
  EXPECT_TRUE(MatchesModel(db.get(), old_model, nullptr, snapshot));
  EXPECT_TRUE(MatchesModel(db.get(), model));
  db->ReleaseSnapshot(snapshot);
  ASSERT_OK(CompactAll(db.get()));
  EXPECT_TRUE(MatchesModel(db.get(), model));
}

// A user keeps an iterator open while overwriting and compacting everything
// twice: it still yields the old values; after Refresh, the new ones.
TEST_P(HostileTest, OpenIteratorAcrossCompactionsThenRefresh) {
  test::ScratchDir dir("iterator");
  Options options = MakeOptions();
  std::unique_ptr<DB> db;
  ASSERT_OK(OpenDb(options, dir.path(), &db));
  Model old_model;
  ASSERT_OK(PutAndFlush(db.get(), &old_model, 0, 300, 0));
  std::unique_ptr<Iterator> it(db->NewIterator(ReadOptions()));
  Model model = old_model;
  for (int version = 1; version <= 2; ++version) {
    ASSERT_OK(PutAndFlush(db.get(), &model, 0, 300, version));
    ASSERT_OK(CompactAll(db.get()));
  }
  ASSERT_OK(db->WaitForCompact(WaitForCompactOptions()));
  it->SeekToFirst();
  auto seen = Drain(it.get(), true);
  EXPECT_EQ(seen, Entries(old_model.begin(), old_model.end()));
  ASSERT_OK(it->Refresh());
  it->SeekToFirst();
  seen = Drain(it.get(), true);
  EXPECT_EQ(seen, Entries(model.begin(), model.end()));
}

// A user deletes a range of flushed medium values, reinserts a few keys in
// it, and compacts.
TEST_P(HostileTest, DeleteRangeOverMediumValues) {
  test::ScratchDir dir("deleterange");
  Options options = MakeOptions();
  std::unique_ptr<DB> db;
  ASSERT_OK(OpenDb(options, dir.path(), &db));
  Model model;
  ASSERT_OK(PutAndFlush(db.get(), &model, 0, 400, 0));
  ASSERT_OK(db->DeleteRange(WriteOptions(), db->DefaultColumnFamily(),
                            KeyOf(100), KeyOf(300)));
  for (int i = 100; i < 300; ++i) {
    model.erase(KeyOf(i));
  }
  EXPECT_TRUE(MatchesModel(db.get(), model));
  ASSERT_OK(db->Flush(FlushOptions()));
  ASSERT_OK(PutRange(db.get(), &model, 150, 10, 1));
  ExpectModelThroughFlushAndCompaction(db.get(), model);
  ASSERT_OK(OpenDb(options, dir.path(), &db));
  EXPECT_TRUE(MatchesModel(db.get(), model));
}

// A user deletes flushed medium values with SingleDelete, compacts, and writes
// some of the keys again.
TEST_P(HostileTest, SingleDeleteOverMediumValues) {
  test::ScratchDir dir("singledelete");
  Options options = MakeOptions();
  std::unique_ptr<DB> db;
  ASSERT_OK(OpenDb(options, dir.path(), &db));
  Model model;
  ASSERT_OK(PutAndFlush(db.get(), &model, 0, 100, 0));
  for (int i = 0; i < 50; ++i) {
    ASSERT_OK(db->SingleDelete(WriteOptions(), KeyOf(i)));
    model.erase(KeyOf(i));
  }
  EXPECT_TRUE(MatchesModel(db.get(), model));
  ASSERT_OK(db->Flush(FlushOptions()));
  EXPECT_TRUE(MatchesModel(db.get(), model));
  ASSERT_OK(CompactAll(db.get()));
  EXPECT_TRUE(MatchesModel(db.get(), model));
  ASSERT_OK(PutAndFlush(db.get(), &model, 0, 10, 1));
  ASSERT_OK(CompactAll(db.get()));
  EXPECT_TRUE(MatchesModel(db.get(), model));
}

// "g<group>-<i>": 4-byte prefixes "g07-" group the keys.
std::string GroupKey(int i) {
  char buf[16];
  snprintf(buf, sizeof(buf), "g%02d-%04d", i % 12, i);
  return buf;
}

// A user scans values of all classes, spread over the memtable and several
// levels, forward and backward, within bounds, from seeks, and by prefix.
TEST_P(HostileTest, IteratorsWithBoundsReversePrefix) {
  test::ScratchDir dir("iterators");
  Options options = MakeOptions([](Options* o) {
    o->prefix_extractor.reset(NewFixedPrefixTransform(4));
  });
  std::unique_ptr<DB> db;
  ASSERT_OK(OpenDb(options, dir.path(), &db));
  const size_t kSizes[] = {40, 300, 300, 1200, 96, 999};
  Model model;
  for (int round = 0; round < 3; ++round) {
    for (int i = round; i < 600; i += 3) {
      const std::string key = GroupKey(i);
      model[key] = MakeValue(key, round, kSizes[i % 6]);
      ASSERT_OK(db->Put(WriteOptions(), key, model[key]));
    }
    if (round == 0) {
      ASSERT_OK(CompactAll(db.get()));
    } else if (round == 1) {
      ASSERT_OK(db->Flush(FlushOptions()));
    }
  }
  for (int i = 0; i < 600; i += 7) {
    ASSERT_OK(db->Delete(WriteOptions(), GroupKey(i)));
    model.erase(GroupKey(i));
  }
  auto expect_scan = [&](const ReadOptions& ro, const std::string& seek,
                         bool forward, const Entries& want) {
    std::unique_ptr<Iterator> it(db->NewIterator(ro));
    if (forward) {
      seek.empty() ? it->SeekToFirst() : it->Seek(seek);
    } else {
      seek.empty() ? it->SeekToLast() : it->SeekForPrev(seek);
    }
    Entries got = Drain(it.get(), forward);
    EXPECT_EQ(got.size(), want.size()) << "seek " << seek;
    EXPECT_TRUE(got == want) << "seek " << seek << (forward ? " fwd" : " rev");
  };
  const Entries all(model.begin(), model.end());
  const Entries all_reversed(all.rbegin(), all.rend());
  ReadOptions plain;
  plain.total_order_seek = true;
  expect_scan(plain, "", true, all);
  expect_scan(plain, "", false, all_reversed);

  const std::string lower = "g03-0100", upper = "g05-0300";
  Slice lo(lower), up(upper);
  ReadOptions bounded;
  bounded.total_order_seek = true;
  bounded.iterate_lower_bound = &lo;
  bounded.iterate_upper_bound = &up;
  const Entries in_bounds(model.lower_bound(lower), model.lower_bound(upper));
  expect_scan(bounded, "", true, in_bounds);
  expect_scan(bounded, "", false,
              Entries(in_bounds.rbegin(), in_bounds.rend()));
  expect_scan(bounded, "g04-0000", true,
              Entries(model.lower_bound("g04-0000"), model.lower_bound(upper)));
  expect_scan(bounded, "g04-0000", false,
              Entries(std::make_reverse_iterator(model.upper_bound("g04-0000")),
                      std::make_reverse_iterator(model.lower_bound(lower))));

  ReadOptions prefix;
  prefix.prefix_same_as_start = true;
  expect_scan(prefix, "g07-", true,
              Entries(model.lower_bound("g07-"), model.lower_bound("g08-")));
  expect_scan(
      prefix, "g07-0300", true,
      Entries(model.lower_bound("g07-0300"), model.lower_bound("g08-")));
}

// A user reads values of every size (0 to 4000 bytes, the class boundaries
// included) from the memtable, L0 and deeper levels with both MultiGet APIs,
// with and without async_io.
TEST_P(HostileTest, MultiGetMixingSizes) {
  test::ScratchDir dir("multiget");
  Options options = MakeOptions();
  std::unique_ptr<DB> db;
  ASSERT_OK(OpenDb(options, dir.path(), &db));
  const size_t kSizes[] = {0,   1,   50,  95,   96,   97,
                           300, 998, 999, 1000, 1001, 4000};
  Model model;
  for (int phase = 0; phase < 3; ++phase) {
    for (int i = phase; i < 240; i += 3) {
      const std::string key = KeyOf(i * 2);  // odd numbers are missing
      model[key] = MakeValue(key, phase, kSizes[i % 12]);
      ASSERT_OK(db->Put(WriteOptions(), key, model[key]));
    }
    if (phase == 0) {
      ASSERT_OK(CompactAll(db.get()));
    } else if (phase == 1) {
      ASSERT_OK(db->Flush(FlushOptions()));
    }
  }
  std::vector<std::string> keys;
  for (int i = 0; i < 480; ++i) {
    keys.push_back(KeyOf(i));
  }
  std::vector<Slice> slices(keys.begin(), keys.end());
  auto expect_entry = [&](size_t i, const Status& s, const Slice& value) {
    auto found = model.find(keys[i]);
    if (found == model.end()) {
      EXPECT_TRUE(s.IsNotFound()) << keys[i] << ": " << s.ToString();
    } else {
      ASSERT_OK(s) << keys[i];
      EXPECT_EQ(value.ToString(), found->second) << keys[i];
    }
  };
  std::vector<std::string> values;
  std::vector<Status> statuses = db->MultiGet(ReadOptions(), slices, &values);
  for (size_t i = 0; i < keys.size(); ++i) {
    expect_entry(i, statuses[i], values[i]);
  }
  for (bool async : {false, true}) {
    SCOPED_TRACE(async ? "async_io" : "sync");
    ReadOptions ro;
    ro.async_io = async;
    ro.optimize_multiget_for_io = async;
    ro.fill_cache = !async;
    std::vector<PinnableSlice> pinned(keys.size());
    std::vector<Status> batch_statuses(keys.size());
    db->MultiGet(ro, db->DefaultColumnFamily(), keys.size(), slices.data(),
                 pinned.data(), batch_statuses.data(), /*sorted_input=*/true);
    for (size_t i = 0; i < keys.size(); ++i) {
      expect_entry(i, batch_statuses[i], pinned[i]);
    }
  }
  EXPECT_TRUE(MatchesModel(db.get(), model));
}

// --- Transactions

// A user runs pessimistic transactions over flushed medium values: a locked
// key times out for the second transaction, commits land, and a
// snapshot-validated GetForUpdate sees a later write as a conflict.
TEST_P(HostileTest, PessimisticTransactionsOverMediumValues) {
  test::ScratchDir dir("txn");
  Options options = MakeOptions();
  TransactionDBOptions txn_options;
  txn_options.transaction_lock_timeout = 10;  // ms
  TransactionDB* raw = nullptr;
  ASSERT_OK(TransactionDB::Open(options, txn_options, dir.path(), &raw));
  std::unique_ptr<TransactionDB> db(raw);
  Model model;
  ASSERT_OK(PutAndFlush(db.get(), &model, 0, 100, 0));

  std::unique_ptr<Transaction> t1(db->BeginTransaction(WriteOptions()));
  std::unique_ptr<Transaction> t2(db->BeginTransaction(WriteOptions()));
  std::string value;
  ASSERT_OK(t1->GetForUpdate(ReadOptions(), KeyOf(1), &value));
  EXPECT_EQ(value, model[KeyOf(1)]);
  Status s = t2->GetForUpdate(ReadOptions(), KeyOf(1), &value);
  EXPECT_TRUE(s.IsTimedOut()) << s.ToString();
  ASSERT_OK(t2->GetForUpdate(ReadOptions(), KeyOf(2), &value));
  EXPECT_EQ(value, model[KeyOf(2)]);
  ASSERT_OK(t1->Put(KeyOf(1), MakeValue(KeyOf(1), 1)));
  ASSERT_OK(t2->Put(KeyOf(2), MakeValue(KeyOf(2), 1)));
  ASSERT_OK(t1->Commit());
  ASSERT_OK(t2->Commit());
  model[KeyOf(1)] = MakeValue(KeyOf(1), 1);
  model[KeyOf(2)] = MakeValue(KeyOf(2), 1);

  TransactionOptions with_snapshot;
  with_snapshot.set_snapshot = true;
  std::unique_ptr<Transaction> t3(
      db->BeginTransaction(WriteOptions(), with_snapshot));
  ASSERT_OK(db->Put(WriteOptions(), KeyOf(3), MakeValue(KeyOf(3), 2)));
  ReadOptions at_snapshot;
  at_snapshot.snapshot = t3->GetSnapshot();
  ASSERT_OK(t3->Get(at_snapshot, KeyOf(3), &value));
  EXPECT_EQ(value, model[KeyOf(3)]);  // the old, flushed value
  s = t3->GetForUpdate(ReadOptions(), KeyOf(3), &value);
  EXPECT_TRUE(s.IsBusy()) << s.ToString();
  ASSERT_OK(t3->Rollback());
  model[KeyOf(3)] = MakeValue(KeyOf(3), 2);
  t1.reset();
  t2.reset();
  t3.reset();
  ExpectModelThroughFlushAndCompaction(db.get(), model);
}

// A user runs optimistic transactions over flushed medium values: a write
// from outside makes the commit fail with Busy; a clean one commits.
TEST_P(HostileTest, OptimisticTransactionsOverMediumValues) {
  test::ScratchDir dir("optimistic");
  Options options = MakeOptions();
  OptimisticTransactionDB* raw = nullptr;
  ASSERT_OK(OptimisticTransactionDB::Open(options, dir.path(), &raw));
  std::unique_ptr<OptimisticTransactionDB> db(raw);
  Model model;
  ASSERT_OK(PutAndFlush(db.get(), &model, 0, 100, 0));

  std::unique_ptr<Transaction> t1(db->BeginTransaction(WriteOptions()));
  std::string value;
  ASSERT_OK(t1->GetForUpdate(ReadOptions(), KeyOf(5), &value));
  EXPECT_EQ(value, model[KeyOf(5)]);
  ASSERT_OK(db->Put(WriteOptions(), KeyOf(5), MakeValue(KeyOf(5), 1)));
  model[KeyOf(5)] = MakeValue(KeyOf(5), 1);
  ASSERT_OK(t1->Put(KeyOf(5), MakeValue(KeyOf(5), 2)));
  Status s = t1->Commit();
  EXPECT_TRUE(s.IsBusy()) << s.ToString();

  std::unique_ptr<Transaction> t2(db->BeginTransaction(WriteOptions()));
  ASSERT_OK(t2->GetForUpdate(ReadOptions(), KeyOf(6), &value));
  EXPECT_EQ(value, model[KeyOf(6)]);
  ASSERT_OK(t2->Put(KeyOf(6), MakeValue(KeyOf(6), 2)));
  ASSERT_OK(t2->Commit());
  model[KeyOf(6)] = MakeValue(KeyOf(6), 2);
  t1.reset();
  t2.reset();
  ExpectModelThroughFlushAndCompaction(db.get(), model);
}

// A user writes with WriteBatch::TimedPut (write times in the past, with
// preserve_internal_time_seconds set, so SSTs keep the write time) values of
// every class, flushes, compacts and reopens.
TEST_P(HostileTest, TimedPutValuesReadBack) {
  test::ScratchDir dir("timedput");
  Options options =
      MakeOptions([](Options* o) { o->preserve_internal_time_seconds = 3600; });
  std::unique_ptr<DB> db;
  ASSERT_OK(OpenDb(options, dir.path(), &db));
  const uint64_t now = static_cast<uint64_t>(std::time(nullptr));
  const size_t kSizes[] = {40, 300, 1500};
  Model model;
  WriteBatch batch;
  for (int i = 0; i < 150; ++i) {
    const std::string key = KeyOf(i);
    model[key] = MakeValue(key, 0, kSizes[i % 3]);
    ASSERT_OK(
        batch.TimedPut(db->DefaultColumnFamily(), key, model[key], now - 600));
  }
  ASSERT_OK(db->Write(WriteOptions(), &batch));
  EXPECT_TRUE(MatchesModel(db.get(), model));
  ASSERT_OK(db->Flush(FlushOptions()));
  EXPECT_TRUE(MatchesModel(db.get(), model));
  ASSERT_OK(CompactAll(db.get()));
  EXPECT_TRUE(MatchesModel(db.get(), model));
  ASSERT_OK(OpenDb(options, dir.path(), &db));
  EXPECT_TRUE(MatchesModel(db.get(), model));
}

// --- Column families, paths, directories

// A user creates a column family at runtime with options built the same way,
// fills both, compacts, reopens, drops it and reopens again.
TEST_P(HostileTest, ColumnFamilyCreatedAtRuntime) {
  test::ScratchDir dir("cf");
  Options options = MakeOptions();
  std::unique_ptr<DB> db;
  ASSERT_OK(OpenDb(options, dir.path(), &db));
  ColumnFamilyHandle* extra = nullptr;
  ASSERT_OK(
      db->CreateColumnFamily(ColumnFamilyOptions(options), "extra", &extra));
  Model model, extra_model;
  ASSERT_OK(PutRange(db.get(), &model, 0, 200, 0));
  ASSERT_OK(PutRange(db.get(), &extra_model, 100, 200, 1, kMedium, extra));
  ASSERT_OK(db->Flush(FlushOptions()));
  ASSERT_OK(db->Flush(FlushOptions(), extra));
  ASSERT_OK(CompactAll(db.get(), extra));
  EXPECT_TRUE(MatchesModel(db.get(), model));
  EXPECT_TRUE(MatchesModel(db.get(), extra_model, extra));
  ASSERT_OK(db->DestroyColumnFamilyHandle(extra));
  db.reset();

  std::vector<ColumnFamilyDescriptor> families = {
      {kDefaultColumnFamilyName, ColumnFamilyOptions(options)},
      {"extra", ColumnFamilyOptions(options)}};
  std::vector<ColumnFamilyHandle*> handles;
  DB* raw = nullptr;
  ASSERT_OK(hybridkv::OpenDB(DBOptions(options), dir.path(), families, &handles,
                             &raw));
  db.reset(raw);
  EXPECT_TRUE(MatchesModel(db.get(), model, handles[0]));
  EXPECT_TRUE(MatchesModel(db.get(), extra_model, handles[1]));
  ASSERT_OK(PutRange(db.get(), &extra_model, 0, 150, 2, kMedium, handles[1]));
  ASSERT_OK(db->Flush(FlushOptions(), handles[1]));
  ASSERT_OK(CompactAll(db.get(), handles[1]));
  EXPECT_TRUE(MatchesModel(db.get(), extra_model, handles[1]));
  ASSERT_OK(db->DropColumnFamily(handles[1]));
  for (auto* h : handles) {
    ASSERT_OK(db->DestroyColumnFamilyHandle(h));
  }
  ASSERT_OK(CompactAll(db.get()));
  ASSERT_OK(OpenDb(options, dir.path(), &db));
  EXPECT_TRUE(MatchesModel(db.get(), model));
}

// A user opens the same DB under several spellings of its path (trailing
// "/", "//", "./"), writing, flushing and compacting under each.
TEST_P(HostileTest, ReopenUnderOddPathSpellings) {
  test::ScratchDir dir("paths");
  Options options = MakeOptions();
  const std::string root = dir.path();
  const std::string spellings[] = {root + "/db",   root + "/db/",
                                   root + "//db",  root + "/./db",
                                   root + "/db//", root + "/db/."};
  Model model;
  int version = 0;
  for (const std::string& path : spellings) {
    SCOPED_TRACE(path);
    std::unique_ptr<DB> db;
    ASSERT_OK(OpenDb(options, path, &db));
    EXPECT_TRUE(MatchesModel(db.get(), model));
    ASSERT_OK(PutAndFlush(db.get(), &model, version * 40, 200, version));
    if (version % 2 == 1) {
      ASSERT_OK(CompactAll(db.get()));
    }
    EXPECT_TRUE(MatchesModel(db.get(), model));
    ++version;
  }
  std::unique_ptr<DB> db;
  ASSERT_OK(OpenDb(options, root + "/db", &db));
  EXPECT_TRUE(MatchesModel(db.get(), model));
}

// A user destroys a DB with RocksDB's DestroyDB and creates a new one in the
// same directory: only the new DB's values are there.
TEST_P(HostileTest, DestroyDbThenReuseTheDirectory) {
  test::ScratchDir dir("destroy");
  Options options = MakeOptions();
  const std::string path = dir.Sub("db");
  {
    std::unique_ptr<DB> db;
    ASSERT_OK(OpenDb(options, path, &db));
    Model old_model;
    ASSERT_OK(PutAndFlush(db.get(), &old_model, 0, 300, 0));
  }
  ASSERT_OK(ROCKSDB_NAMESPACE::DestroyDB(path, options));  // RocksDB's own
  std::unique_ptr<DB> db;
  ASSERT_OK(OpenDb(options, path, &db));
  Model model;
  ASSERT_OK(PutAndFlush(db.get(), &model, 0, 200, 1));
  EXPECT_TRUE(MatchesModel(db.get(), model));
  ASSERT_OK(PutAndFlush(db.get(), &model, 100, 200, 2));
  ASSERT_OK(CompactAll(db.get()));
  EXPECT_TRUE(MatchesModel(db.get(), model));
  ASSERT_OK(OpenDb(options, path, &db));
  EXPECT_TRUE(MatchesModel(db.get(), model));
}

// --- Odd bytes

// A user stores values that are empty, start with 0xB1 or other tag-like
// bytes, are all 0x00 or 0xFF, or sit on the class boundaries (95/96/999/1000
// bytes), under keys that are empty or hold 0xFF and NUL bytes.
TEST_P(HostileTest, OddValueBytesAndKeyBytes) {
  test::ScratchDir dir("oddbytes");
  Options options = MakeOptions();
  std::unique_ptr<DB> db;
  ASSERT_OK(OpenDb(options, dir.path(), &db));
  auto bytes = [](std::initializer_list<unsigned char> head, size_t size,
                  char fill) {
    std::string s(head.begin(), head.end());
    s.resize(size, fill);
    return s;
  };
  const std::vector<std::string> values = {
      "",
      "\xB1",
      bytes({0xB1}, 300, 'x'),
      bytes({0xB1, 0x01, 0x00}, 96, '\0'),
      bytes({0xB1, 0x02}, 999, '\xFF'),
      bytes({0x00}, 300, '\0'),
      bytes({0xFF}, 300, '\xFF'),
      bytes({0x01}, 300, '\x01'),
      bytes({0x02, 0x80, 0x80}, 300, '\x80'),
      std::string(95, 'x'),
      std::string(96, 'x'),
      std::string(999, 'x'),
      std::string(1000, 'x'),
      bytes({0xB1}, 1000, '\xB1'),
  };
  const std::vector<std::string> keys = {
      "",
      "\xFF",
      "\xFF\xFF\xFF",
      std::string("k\0\xFF", 3),
      std::string("\0", 1),
      "\xB1",
      "k\xFF"
      "a",
      "k\xFF"
      "b",
      "plain",
      std::string(200, '\xFF'),
      "z",
      "\x01",
      "\x7F",
      "\x80",
  };
  ASSERT_EQ(keys.size(), values.size());
  Model model;
  for (size_t i = 0; i < keys.size(); ++i) {
    model[keys[i]] = values[i];
    ASSERT_OK(db->Put(WriteOptions(), keys[i], values[i]));
    // The same value under a regular key too, so each class holds several.
    model[KeyOf(static_cast<int>(i))] = values[i];
    ASSERT_OK(db->Put(WriteOptions(), KeyOf(static_cast<int>(i)), values[i]));
  }
  EXPECT_TRUE(MatchesModel(db.get(), model));
  ASSERT_OK(db->Flush(FlushOptions()));
  EXPECT_TRUE(MatchesModel(db.get(), model));
  ASSERT_OK(CompactAll(db.get()));
  EXPECT_TRUE(MatchesModel(db.get(), model));
  ASSERT_OK(OpenDb(options, dir.path(), &db));
  EXPECT_TRUE(MatchesModel(db.get(), model));
  ASSERT_OK(db->VerifyChecksum());
}

std::string ArmName(const testing::TestParamInfo<Arm>& info) {
  return info.param == Arm::kStock ? "Stock" : "Hybrid";
}

INSTANTIATE_TEST_SUITE_P(Arms, HostileTest,
                         testing::Values(Arm::kStock, Arm::kHybrid), ArmName);

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
