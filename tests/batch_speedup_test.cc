// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// BatchSpeedup: what a batch of reads buys over reads one after another, and
// when scan prefetch stops reading ahead what only overlap would pay for.
#include "plugin/hybridkv/blob/io/batch_speedup.h"

#include <gtest/gtest.h>

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

constexpr uint64_t kMicros = 1000;  // in nanoseconds

TEST(BatchSpeedupTest, UnknownUntilBothKindsOfBatchAreTimed) {
  BatchSpeedup speedup;
  EXPECT_EQ(speedup.Speedup(), 0);
  EXPECT_FALSE(speedup.SkipOverlapOnlyReads());
  speedup.Record(8, 8 * 300 * kMicros);  // batches only: still unknown
  EXPECT_EQ(speedup.Speedup(), 0);
  EXPECT_FALSE(speedup.SkipOverlapOnlyReads());
  speedup.Record(1, 300 * kMicros);
  EXPECT_NEAR(speedup.Speedup(), 1.0, 0.01);
}

TEST(BatchSpeedupTest, AParallelDeviceKeepsEveryRead) {
  BatchSpeedup speedup;
  for (int i = 0; i < 500; i++) {
    speedup.Record(1, 120 * kMicros);
    speedup.Record(8, 200 * kMicros);  // 25 µs per read
  }
  EXPECT_NEAR(speedup.Speedup(), 4.8, 0.1);
  for (int i = 0; i < 100; i++) EXPECT_FALSE(speedup.SkipOverlapOnlyReads());
}

// A volume held at its IOPS budget: single reads pass, batches overrun it
// and wait for it to refill.
TEST(BatchSpeedupTest, AThrottledDeviceSkipsAllButProbes) {
  BatchSpeedup speedup;
  for (int i = 0; i < 500; i++) {
    speedup.Record(1, 300 * kMicros);
    speedup.Record(4, 4 * 1500 * kMicros);
  }
  EXPECT_LT(speedup.Speedup(), BatchSpeedup::kMinSpeedup);
  int probes = 0;
  for (uint64_t i = 0; i < 4 * BatchSpeedup::kProbeEvery; i++) {
    probes += speedup.SkipOverlapOnlyReads() ? 0 : 1;
  }
  EXPECT_EQ(probes, 4);  // one window in kProbeEvery still reads ahead
  // The device turns parallel again: the probes' batches show it.
  for (int i = 0; i < 500; i++) speedup.Record(4, 150 * kMicros);
  EXPECT_GE(speedup.Speedup(), BatchSpeedup::kMinSpeedup);
  EXPECT_FALSE(speedup.SkipOverlapOnlyReads());
}

TEST(BatchSpeedupTest, PinOverridesWhatIsRecorded) {
  BatchSpeedup speedup;
  speedup.Pin(1.0);
  EXPECT_EQ(speedup.Speedup(), 1.0);
  speedup.Record(1, 100 * kMicros);
  speedup.Record(8, 100 * kMicros);
  EXPECT_EQ(speedup.Speedup(), 1.0);
  speedup.Pin(0);
  EXPECT_NEAR(speedup.Speedup(), 8.0, 0.01);  // the first samples
}

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
