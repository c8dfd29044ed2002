// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// HybridStatistics' own logic (plugin/statistics.cc), without a DB:
// medium_space_amplification and ToString. GetStatistics reads a live DB;
// the system tests check what it counts.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "hybridkv/hybridkv.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

TEST(StatisticsTest, SpaceAmplificationIsFileBytesOverLiveBytes) {
  HybridStatistics s;
  EXPECT_EQ(s.medium_space_amplification(), 1.0) << "nothing referenced";
  s.referenced_medium_file_bytes = 5000;
  EXPECT_EQ(s.medium_space_amplification(), 1.0) << "no live bytes";
  s.referenced_medium_live_bytes = 2000;
  EXPECT_DOUBLE_EQ(s.medium_space_amplification(), 2.5);
  s.referenced_medium_file_bytes = 1000;  // holes punched below the records
  EXPECT_DOUBLE_EQ(s.medium_space_amplification(), 0.5);
  s.referenced_medium_file_bytes = 0;
  EXPECT_EQ(s.medium_space_amplification(), 0.0);
  // Unreferenced files do not count.
  s.referenced_medium_file_bytes = 4000;
  s.live_medium_bytes = 1000000;
  EXPECT_DOUBLE_EQ(s.medium_space_amplification(), 2.0);
}

// Every field appears in its place: each set to a distinct value.
TEST(StatisticsTest, ToStringShowsEveryField) {
  HybridStatistics s;
  s.small_values_flushed = 1;
  s.small_bytes_flushed = 2;
  s.medium_values_extracted = 3;
  s.medium_bytes_extracted = 4;
  s.medium_files_created = 5;
  s.pointers_kept = 6;
  s.medium_values_inlined = 7;
  s.medium_bytes_inlined = 8;
  s.merge_bytes_read = 9;
  s.merge_reads = 10;
  s.medium_values_resolved = 11;
  s.medium_bytes_resolved = 12;
  s.resolve_bytes_read = 13;
  s.resolve_reads = 14;
  s.scan_values_prefetched = 15;
  s.scan_values_used = 16;
  s.scan_table_seeks = 17;
  s.live_medium_files = 18;
  s.live_medium_bytes = 19;
  s.referenced_medium_live_bytes = 20;
  s.referenced_medium_file_bytes = 30;
  s.medium_bytes_punched = 22;
  s.medium_punch_failures = 23;
  s.medium_pointers = 24;
  s.large_values_flushed = 25;
  EXPECT_EQ(s.ToString(),
            "small: 1 values, 2 bytes flushed inline\n"
            "medium: 3 values, 4 bytes extracted to 5 files; 6 pointers kept "
            "by compactions\n"
            "medium: 7 values, 8 bytes inlined at the merge level (9 bytes "
            "read in 10 reads)\n"
            "medium: 11 values, 12 bytes resolved by reads (13 bytes read in "
            "14 reads)\n"
            "scan prefetch: 15 medium values read ahead, 16 of them used, in "
            "17 table seeks\n"
            "medium: 18 files, 19 bytes on disk; 20 of 30 referenced bytes "
            "live (space amplification 1.50); 22 bytes freed in place (23 "
            "punch failures)\n"
            "medium: 24 pointers in live SSTs\n"
            "large: 25 values left to BlobDB\n");
}

TEST(StatisticsTest, ToStringOfNothingCounted) {
  const std::string text = HybridStatistics().ToString();
  EXPECT_NE(text.find("small: 0 values, 0 bytes flushed inline\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("(space amplification 1.00)"), std::string::npos) << text;
  EXPECT_NE(text.find("large: 0 values left to BlobDB\n"), std::string::npos)
      << text;
}

// The largest counts and amplification still fit: nothing is cut off.
TEST(StatisticsTest, ToStringOfTheLargestValuesIsWhole) {
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  HybridStatistics s;
  s.small_values_flushed = s.small_bytes_flushed = s.medium_values_extracted =
      s.medium_bytes_extracted = s.medium_files_created = s.pointers_kept =
          s.medium_values_inlined = s.medium_bytes_inlined =
              s.merge_bytes_read = s.merge_reads = s.medium_values_resolved =
                  s.medium_bytes_resolved = s.resolve_bytes_read =
                      s.resolve_reads = s.scan_values_prefetched =
                          s.scan_values_used = s.scan_table_seeks =
                              s.live_medium_files = s.live_medium_bytes =
                                  s.referenced_medium_file_bytes =
                                      s.medium_bytes_punched =
                                          s.medium_punch_failures =
                                              s.medium_pointers =
                                                  s.large_values_flushed = kMax;
  s.referenced_medium_live_bytes = 1;  // amplification 1.8e19
  const std::string text = s.ToString();
  EXPECT_NE(text.find("space amplification 18446744073709551616.00)"),
            std::string::npos)
      << text;
  const std::string tail =
      "large: 18446744073709551615 values left to BlobDB\n";
  ASSERT_GE(text.size(), tail.size());
  EXPECT_EQ(text.substr(text.size() - tail.size()), tail) << text;
}

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
