// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// Differential tests: every scenario runs against a stock BlockBasedTable DB
// and a HybridTable DB with otherwise identical options, and every read is
// recorded in a transcript. The transcripts must be identical, and each
// scenario also checks a few expected values directly, so that a bug shared by
// both arms (i.e. in the test) still fails.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "hybridkv/hybridkv.h"
#include "plugin/hybridkv/blob/io/rocksdb_compat.h"
#include "rocksdb/db.h"
#include "test_util.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

using test::Arm;
using test::GroupedKey;
using test::StockOrHybridOptions;
using test::VersionedValue;

// A transcript of every read a scenario makes; compared across arms.
class Transcript {
 public:
  void Record(const std::string& what, const Status& s,
              const std::string& value) {
    lines_.push_back(what + " -> " + (s.ok() ? "OK " + value : s.ToString()));
  }
  void Record(const std::string& line) { lines_.push_back(line); }
  const std::vector<std::string>& lines() const { return lines_; }

 private:
  std::vector<std::string> lines_;
};

class DifferentialTest : public testing::Test {
 protected:
  using Scenario = std::function<void(DB*, Transcript*)>;

  // Runs `scenario` on a fresh DB of each arm and asserts the transcripts
  // match. Returns the (shared) transcript for direct checks.
  std::vector<std::string> RunBoth(
      const std::string& name, const Scenario& scenario,
      const std::function<void(Options*)>& tweak = {}) {
    std::vector<std::string> transcripts[2];
    for (Arm arm : {Arm::kStock, Arm::kHybrid}) {
      test::ScratchDir dir(name + (arm == Arm::kStock ? "-stock" : "-hybrid"));
      Options options = StockOrHybridOptions(arm);
      if (tweak) tweak(&options);
      DB* raw = nullptr;
      EXPECT_OK(hybridkv::OpenDB(options, dir.path(), &raw));
      if (raw == nullptr) return {};
      std::unique_ptr<DB> db(raw);
      EXPECT_STREQ(db->GetOptions().table_factory->Name(),
                   arm == Arm::kStock ? "BlockBasedTable" : "HybridTable");
      Transcript t;
      scenario(db.get(), &t);
      EXPECT_OK(db->VerifyChecksum());
      for (const auto& kv : test::ScanAll(db.get())) {
        t.Record("final " + kv.first + "=" + kv.second);
      }
      transcripts[arm == Arm::kStock ? 0 : 1] = t.lines();
    }
    // Report the first difference, not two whole transcripts.
    const auto& a = transcripts[0];
    const auto& b = transcripts[1];
    size_t i = 0;
    while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
    EXPECT_TRUE(i == a.size() && i == b.size())
        << "transcripts differ at line " << i << " of " << a.size() << "/"
        << b.size() << "\n  stock:  " << (i < a.size() ? a[i] : "<end>")
        << "\n  hybrid: " << (i < b.size() ? b[i] : "<end>");
    EXPECT_GT(a.size(), 0u);
    return transcripts[1];
  }
};

void Get(DB* db, const std::string& key, Transcript* t,
         const Snapshot* snap = nullptr) {
  ReadOptions ro;
  ro.snapshot = snap;
  std::string value;
  Status s = db->Get(ro, key, &value);
  t->Record("get " + key, s, value);
}

// Writes `n` keys in three rounds with flushes and compactions between them, so
// values live in the memtable, in L0, and in deeper levels.
void LoadLayers(DB* db, int n) {
  for (int round = 0; round < 3; ++round) {
    for (int i = round; i < n; i += 3) {
      ASSERT_OK(
          db->Put(WriteOptions(), GroupedKey(i), VersionedValue(i, round)));
    }
    if (round == 0) {
      ASSERT_OK(db->CompactRange(CompactRangeOptions(), nullptr, nullptr));
    } else if (round == 1) {
      ASSERT_OK(db->Flush(FlushOptions()));
    }
  }
}

TEST_F(DifferentialTest, PutGetDeleteSingleDeleteDeleteRangeMerge) {
  auto lines = RunBoth("ops", [](DB* db, Transcript* t) {
    LoadLayers(db, 3000);
    WriteOptions wo;
    for (int i = 0; i < 3000; i += 11) ASSERT_OK(db->Delete(wo, GroupedKey(i)));
    ASSERT_OK(db->Put(wo, "sd-key", "once"));
    ASSERT_OK(db->Flush(FlushOptions()));
    ASSERT_OK(db->SingleDelete(wo, "sd-key"));
    ASSERT_OK(db->DeleteRange(wo, db->DefaultColumnFamily(), GroupedKey(500),
                              GroupedKey(900)));
    ASSERT_OK(db->Flush(FlushOptions()));
    for (int i = 0; i < 50; ++i) {
      ASSERT_OK(db->Merge(wo, "merge-key", "m" + std::to_string(i)));
      if (i == 20) {
        ASSERT_OK(db->Flush(FlushOptions()));
      }
    }
    for (int i = 0; i < 3000; i += 7) Get(db, GroupedKey(i), t);
    Get(db, "sd-key", t);
    Get(db, "merge-key", t);
    ASSERT_OK(db->CompactRange(CompactRangeOptions(), nullptr, nullptr));
    for (int i = 0; i < 3000; i += 7) Get(db, GroupedKey(i), t);
    Get(db, "sd-key", t);
    Get(db, "merge-key", t);
  });
  // Direct checks, independent of the stock arm.
  auto has = [&](const std::string& line) {
    return std::find(lines.begin(), lines.end(), line) != lines.end();
  };
  EXPECT_TRUE(has("get " + GroupedKey(0) + " -> NotFound: "));  // deleted
  EXPECT_TRUE(has("get " + GroupedKey(7) + " -> OK " + VersionedValue(7, 1)));
  EXPECT_TRUE(has("get " + GroupedKey(504) +
                  " -> NotFound: "));  // inside the deleted range
  EXPECT_TRUE(has("get sd-key -> NotFound: "));
  std::string merged = "m0";
  for (int i = 1; i < 50; ++i) merged += ",m" + std::to_string(i);
  EXPECT_TRUE(has("get merge-key -> OK " + merged));
}

void ScanWith(DB* db, Transcript* t, const ReadOptions& ro,
              const std::string& label, const std::string& seek, bool reverse) {
  std::unique_ptr<Iterator> it(db->NewIterator(ro));
  int n = 0;
  if (reverse) {
    seek.empty() ? it->SeekToLast() : it->SeekForPrev(seek);
  } else {
    seek.empty() ? it->SeekToFirst() : it->Seek(seek);
  }
  for (; it->Valid() && n < 400; reverse ? it->Prev() : it->Next(), ++n) {
    t->Record(label + " " + it->key().ToString() + "=" +
              it->value().ToString());
  }
  t->Record(label + " end: " + it->status().ToString());
}

TEST_F(DifferentialTest, IteratorsForwardReverseBoundsPrefix) {
  auto lines = RunBoth("iter", [](DB* db, Transcript* t) {
    LoadLayers(db, 4000);
    ASSERT_OK(db->DeleteRange(WriteOptions(), db->DefaultColumnFamily(),
                              GroupedKey(40), GroupedKey(60)));
    ReadOptions plain;
    ScanWith(db, t, plain, "fwd", "", false);
    ScanWith(db, t, plain, "rev", "", true);
    ScanWith(db, t, plain, "fwd-seek", GroupedKey(1234), false);
    ScanWith(db, t, plain, "rev-seek", GroupedKey(1234), true);

    std::string lower = GroupedKey(2000), upper = GroupedKey(2600);
    Slice lo(lower), up(upper);
    ReadOptions bounded;
    bounded.iterate_lower_bound = &lo;
    bounded.iterate_upper_bound = &up;
    ScanWith(db, t, bounded, "bounded-fwd", "", false);
    ScanWith(db, t, bounded, "bounded-rev", "", true);
    ScanWith(db, t, bounded, "bounded-seek", GroupedKey(100), false);

    ReadOptions prefix;
    prefix.prefix_same_as_start = true;
    ScanWith(db, t, prefix, "prefix k017", "k017", false);
    ScanWith(db, t, prefix, "prefix k050-", "k050-002000", false);
    ReadOptions total;
    total.total_order_seek = true;
    ScanWith(db, t, total, "total-order", "k090", false);
  });
  auto count = [&](const std::string& label) {
    return std::count_if(lines.begin(), lines.end(), [&](const std::string& l) {
      return l.rfind(label + " k", 0) == 0;
    });
  };
  EXPECT_EQ(count("fwd"), 400);
  EXPECT_EQ(count("prefix k017"),
            4000 / 97 + 1);  // every key with that prefix, no more
  EXPECT_GT(count("bounded-fwd"), 0);
}

TEST_F(DifferentialTest, SnapshotsMultiGetVerifyChecksum) {
  auto lines = RunBoth("snap", [](DB* db, Transcript* t) {
    LoadLayers(db, 2000);
    const Snapshot* snap = db->GetSnapshot();
    for (int i = 0; i < 2000; i += 5)
      ASSERT_OK(db->Put(WriteOptions(), GroupedKey(i), VersionedValue(i, 9)));
    for (int i = 1; i < 2000; i += 5)
      ASSERT_OK(db->Delete(WriteOptions(), GroupedKey(i)));
    ASSERT_OK(db->Flush(FlushOptions()));
    ASSERT_OK(db->CompactRange(CompactRangeOptions(), nullptr, nullptr));
    for (int i = 0; i < 40; ++i) {
      Get(db, GroupedKey(i), t, snap);
      Get(db, GroupedKey(i), t);
    }
    std::vector<std::string> keys;
    for (int i = 0; i < 2000; i += 13) keys.push_back(GroupedKey(i));
    keys.push_back("missing");
    std::vector<Slice> slices(keys.begin(), keys.end());
    for (const Snapshot* s : {snap, static_cast<const Snapshot*>(nullptr)}) {
      ReadOptions ro;
      ro.snapshot = s;
      std::vector<PinnableSlice> values(keys.size());
      std::vector<Status> statuses(keys.size());
      db->MultiGet(ro, db->DefaultColumnFamily(), keys.size(), slices.data(),
                   values.data(), statuses.data());
      for (size_t i = 0; i < keys.size(); ++i) {
        t->Record(std::string(s ? "snap-" : "") + "multiget " + keys[i],
                  statuses[i], values[i].ToString());
      }
    }
    for (const auto& kv : test::ScanAll(db, nullptr, snap)) {
      t->Record("snapshot-scan " + kv.first + "=" + kv.second);
    }
    db->ReleaseSnapshot(snap);
    t->Record("verify-checksum " + db->VerifyChecksum().ToString());
  });
  auto has = [&](const std::string& line) {
    return std::find(lines.begin(), lines.end(), line) != lines.end();
  };
  EXPECT_TRUE(has("get " + GroupedKey(1) + " -> OK " +
                  VersionedValue(1, 1)));  // at the snapshot
  EXPECT_TRUE(
      has("get " + GroupedKey(1) + " -> NotFound: "));  // after the delete
  EXPECT_TRUE(has("get " + GroupedKey(5) + " -> OK " + VersionedValue(5, 9)));
  EXPECT_TRUE(has("verify-checksum OK"));
}

TEST_F(DifferentialTest, FlushCompactRangeReopen) {
  for (Arm arm : {Arm::kStock, Arm::kHybrid}) {
    SCOPED_TRACE(arm == Arm::kStock ? "stock" : "hybrid");
    test::ScratchDir dir("reopen");
    Options options = StockOrHybridOptions(arm);
    std::map<std::string, std::string> model;
    for (int cycle = 0; cycle < 4; ++cycle) {
      DB* raw = nullptr;
      ASSERT_OK(hybridkv::OpenDB(options, dir.path(), &raw));
      std::unique_ptr<DB> db(raw);
      for (const auto& kv : model) {
        std::string v;
        ASSERT_OK(db->Get(ReadOptions(), kv.first, &v)) << kv.first;
        ASSERT_EQ(v, kv.second);
      }
      for (int i = cycle; i < 2000; i += 2) {
        model[GroupedKey(i)] = VersionedValue(i, cycle);
        ASSERT_OK(db->Put(WriteOptions(), GroupedKey(i), model[GroupedKey(i)]));
      }
      if (cycle % 2 == 0) {
        ASSERT_OK(db->Flush(FlushOptions()));
      }
      if (cycle == 2) {
        ASSERT_OK(db->CompactRange(CompactRangeOptions(), nullptr, nullptr));
      }
      // cycle 1 and 3 close with data only in the WAL: reopen recovers it
      ASSERT_OK(db->VerifyChecksum());
      ASSERT_OK(db->Close());
    }
    EXPECT_FALSE(test::FilesWithSuffix(dir.path(), ".sst").empty());
  }
}

TEST_F(DifferentialTest, ColumnFamilies) {
  for (Arm arm : {Arm::kStock, Arm::kHybrid}) {
    SCOPED_TRACE(arm == Arm::kStock ? "stock" : "hybrid");
    test::ScratchDir dir("cf");
    Options options = StockOrHybridOptions(arm);
    // Each CF has its own factory; "plain" is stock BlockBasedTable next to
    // hybrid ones.
    std::vector<ColumnFamilyDescriptor> cfs = {
        {kDefaultColumnFamilyName, options},
        {"one", options},
        {"two", options},
        {"plain", StockOrHybridOptions(Arm::kStock)}};
    std::vector<ColumnFamilyHandle*> handles;
    std::map<std::string, std::map<std::string, std::string>> model;
    for (int cycle = 0; cycle < 2; ++cycle) {
      DB* raw = nullptr;
      ASSERT_OK(hybridkv::OpenDB(DBOptions(options), dir.path(), cfs, &handles,
                                 &raw));
      std::unique_ptr<DB> db(raw);
      for (size_t c = 0; c < handles.size(); ++c) {
        for (int i = 0; i < 1500; ++i) {
          std::string v = VersionedValue(i, static_cast<int>(c * 10 + cycle));
          ASSERT_OK(db->Put(WriteOptions(), handles[c], GroupedKey(i), v));
          model[cfs[c].name][GroupedKey(i)] = v;
        }
        ASSERT_OK(db->Flush(FlushOptions(), handles[c]));
        ASSERT_OK(db->CompactRange(CompactRangeOptions(), handles[c], nullptr,
                                   nullptr));
      }
      for (size_t c = 0; c < handles.size(); ++c) {
        auto scanned = test::ScanAll(db.get(), handles[c]);
        std::vector<std::pair<std::string, std::string>> expected(
            model[cfs[c].name].begin(), model[cfs[c].name].end());
        ASSERT_EQ(scanned, expected) << cfs[c].name;
        std::string v;
        ASSERT_OK(db->Get(ReadOptions(), handles[c], GroupedKey(77), &v));
        EXPECT_EQ(v, model[cfs[c].name][GroupedKey(77)]);
      }
      ASSERT_OK(db->VerifyChecksum());
      for (auto* h : handles) ASSERT_OK(db->DestroyColumnFamilyHandle(h));
      handles.clear();
      ASSERT_OK(db->Close());
    }
  }
}

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
