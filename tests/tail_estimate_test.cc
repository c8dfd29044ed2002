// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// HybridTableBuilder::EstimatedFileSize predicts the finished file, tail
// included (table/tail_estimate.h), so that RocksDB's size limit on compaction
// outputs holds for the files it cuts.
#include "plugin/hybridkv/table/tail_estimate.h"

#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>

#include "db/dbformat.h"
#include "file/writable_file_writer.h"
#include "hybridkv/hybridkv.h"
#include "options/cf_options.h"
#include "rocksdb/file_system.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/table.h"
#include "table/table_builder.h"
#include "test_util.h"
#include "util/coding.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

TEST(TailEstimateTest, PredictsTheTermsLearnedAtTheLevel) {
  TailEstimate estimate;
  EXPECT_EQ(estimate.Predict(1, 100000, 8 << 20), 0u);  // nothing learned yet

  TableProperties props;
  props.num_entries = 4000;
  props.data_size = 2 << 20;
  props.filter_size = 5000;  // 1.25 bytes per entry
  props.index_size = 40000;  // 20000 bytes per MiB of data
  estimate.Learn(1, props, /*tail_size=*/45000 + 3000);
  EXPECT_EQ(estimate.Predict(1, 8000, 4 << 20), 10000u + 80000u + 3000u);
  EXPECT_EQ(estimate.Predict(2, 8000, 4 << 20), 0u);  // another level

  // A small table's fixed part would swamp its per-entry terms: ignored.
  TableProperties small = props;
  small.num_entries = TailEstimate::kMinEntries - 1;
  small.filter_size = 100000;
  estimate.Learn(1, small, 200000);
  EXPECT_EQ(estimate.Predict(1, 8000, 4 << 20), 10000u + 80000u + 3000u);

  // Larger terms are taken at once, smaller ones approached by an eighth.
  TableProperties larger = props;
  larger.filter_size = 6000;  // 1.5 bytes per entry
  estimate.Learn(1, larger, 46000 + 3000);
  EXPECT_EQ(estimate.Predict(1, 8000, 4 << 20), 12000u + 80000u + 3000u);
  // Back to 1.25: 1.5 - 0.25 / 8, in whole millibytes (1.469).
  estimate.Learn(1, props, 45000 + 3000);
  EXPECT_EQ(estimate.Predict(1, 8000, 4 << 20), 11752u + 80000u + 3000u);
}

// Builds tables of increasing size with one HybridTable factory
// (BlockBasedTable inside, 10-bit bloom filter) and checks, just before each
// Finish, that EstimatedFileSize() is at least the finished size and not far
// above it. Without the tail in the estimate, every check of the first kind
// fails.
TEST(TailEstimateTest, EstimateBoundsTheFinishedFileClosely) {
  test::ScratchDir dir("tail_estimate");
  BlockBasedTableOptions bbto;
  bbto.filter_policy.reset(NewBloomFilterPolicy(10));
  bbto.block_size = 4096;
  HybridTableOptions hybrid;
  hybrid.inner.reset(NewBlockBasedTableFactory(bbto));
  std::shared_ptr<TableFactory> factory(NewHybridTableFactory(hybrid));

  Options options;
  options.table_factory = factory;
  const ImmutableOptions ioptions(options);
  const MutableCFOptions moptions(options);
  const InternalKeyComparator icmp(BytewiseComparator());
  const InternalTblPropCollFactories no_collectors;
  const ReadOptions read_options;
  const WriteOptions write_options;
  std::mt19937_64 rng(7);

  // The first table teaches the estimate; the others are checked, with other
  // value sizes, so the per-entry and per-byte terms are both exercised.
  const struct {
    int entries;
    size_t value_size;
    bool check;
  } tables[] = {{20000, 40, false}, {3000, 40, true},  {45000, 16, true},
                {9000, 300, true},  {60000, 40, true}, {25000, 120, true}};
  int file_number = 0;
  for (const auto& t : tables) {
    const std::string path = dir.Sub(std::to_string(++file_number) + ".sst");
    std::unique_ptr<WritableFileWriter> writer;
    ASSERT_OK(WritableFileWriter::Create(options.env->GetFileSystem(), path,
                                         FileOptions(), &writer, nullptr));
    const TableBuilderOptions tbo(
        ioptions, moptions, read_options, write_options, icmp, &no_collectors,
        kNoCompression, CompressionOptions(), /*column_family_id=*/0, "default",
        /*level=*/1, /*newest_key_time=*/0);
    std::unique_ptr<TableBuilder> builder(
        factory->NewTableBuilder(tbo, writer.get()));
    std::string value(t.value_size, 'v');
    for (int i = 0; i < t.entries; i++) {
      std::string user_key;
      PutFixed64(&user_key, static_cast<uint64_t>(i) * 7919);  // sorted
      user_key = "key" + std::string(user_key.rbegin(), user_key.rend());
      value[0] = static_cast<char>(rng());
      builder->Add(InternalKey(user_key, 1, kTypeValue).Encode(), value);
    }
    const uint64_t estimate = builder->EstimatedFileSize();
    ASSERT_OK(builder->Finish());
    ASSERT_OK(writer->Close(IOOptions()));
    const uint64_t finished = builder->FileSize();
    if (t.check) {
      EXPECT_GE(estimate, finished)
          << t.entries << " entries of " << t.value_size << "-byte values";
      // Within the margin (two blocks) and one block of estimation error.
      EXPECT_LE(estimate, finished + 3 * bbto.block_size)
          << t.entries << " entries of " << t.value_size << "-byte values";
    }
  }
}

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
