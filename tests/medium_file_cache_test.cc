// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// MediumFileCache (blob/medium/medium_file_cache.h), without a DB: one reader
// per medium file, opened from the first directory that has it, kept while a
// table reader holds it, let go on its last Release, Evict or Clear, and never
// opened twice while a reader of it is alive.
#include "plugin/hybridkv/blob/medium/medium_file_cache.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "test_util.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

class MediumFileCacheTest : public test::MediumFileFixture {
 protected:
  Status Get(uint64_t number, std::shared_ptr<MediumFileReader>* file,
             std::vector<std::string> dirs = {}) {
    if (dirs.empty()) dirs = {dir_.path()};
    return cache_.Get(fs_, dirs, FileOptions(), IOOptions(), number, file);
  }
  // Writes medium file `number` of `n` records to `dir` (the fixture's
  // directory when empty).
  std::vector<MediumRecordHandle> WriteFile(uint64_t number, int n,
                                            std::string dir = "") {
    return Write(MediumFileName(dir.empty() ? dir_.path() : dir, number), n);
  }
  MediumFileCache cache_;
};

TEST_F(MediumFileCacheTest, OpensEachFileOnceAndReadsIt) {
  const auto handles = WriteFile(5, 20);
  std::shared_ptr<MediumFileReader> a, b;
  ASSERT_OK(Get(5, &a));
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->path(), MediumFileName(dir_.path(), 5));
  EXPECT_EQ(a->num_records(), 20u);
  ASSERT_OK(Get(5, &b));
  EXPECT_EQ(a, b);
  std::string value;
  ASSERT_OK(test::ReadRecord(*a, handles[7], Key(7), &value));
  EXPECT_EQ(value, Value(7));

  WriteFile(6, 3);
  std::shared_ptr<MediumFileReader> other;
  ASSERT_OK(Get(6, &other));
  EXPECT_NE(other, a);
  EXPECT_EQ(other->num_records(), 3u);
  // 5 + 16: the same shard as file 5, another file.
  WriteFile(21, 4);
  std::shared_ptr<MediumFileReader> same_shard;
  ASSERT_OK(Get(21, &same_shard));
  EXPECT_NE(same_shard, a);
  EXPECT_EQ(same_shard->num_records(), 4u);
}

TEST_F(MediumFileCacheTest, OpensFromTheFirstDirectoryThatHasTheFile) {
  test::ScratchDir first("medium-first"), second("medium-second");
  WriteFile(9, 2, second.path());
  WriteFile(10, 3, first.path());
  WriteFile(10, 4, second.path());
  std::shared_ptr<MediumFileReader> file;
  ASSERT_OK(Get(9, &file, {first.path(), second.path()}));
  EXPECT_EQ(file->path(), MediumFileName(second.path(), 9));
  ASSERT_OK(Get(10, &file, {first.path(), second.path()}));
  EXPECT_EQ(file->path(), MediumFileName(first.path(), 10));
  EXPECT_EQ(file->num_records(), 3u);
}

// A file that cannot be opened is not remembered: once it is there, it opens.
TEST_F(MediumFileCacheTest, MissingOrDamagedFilesAreErrorsNotCached) {
  std::shared_ptr<MediumFileReader> file;
  EXPECT_FALSE(Get(8, &file).ok());
  test::WriteWholeFile(MediumFileName(dir_.path(), 8), "not a medium file");
  Status s = Get(8, &file);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  WriteFile(8, 5);
  ASSERT_OK(Get(8, &file));
  EXPECT_EQ(file->num_records(), 5u);
}

TEST_F(MediumFileCacheTest, HoldsCountPerSession) {
  EXPECT_FALSE(cache_.HeldByOtherSession(3, "a"));
  cache_.Hold(3, "a");
  EXPECT_FALSE(cache_.HeldByOtherSession(3, "a"));
  EXPECT_TRUE(cache_.HeldByOtherSession(3, "b"));
  EXPECT_FALSE(cache_.HeldByOtherSession(19, "b"));  // 3 + 16: same shard
  cache_.Hold(3, "a");
  cache_.Hold(3, "b");
  EXPECT_TRUE(cache_.HeldByOtherSession(3, "a"));
  cache_.Release(3, "b");
  EXPECT_FALSE(cache_.HeldByOtherSession(3, "a"));
  cache_.Release(3, "a");
  EXPECT_TRUE(cache_.HeldByOtherSession(3, "b"));  // "a" holds it once more
  cache_.Release(3, "c");                          // never held: no effect
  EXPECT_TRUE(cache_.HeldByOtherSession(3, "b"));
  cache_.Release(3, "a");
  EXPECT_FALSE(cache_.HeldByOtherSession(3, "b"));
  cache_.Release(3, "a");  // more releases than holds: no effect
  cache_.Hold(3, "a");
  EXPECT_TRUE(cache_.HeldByOtherSession(3, "b"));
}

// The cache keeps a file open until its last holder releases it; a reader
// still in use is handed out again rather than a second one opened.
TEST_F(MediumFileCacheTest, LastReleaseLetsTheReaderGo) {
  WriteFile(4, 2);
  std::shared_ptr<MediumFileReader> file;
  ASSERT_OK(Get(4, &file));
  std::weak_ptr<MediumFileReader> weak = file;
  cache_.Hold(4, "a");
  cache_.Hold(4, "b");
  file.reset();
  EXPECT_FALSE(weak.expired()) << "held: the cache keeps it";
  cache_.Release(4, "a");
  EXPECT_FALSE(weak.expired()) << "still held by b";

  std::shared_ptr<MediumFileReader> in_use;
  ASSERT_OK(Get(4, &in_use));
  cache_.Release(4, "b");
  EXPECT_FALSE(weak.expired()) << "in use by its caller";
  std::shared_ptr<MediumFileReader> again;
  ASSERT_OK(Get(4, &again));
  EXPECT_EQ(again, in_use) << "a file is open once per process";
  again.reset();
  cache_.Hold(4, "a");
  cache_.Release(4, "a");
  in_use.reset();
  EXPECT_TRUE(weak.expired()) << "released and unused: closed";

  // Opened anew when asked again.
  ASSERT_OK(Get(4, &file));
  EXPECT_EQ(file->num_records(), 2u);
}

TEST_F(MediumFileCacheTest, EvictForgetsADeletedFile) {
  WriteFile(7, 2);
  std::shared_ptr<MediumFileReader> file;
  ASSERT_OK(Get(7, &file));
  std::weak_ptr<MediumFileReader> weak = file;
  ASSERT_OK(
      fs_->DeleteFile(MediumFileName(dir_.path(), 7), IOOptions(), nullptr));
  cache_.Evict(7);
  // A reader in use stays valid, and is still the one handed out.
  std::shared_ptr<MediumFileReader> again;
  ASSERT_OK(Get(7, &again));
  EXPECT_EQ(again, file);
  cache_.Evict(7);
  again.reset();
  file.reset();
  EXPECT_TRUE(weak.expired());
  EXPECT_FALSE(Get(7, &file).ok()) << "evicted, deleted, unused: gone";
}

TEST_F(MediumFileCacheTest, ClearForgetsEveryFile) {
  std::vector<std::weak_ptr<MediumFileReader>> weak;
  for (uint64_t number = 1; number <= 40; ++number) {
    WriteFile(number, 1);
    std::shared_ptr<MediumFileReader> file;
    ASSERT_OK(Get(number, &file));
    cache_.Hold(number, "a");
    weak.push_back(file);
  }
  for (const auto& w : weak) EXPECT_FALSE(w.expired());
  cache_.Clear();
  for (size_t i = 0; i < weak.size(); ++i) {
    EXPECT_TRUE(weak[i].expired()) << "file " << i + 1;
  }
}

TEST_F(MediumFileCacheTest, ConcurrentGetsShareOneReader) {
  WriteFile(11, 10);
  constexpr int kThreads = 8;
  std::vector<std::shared_ptr<MediumFileReader>> got(kThreads);
  std::vector<Status> statuses(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] { statuses[t] = Get(11, &got[t]); });
  }
  for (auto& t : threads) t.join();
  for (int t = 0; t < kThreads; ++t) {
    ASSERT_OK(statuses[t]);
    EXPECT_EQ(got[t], got[0]) << t;
  }
}

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
