// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// Medium files live exactly as long as something can read them: an SST, a
// snapshot's old Version, an open iterator. Then they go, within seconds,
// without garbage collection. Checks poll with a deadline; they never sleep and
// hope.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include "hybridkv/hybridkv.h"
#include "rocksdb/db.h"
#include "test_util.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

// Polls `done` until it holds or 10 seconds pass.
bool Eventually(const std::function<bool()>& done) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

Options MakeOptions() {
  Options options;
  options.create_if_missing = true;
  EXPECT_OK(ConfigureOptions(&options));
  options.disable_auto_compactions = true;  // the tests decide when files die
  return options;
}

std::unique_ptr<DB> Open(const Options& options, const std::string& path) {
  DB* raw = nullptr;
  EXPECT_OK(DB::Open(options, path, &raw));
  return std::unique_ptr<DB>(raw);
}

std::string Key(int i) { return "key" + std::to_string(100000 + i); }
std::string Medium(int i, int v) {
  return std::string(200, static_cast<char>('a' + (i + v) % 26));
}

void Write(DB* db, int n, int version) {
  for (int i = 0; i < n; ++i)
    ASSERT_OK(db->Put(WriteOptions(), Key(i), Medium(i, version)));
  ASSERT_OK(db->Flush(FlushOptions()));
}

size_t MediumFiles(const std::string& dir) {
  return test::FilesWithSuffix(dir, ".medium").size();
}

void FullCompaction(DB* db) {
  CompactRangeOptions cro;
  cro.bottommost_level_compaction = BottommostLevelCompaction::kForce;
  ASSERT_OK(db->CompactRange(cro, nullptr, nullptr));
}

TEST(LifecycleTest, MediumFilesGoOnceNothingReferencesThem) {
  test::ScratchDir dir("life");
  auto db = Open(MakeOptions(), dir.path());
  Write(db.get(), 1000, 1);
  Write(db.get(), 1000, 2);
  ASSERT_EQ(MediumFiles(dir.path()), 2u);
  FullCompaction(db.get());  // everything inline at the merge level
  EXPECT_TRUE(Eventually([&] { return MediumFiles(dir.path()) == 0; }))
      << MediumFiles(dir.path()) << " medium files left";
  std::string v;
  ASSERT_OK(db->Get(ReadOptions(), Key(7), &v));
  EXPECT_EQ(v, Medium(7, 2));
}

TEST(LifecycleTest, OpenIteratorKeepsMediumFilesAlive) {
  test::ScratchDir dir("pinned");
  auto db = Open(MakeOptions(), dir.path());
  Write(db.get(), 1000, 1);
  // The iterator pins the current Version: the L0 SST, and so its medium file.
  std::unique_ptr<Iterator> it(db->NewIterator(ReadOptions()));
  Write(db.get(), 1000, 2);
  FullCompaction(db.get());
  // The second flush's file is unreferenced now; the first one is still pinned.
  EXPECT_TRUE(Eventually([&] { return MediumFiles(dir.path()) == 1; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  ASSERT_EQ(MediumFiles(dir.path()), 1u);
  int n = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next(), ++n) {
    ASSERT_EQ(it->value().ToString(),
              Medium(n, 1));  // old values, read from the old file
  }
  ASSERT_OK(it->status());
  EXPECT_EQ(n, 1000);
  it.reset();
  EXPECT_TRUE(Eventually([&] { return MediumFiles(dir.path()) == 0; }));
}

TEST(LifecycleTest, ReconciliationDeletesLeftoversOnly) {
  test::ScratchDir dir("reconcile");
  Options options = MakeOptions();
  {
    auto db = Open(options, dir.path());
    Write(db.get(), 1000, 1);  // a live SST and its medium file
    ASSERT_OK(db->Close());
  }
  auto live = test::FilesWithSuffix(dir.path(), ".medium");
  ASSERT_EQ(live.size(), 1u);
  // A crash leftover: a medium file no SST points into.
  { std::ofstream(dir.Sub("999999.medium")) << "left over by a crash"; }
  auto db = Open(options, dir.path());
  Write(db.get(), 10, 2);  // any event lets the listener reconcile
  EXPECT_TRUE(Eventually([&] {
    return test::FilesWithSuffix(dir.path(), ".medium").size() ==
           2;  // live + new flush
  }));
  auto now = test::FilesWithSuffix(dir.path(), ".medium");
  EXPECT_EQ(std::count(now.begin(), now.end(), "999999.medium"), 0);
  EXPECT_EQ(std::count(now.begin(), now.end(), live[0]), 1);
  std::string v;
  ASSERT_OK(db->Get(ReadOptions(), Key(500), &v));
  EXPECT_EQ(v, Medium(500, 1));
}

TEST(LifecycleTest, TwoDbsInOneProcessKeepTheirOwnState) {
  test::ScratchDir a("two-a"), b("two-b");
  auto db_a = Open(MakeOptions(), a.path());
  auto db_b = Open(MakeOptions(), b.path());
  Write(db_a.get(), 500, 1);
  Write(db_b.get(), 500, 1);
  FullCompaction(db_a.get());
  EXPECT_TRUE(Eventually([&] { return MediumFiles(a.path()) == 0; }));
  EXPECT_EQ(MediumFiles(b.path()), 1u);  // untouched
  std::string v;
  ASSERT_OK(db_b->Get(ReadOptions(), Key(3), &v));
  EXPECT_EQ(v, Medium(3, 1));
}

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

TEST(LifecycleTest, CheckpointHoldsMediumFilesAndSecret) {
  test::ScratchDir dir("ckpt-src"), out("ckpt-out");
  const std::string checkpoint = out.Sub("checkpoint");
  Options options = MakeOptions();
  auto db = Open(options, dir.path());
  Write(db.get(), 1000, 1);
  Write(db.get(), 500, 2);
  ASSERT_OK(CreateCheckpoint(db.get(), checkpoint));
  // The source goes on: compacting it deletes its medium files, not the
  // checkpoint's.
  FullCompaction(db.get());
  EXPECT_TRUE(Eventually([&] { return MediumFiles(dir.path()) == 0; }));
  EXPECT_EQ(MediumFiles(checkpoint), 2u);
  auto copy = Open(options, checkpoint);
  for (int i = 0; i < 1000; ++i) {
    std::string v;
    ASSERT_OK(copy->Get(ReadOptions(), Key(i), &v)) << i;
    ASSERT_EQ(v, Medium(i, i < 500 ? 2 : 1));
  }
  // Compactions of the copy verify pointers with the copied secret.
  FullCompaction(copy.get());
  std::string v;
  ASSERT_OK(copy->Get(ReadOptions(), Key(700), &v));
  EXPECT_EQ(v, Medium(700, 1));
  EXPECT_TRUE(Eventually([&] { return MediumFiles(checkpoint) == 0; }));
}

TEST(LifecycleTest, DestroyDbRemovesMediumFilesAndSecret) {
  test::ScratchDir dir("destroy");
  const std::string path = dir.Sub("db");
  Options options = MakeOptions();
  auto db = Open(options, path);
  Write(db.get(), 100, 1);
  ASSERT_GT(MediumFiles(path), 0u);
  Status s = hybridkv::DestroyDB(path, options);  // refused while open
  EXPECT_FALSE(s.ok());
  EXPECT_GT(MediumFiles(path), 0u);
  ASSERT_OK(db->Close());
  db.reset();
  ASSERT_OK(hybridkv::DestroyDB(path, options));
  EXPECT_TRUE(options.env->FileExists(path).IsNotFound());
}

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
