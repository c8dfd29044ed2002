// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// ReadAheadTrial: scans try reading blobs ahead and not, and run the way that
// takes more entries per second; a device that changes is followed.
#include "plugin/hybridkv/blob/io/read_ahead_trial.h"

#include <gtest/gtest.h>

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

// Feeds `epochs` epochs of table scans of 10 entries each, taking
// `nanos_with` or `nanos_without` as the trial's way is at each scan's start;
// returns how many of those epochs ran with read-ahead.
int RunEpochs(ReadAheadTrial* trial, int epochs, uint64_t nanos_with,
              uint64_t nanos_without) {
  int with_epochs = 0;
  for (int e = 0; e < epochs; e++) {
    const bool with = trial->ReadOverlapOnly();
    with_epochs += with ? 1 : 0;
    for (uint64_t i = 0; i < ReadAheadTrial::kEpochScans; i++) {
      EXPECT_EQ(trial->ReadOverlapOnly(), with);  // one way per epoch
      trial->RecordScan(with, 10, with ? nanos_with : nanos_without);
    }
  }
  return with_epochs;
}

constexpr int kCycle = static_cast<int>(ReadAheadTrial::kCycleEpochs);

TEST(ReadAheadTrialTest, ReadsAheadUntilBothWaysWereTried) {
  ReadAheadTrial trial;
  EXPECT_TRUE(trial.ReadOverlapOnly());
  EXPECT_EQ(trial.Gain(), 0);
  RunEpochs(&trial, 1, 1000, 1000);       // epoch 0: with
  EXPECT_FALSE(trial.ReadOverlapOnly());  // epoch 1 tries without
  EXPECT_EQ(trial.Gain(), 0);
  RunEpochs(&trial, 1, 1000, 1000);
  EXPECT_DOUBLE_EQ(trial.Gain(), 1.0);
  EXPECT_FALSE(trial.ReadOverlapOnly());  // a tie does not read ahead
  // The next cycle tries without first.
  RunEpochs(&trial, kCycle - 2, 1000, 1000);
  EXPECT_FALSE(trial.ReadOverlapOnly());
  RunEpochs(&trial, 1, 1000, 1000);
  EXPECT_TRUE(trial.ReadOverlapOnly());
}

// Only trial epochs are compared: exploit epochs that run faster as a cache
// warms do not make their way look better than the other's older trial.
TEST(ReadAheadTrialTest, ComparesOnlyTrialEpochs) {
  ReadAheadTrial trial;
  RunEpochs(&trial, 2, 1000, 900);  // without is 10% faster in the trials
  // The exploit epochs run without; were they averaged, a slower trial of
  // with would not matter either way. Make every non-trial epoch's scans
  // ten times as fast: the trial's verdict stands.
  for (int e = 2; e < kCycle; e++) {
    EXPECT_FALSE(trial.ReadOverlapOnly());
    RunEpochs(&trial, 1, 100, 90);
  }
  EXPECT_LT(trial.Gain(), 1.0);
}

TEST(ReadAheadTrialTest, RunsTheFasterWayAndFollowsAChange) {
  ReadAheadTrial trial;
  // A parallel device: read-ahead scans twice as fast. Only the trial epoch
  // of each cycle runs without.
  EXPECT_EQ(RunEpochs(&trial, 4 * kCycle, 500, 1000), 4 * kCycle - 4);
  EXPECT_NEAR(trial.Gain(), 2.0, 1e-9);
  // The device becomes a throttled one: without is 10% faster. Within two
  // cycles the trial follows; then only each cycle's trial epoch reads ahead.
  RunEpochs(&trial, 2 * kCycle, 1100, 1000);
  EXPECT_EQ(RunEpochs(&trial, 4 * kCycle, 1100, 1000), 4);
  // The reported gain is averaged over trials (1/4 on the newest): from 2 on
  // its way to 1/1.1.
  EXPECT_LT(trial.Gain(), 1.2);
  // And back.
  RunEpochs(&trial, 2 * kCycle, 500, 1000);
  EXPECT_EQ(RunEpochs(&trial, kCycle, 500, 1000), kCycle - 1);
}

// Reading ahead spends device requests, so it must win by kMinGain: a few
// percent either way is what trials at an IOPS cap measure.
TEST(ReadAheadTrialTest, ReadsAheadOnlyWhereClearlyFaster) {
  ReadAheadTrial barely;  // 2% faster with read-ahead: only its trials read
  EXPECT_EQ(RunEpochs(&barely, 4 * kCycle, 980, 1000), 4);
  EXPECT_GT(barely.Gain(), 1.0);
  ReadAheadTrial clearly;  // 10% faster: all but the other way's trials
  EXPECT_EQ(RunEpochs(&clearly, 4 * kCycle, 900, 1000), 4 * kCycle - 4);
  // Trials around a tie, read-ahead 4% ahead in every other one and 4%
  // behind in the rest: only its trial epochs read ahead. (Counting every
  // trial it came out ahead in, 62 of these 96 epochs read ahead.)
  ReadAheadTrial noisy;
  int with_epochs = 0;
  for (int cycle = 0; cycle < 6; cycle++) {
    const uint64_t nanos_with = cycle % 2 == 0 ? 960 : 1040;
    with_epochs += RunEpochs(&noisy, kCycle, nanos_with, 1000);
  }
  EXPECT_EQ(with_epochs, 6);
}

TEST(ReadAheadTrialTest, ScansBegunTheOtherWayAreNotCounted) {
  ReadAheadTrial trial;
  // Scans that began without read-ahead end during an epoch with it: they
  // neither count towards the epoch nor end it.
  for (uint64_t i = 0; i < 10 * ReadAheadTrial::kEpochScans; i++) {
    trial.RecordScan(/*with=*/false, 10, 1);
  }
  EXPECT_TRUE(trial.ReadOverlapOnly());
  EXPECT_EQ(trial.Gain(), 0);
}

TEST(ReadAheadTrialTest, PinOverridesTheTrial) {
  ReadAheadTrial trial;
  trial.Pin(false);
  EXPECT_FALSE(trial.ReadOverlapOnly());
  trial.Pin(true);
  EXPECT_TRUE(trial.ReadOverlapOnly());
  trial.Unpin();
  EXPECT_TRUE(trial.ReadOverlapOnly());
}

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
