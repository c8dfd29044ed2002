// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// HybridTableBuilder::EstimatedFileSize predicts the finished file, tail
// included (table/tail_estimate.h), so that RocksDB's size limit on compaction
// outputs holds for the files it cuts.
#include "plugin/hybridkv/table/tail_estimate.h"

#include <gtest/gtest.h>

#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "db/dbformat.h"
#include "file/writable_file_writer.h"
#include "hybridkv/hybridkv.h"
#include "options/cf_options.h"
#include "plugin/hybridkv/blob/io/rocksdb_compat.h"
#include "rocksdb/db.h"
#include "rocksdb/file_system.h"
#include "rocksdb/filter_policy.h"
#include "rocksdb/listener.h"
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
  // TableBuilderOptions keeps these by reference: they must outlive it.
  const CompressionOptions compression_options;
  const std::string cf_name = "default";
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
        kNoCompression, compression_options, /*column_family_id=*/0, cf_name,
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

// The sizes of the SSTs compactions create, in order.
class CompactionOutputSizes : public EventListener {
 public:
  void OnTableFileCreated(const TableFileCreationInfo& info) override {
    if (info.reason == TableFileCreationReason::kCompaction &&
        info.status.ok()) {
      std::lock_guard<std::mutex> lock(mu_);
      sizes_.push_back(info.file_size);
    }
  }
  std::vector<uint64_t> sizes() {
    std::lock_guard<std::mutex> lock(mu_);
    return sizes_;
  }

 private:
  std::mutex mu_;
  std::vector<uint64_t> sizes_;
};

// Through a DB: CompactFiles into the last populated level cuts its outputs
// at output_file_size_limit. Once the level has learned its tail (from its
// first output), every output stays within the limit, and the full ones come
// close to it. Without the tail in the estimate, every full output ends over
// the limit by its filter, index and properties.
TEST(TailEstimateTest, CompactionOutputsStayWithinTheirLimit) {
  test::ScratchDir dir("tail_estimate_db");
  Options options;
  options.create_if_missing = true;
  options.disable_auto_compactions = true;
  options.write_buffer_size = 4 << 20;
  BlockBasedTableOptions bbto;
  bbto.filter_policy.reset(NewBloomFilterPolicy(10));
  HybridOptions hybrid;
  hybrid.table.inner.reset(NewBlockBasedTableFactory(bbto));
  ASSERT_OK(ConfigureOptions(&options, hybrid));
  auto outputs = std::make_shared<CompactionOutputSizes>();
  options.listeners.push_back(outputs);
  DB* raw = nullptr;
  ASSERT_OK(OpenDB(options, dir.path(), &raw));
  std::unique_ptr<DB> db(raw);

  // Two rounds over disjoint key ranges, each four flushes of medium values
  // (pointers in the SSTs) compacted into L1 with a 128 KiB limit.
  constexpr uint64_t kLimit = 128 << 10;
  const std::string value(200, 'v');
  for (int round = 0; round < 2; round++) {
    for (int flush = 0; flush < 4; flush++) {
      for (int i = 0; i < 12000; i++) {
        char key[32];
        snprintf(key, sizeof(key), "r%d-%08d", round, i * 4 + flush);
        ASSERT_OK(db->Put(WriteOptions(), key, value));
      }
      ASSERT_OK(db->Flush(FlushOptions()));
    }
    ColumnFamilyMetaData meta;
    db->GetColumnFamilyMetaData(&meta);
    std::vector<std::string> inputs;
    for (const auto& f : meta.levels[0].files) {
      inputs.push_back(f.name);
    }
    CompactionOptions compact;
    compact.output_file_size_limit = kLimit;
    ASSERT_OK(db->CompactFiles(compact, inputs, /*output_level=*/1));
  }
  const std::vector<uint64_t> sizes = outputs->sizes();
  ASSERT_GE(sizes.size(), 10u) << testing::PrintToString(sizes);
  size_t full = 0;
  for (size_t i = 1; i < sizes.size(); i++) {  // the first taught the level
    EXPECT_LE(sizes[i], kLimit)
        << "output " << i << " of " << testing::PrintToString(sizes);
    full += sizes[i] > kLimit * 3 / 4 ? 1 : 0;
  }
  // All but each compaction's last output are cut by size.
  EXPECT_GE(full, sizes.size() - 3) << testing::PrintToString(sizes);
}

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
