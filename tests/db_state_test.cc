// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// The per-DB state (blob/lifecycle/db_state.h), without a DB: one state per
// directory however it is spelled, the LSM shape the counters note, and the
// column families whose compactions must resolve pointers, and the homes of
// several paths.
// hybrid_placement_test.cc has the base level before L0 compacts.
#include "plugin/hybridkv/blob/lifecycle/db_state.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "plugin/hybridkv/blob/lifecycle/medium_lifecycle.h"
#include "test_util.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

std::string RealPath(const std::string& path) {
  return std::filesystem::canonical(path).string();
}

TEST(DbStateTest, CanonicalDirIsAbsoluteAndSymlinkFree) {
  test::ScratchDir dir("db-state");
  const std::string real = RealPath(dir.path());
  EXPECT_EQ(CanonicalDbDir(dir.path()), real);
  EXPECT_EQ(CanonicalDbDir(dir.path() + "/"), real);
  EXPECT_EQ(CanonicalDbDir(dir.path() + "///"), real);
  EXPECT_EQ(CanonicalDbDir(dir.path() + "/./x/.."), real);
  ASSERT_EQ(symlink(dir.path().c_str(), dir.Sub("link").c_str()), 0);
  EXPECT_EQ(CanonicalDbDir(dir.Sub("link")), real);
  // Not there yet: the same spelling before and after it is created.
  const std::string later = CanonicalDbDir(dir.Sub("later/db/"));
  EXPECT_EQ(later, real + "/later/db");
  std::filesystem::create_directories(dir.Sub("later/db"));
  EXPECT_EQ(CanonicalDbDir(dir.Sub("later/db")), later);
  EXPECT_EQ(CanonicalDbDir(dir.Sub("link/later/db")), later);
  // Relative to the working directory.
  EXPECT_EQ(CanonicalDbDir("some-db"),
            (std::filesystem::weakly_canonical(std::filesystem::current_path() /
                                               "some-db"))
                .string());
  EXPECT_EQ(CanonicalDbDir("/"), "/");
}

TEST(DbStateTest, OneStatePerDirectoryHoweverSpelled) {
  test::ScratchDir dir("db-state"), other("db-state-other");
  DbState* state = DbStateFor(dir.path());
  ASSERT_NE(state, nullptr);
  EXPECT_EQ(DbStateFor(dir.path() + "/"), state);
  EXPECT_EQ(DbStateFor(dir.path() + "/sub/.."), state);
  ASSERT_EQ(symlink(dir.path().c_str(), other.Sub("link").c_str()), 0);
  EXPECT_EQ(DbStateFor(other.Sub("link")), state);
  EXPECT_NE(DbStateFor(other.path()), state);
  EXPECT_NE(DbStateFor(dir.Sub("nested")), state);
  // The state lives for the process: its counters persist between calls.
  state->counters.small_values_flushed += 7;
  EXPECT_EQ(DbStateFor(dir.path())->counters.small_values_flushed.load(), 7u);
  EXPECT_EQ(DbStateFor(other.path())->counters.small_values_flushed.load(), 0u);
}

TEST(DbStateTest, ConcurrentCallersGetTheSameState) {
  test::ScratchDir dir("db-state");
  constexpr int kThreads = 8;
  std::vector<DbState*> got(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      got[t] = DbStateFor(t % 2 == 0 ? dir.path() : dir.path() + "/");
    });
  }
  for (auto& t : threads) t.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(got[t], got[0]) << t;
}

TEST(DbStateTest, CountersNoteTheDeepestLevelPerColumnFamily) {
  DbCounters counters;
  EXPECT_EQ(counters.DeepestLevel(0), 0);
  counters.NoteLevel(0, 0);
  EXPECT_EQ(counters.DeepestLevel(0), 0);
  counters.NoteLevel(0, 4);
  counters.NoteLevel(0, 2);
  EXPECT_EQ(counters.DeepestLevel(0), 4);
  counters.NoteLevel(0, 6);
  EXPECT_EQ(counters.DeepestLevel(0), 6);
  EXPECT_EQ(counters.DeepestLevel(1), 0);
  counters.NoteLevel(1, 3);
  EXPECT_EQ(counters.DeepestLevel(1), 3);
  EXPECT_EQ(counters.DeepestLevel(0), 6);
}

// The base level reported by L0's compactions wins over the shallowest level
// seen, deeper or shallower, and the latest report over earlier ones.
TEST(DbStateTest, ReportedBaseLevelWinsOverTheShallowestSeen) {
  DbCounters counters;
  counters.NoteLevel(2, 5);
  counters.NoteLevel(2, 3);
  EXPECT_EQ(counters.BaseLevel(2), 3);
  counters.NoteBaseLevel(2, 1);
  EXPECT_EQ(counters.BaseLevel(2), 1);
  counters.NoteBaseLevel(2, 5);
  EXPECT_EQ(counters.BaseLevel(2), 5);
  counters.NoteLevel(2, 2);  // an SST seen higher changes nothing reported
  EXPECT_EQ(counters.BaseLevel(2), 5);
  EXPECT_EQ(counters.BaseLevel(3), 0);
  counters.NoteBaseLevel(3, 2);  // known without any SST seen
  EXPECT_EQ(counters.BaseLevel(3), 2);
  EXPECT_EQ(counters.DeepestLevel(3), 0);
}

TEST(DbStateTest, CompactionsResolvePointersOnceNotedPerColumnFamily) {
  test::ScratchDir dir("db-state");
  DbState* state = DbStateFor(dir.path());
  EXPECT_FALSE(state->CompactionsResolvePointers(0));
  state->NoteCompactionsResolvePointers(3);
  EXPECT_TRUE(state->CompactionsResolvePointers(3));
  EXPECT_FALSE(state->CompactionsResolvePointers(0));
  state->NoteCompactionsResolvePointers(3);  // noted twice: still noted
  EXPECT_TRUE(state->CompactionsResolvePointers(3));
  EXPECT_TRUE(DbStateFor(dir.path() + "/")->CompactionsResolvePointers(3));
}

// Several paths: one state per home (the first path), reached from every
// path; a path list only grows; a directory never belongs to two homes.
TEST(DbStateTest, PathsShareTheirHomesStateAndBelongToOneHome) {
  test::ScratchDir dir("db-state");
  const std::string a = dir.Sub("a"), b = dir.Sub("b"), c = dir.Sub("c"),
                    d = dir.Sub("d");
  DbState* state = nullptr;
  ASSERT_OK(DbStateForPaths({DbPath(a, 1), DbPath(b, 1)}, "", &state));
  EXPECT_EQ(state->home(), a);
  EXPECT_EQ(DbStateFor(a), state);
  EXPECT_EQ(DbStateFor(b + "/"), state);
  EXPECT_EQ(state->tracker().sst_dirs(), (std::vector<std::string>{a, b}));
  DbState* again = nullptr;
  ASSERT_OK(
      DbStateForPaths({DbPath(a, 1), DbPath(b, 1), DbPath(d, 1)}, "", &again));
  EXPECT_EQ(again, state);
  EXPECT_EQ(state->tracker().sst_dirs(), (std::vector<std::string>{a, b, d}));
  ASSERT_OK(
      DbStateForPaths({DbPath(a, 1)}, "", &again));  // a family of one path
  EXPECT_EQ(again, state);

  DbState* other = nullptr;
  Status s = DbStateForPaths({DbPath(b, 1)}, "", &other);  // b is a's
  EXPECT_TRUE(s.IsNotSupported()) << s.ToString();
  EXPECT_NE(s.ToString().find(b), std::string::npos) << s.ToString();
  s = DbStateForPaths({DbPath(c, 1), DbPath(a, 1)}, "", &other);  // a is a home
  EXPECT_TRUE(s.IsNotSupported()) << s.ToString();
  s = DbStateForPaths({DbPath(c, 1), DbPath(d, 1)}, "", &other);  // d is a's
  EXPECT_TRUE(s.IsNotSupported()) << s.ToString();
  ASSERT_OK(DbStateForPaths({DbPath(c, 1)}, "", &other));  // c alone is free
  DbState* standalone = nullptr;  // no cf_paths: the directory's state
  ASSERT_OK(DbStateForPaths({}, b, &standalone));
  EXPECT_EQ(standalone, DbStateFor(b));
  EXPECT_NE(other, state);
}

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
