// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// The arithmetic of medium runs (blob/format/medium_runs.h), the byte ranges
// of a medium file that SSTs point into, and the runs the refs property
// records (blob/format/medium_refs.h).
#include "plugin/hybridkv/blob/format/medium_runs.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "plugin/hybridkv/blob/format/medium_refs.h"
#include "rocksdb/table_properties.h"
#include "test_util.h"
#include "util/coding.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

TEST(MediumRunsTest, NormalizeMergesOverlapsAndShortGaps) {
  MediumRuns runs{{500, 600}, {0, 100}, {90, 200}, {650, 700}, {5000, 5100}};
  NormalizeRuns(&runs);
  EXPECT_EQ(runs, (MediumRuns{{0, 200}, {500, 600}, {650, 700}, {5000, 5100}}));
  NormalizeRuns(&runs, 100);
  EXPECT_EQ(runs, (MediumRuns{{0, 200}, {500, 700}, {5000, 5100}}));
  MediumRuns whole = WholeMediumFile();
  whole.push_back({10, 20});
  NormalizeRuns(&whole, kMediumRunMergeGap);  // no overflow at UINT64_MAX
  EXPECT_EQ(whole, WholeMediumFile());
}

TEST(MediumRunsTest, SubtractLeavesOnlyUncoveredBytes) {
  const MediumRuns from{{0, 100}, {200, 300}, {400, 500}};
  EXPECT_EQ(SubtractRuns(from, {}), from);
  EXPECT_EQ(SubtractRuns(from, {{50, 250}}),
            (MediumRuns{{0, 50}, {250, 300}, {400, 500}}));
  EXPECT_EQ(SubtractRuns(from, {{10, 20}, {30, 40}, {450, 1000}}),
            (MediumRuns{{0, 10}, {20, 30}, {40, 100}, {200, 300}, {400, 450}}));
  EXPECT_TRUE(SubtractRuns(from, WholeMediumFile()).empty());
}

// A block shared with runs that died earlier is freed with the run that
// empties it; never a block a live run touches, nor one freed before.
TEST(MediumRunsTest, WidenToDeadBlocksTakesTheBlocksOnlyNowWhole) {
  constexpr uint64_t kBlock = 4096;
  // Nothing live around: out to the blocks' edges.
  EXPECT_EQ(WidenToDeadBlocks({{15000, 30000}}, {}, kBlock),
            (MediumRuns{{12288, 32768}}));
  // Live runs on either side bound it.
  EXPECT_EQ(WidenToDeadBlocks({{5000, 9000}, {12000, 20000}},
                              {{0, 5000}, {20000, 30000}}, kBlock),
            (MediumRuns{{5000, 20000}}));
  // A live run inside the freed run's blocks: widening stops at it.
  EXPECT_EQ(WidenToDeadBlocks({{8200, 8300}}, {{8100, 8150}, {8400, 9000}},
                              kBlock),
            (MediumRuns{{8192, 8400}}));
  // Live runs touching it on both sides: nothing to widen.
  EXPECT_EQ(WidenToDeadBlocks({{100, 200}}, {{0, 100}, {200, 300}}, kBlock),
            (MediumRuns{{100, 200}}));
}

// The recorder's cache of map entries must not change what is recorded: 3000
// files, far more than its slots, interleaved at random, against a plain map.
TEST(MediumRunsTest, RecorderMatchesAPlainMapAcrossCacheCollisions) {
  std::mt19937_64 rng(7);
  MediumRefsRecorder recorder;
  MediumRefs expected;
  std::vector<uint64_t> next_offset(3000, 100);
  for (int i = 0; i < 200000; ++i) {
    const uint64_t file = rng() % next_offset.size();
    const uint64_t number = 10 + 7 * file;  // spaced like SST numbers
    const uint64_t size = 40 + rng() % 200;
    const uint64_t offset = next_offset[file] + (rng() % 8 == 0 ? 9000 : 0);
    next_offset[file] = offset + size;
    recorder.AddRecord(number, offset, size);
    expected[number].AddRecord(offset, size);
  }
  ASSERT_EQ(recorder.refs()->size(), expected.size());
  for (const auto& [number, ref] : expected) {
    const MediumFileRef& got = recorder.refs()->at(number);
    EXPECT_EQ(got.pointers, ref.pointers) << number;
    EXPECT_EQ(got.record_bytes, ref.record_bytes) << number;
    EXPECT_EQ(got.runs, ref.runs) << number;
  }
}

// Version 1 of the refs property had no runs: its references keep the whole
// file, so nothing it may point to is ever punched.
TEST(MediumRunsTest, VersionOneRefsCoverTheWholeFile) {
  std::string v1;
  PutVarint32(&v1, 1);
  PutVarint32(&v1, 1);
  PutVarint64(&v1, 42);   // file number
  PutVarint64(&v1, 3);    // pointers
  PutVarint64(&v1, 600);  // record bytes
  TableProperties props;
  props.user_collected_properties[kMediumRefsProperty] = v1;
  MediumRefs refs;
  bool known = false;
  ASSERT_OK(GetMediumRefs(props, &refs, &known));
  ASSERT_TRUE(known);
  ASSERT_EQ(refs.count(42), 1u);
  EXPECT_EQ(refs[42].pointers, 3u);
  EXPECT_EQ(refs[42].runs, WholeMediumFile());

  props.user_collected_properties[kMediumRefsProperty] = std::string("\x09", 1);
  Status s = GetMediumRefs(props, &refs, &known);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find("unknown version"), std::string::npos);
}

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
