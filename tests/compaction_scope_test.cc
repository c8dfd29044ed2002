// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// CompactionScope (table/compaction_scope.h): what one compaction's input
// iterators and output builders share on its thread.
#include "plugin/hybridkv/table/compaction_scope.h"

#include <gtest/gtest.h>

#include <thread>

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

MediumRefs RefsOf(uint64_t number, uint64_t offset, uint64_t size) {
  MediumRefs refs;
  refs[number].AddRecord(offset, size);
  return refs;
}

// The inputs opened on one thread share one scope, whose runs are the union
// of theirs: a merge-level read of a record extends to the end of its run.
TEST(CompactionScopeTest, InputsOfOneThreadShareTheirRuns) {
  auto first = CompactionScope::Enter(RefsOf(7, 100, 50));
  auto second = CompactionScope::Enter(RefsOf(7, 150, 30));
  ASSERT_EQ(first, second);
  EXPECT_EQ(CompactionScope::Current(), first);
  EXPECT_EQ(first->FileCount(), 1u);
  EXPECT_EQ(first->RunEnd(7, 120), 180u);  // the two records make one run
  EXPECT_EQ(first->RunEnd(7, 99), 0u);     // before any run
  EXPECT_EQ(first->RunEnd(8, 120), 0u);    // a file no input points into
}

// Another thread (another subcompaction) has its own scope, and the scope
// ends with the last of its users.
TEST(CompactionScopeTest, ScopesArePerThreadAndEndWithTheirUsers) {
  auto mine = CompactionScope::Enter(RefsOf(1, 0, 10));
  std::shared_ptr<CompactionScope> theirs;
  std::thread other(
      [&]() { theirs = CompactionScope::Enter(RefsOf(2, 0, 10)); });
  other.join();
  EXPECT_NE(mine, theirs);
  EXPECT_EQ(theirs->RunEnd(1, 5), 0u);
  mine.reset();
  EXPECT_EQ(CompactionScope::Current(), nullptr);
}

// One merge reader serves every output of the compaction.
TEST(CompactionScopeTest, MergeReaderIsMadeOnce) {
  auto scope = CompactionScope::Enter(RefsOf(3, 0, 10));
  int made = 0;
  auto make = [&]() {
    made++;
    return std::make_shared<MediumReadahead>(MediumReadahead::FileProvider(),
                                             4096, 4096, 4096, scope.get());
  };
  auto first = scope->MergeReader(make);
  auto second = scope->MergeReader(make);
  EXPECT_EQ(made, 1);
  EXPECT_EQ(first, second);
}

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
