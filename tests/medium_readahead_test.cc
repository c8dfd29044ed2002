// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// MediumReadahead (blob/medium/medium_readahead.h), on medium files on a real
// file system.
#include "plugin/hybridkv/blob/medium/medium_readahead.h"

#include <gtest/gtest.h>

#include <cinttypes>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "plugin/hybridkv/blob/format/medium_pointer.h"
#include "plugin/hybridkv/blob/medium/medium_file.h"
#include "test_util.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

// MediumReadahead: reads many files in turn under a buffer budget far below
// their total, as a merge of a randomly loaded DB does, with and without run
// hints. Every value reads back; the reads stay few and bounded.
class MediumReadaheadTest : public test::MediumFileFixture,
                            public testing::WithParamInterface<bool> {};

TEST_P(MediumReadaheadTest, ManyFilesUnderATightBudget) {
  const bool hinted = GetParam();
  constexpr int kFiles = 40, kRecords = 200;
  const size_t kBudget = 512 << 10;
  std::map<uint64_t, std::vector<MediumRecordHandle>> handles;
  std::map<uint64_t, uint64_t> run_end;
  for (int f = 1; f <= kFiles; ++f) {
    handles[f] = Write(MediumFileName(dir_.path(), f), kRecords);
    run_end[f] = handles[f].back().offset + handles[f].back().size;
  }
  struct WholeFiles : MediumReadahead::Plan {
    std::map<uint64_t, uint64_t>* run_end;
    uint64_t RunEnd(uint64_t number, uint64_t) const override {
      return (*run_end)[number];
    }
    size_t FileCount() const override { return run_end->size(); }
  } plan;
  plan.run_end = &run_end;
  MediumReadahead readahead(
      [&](const IOOptions& io, uint64_t number,
          std::shared_ptr<MediumFileReader>* out) -> Status {
        std::unique_ptr<MediumFileReader> r;
        IOStatus s = MediumFileReader::Open(
            fs_, MediumFileName(dir_.path(), number), FileOptions(), &r, io);
        if (s.ok()) *out = std::move(r);
        return s;
      },
      4 << 10, 1 << 20, /*buffer_budget=*/kBudget, hinted ? &plan : nullptr);
  // Round robin over the files, each in key order.
  for (int i = 0; i < kRecords; ++i) {
    for (int f = 1; f <= kFiles; ++f) {
      MediumPointer p;
      p.file_number = f;
      p.handle = handles[f][i];
      std::string v;
      ASSERT_OK(readahead.Read(IOOptions(), p, Key(i), &v));
      ASSERT_EQ(v, Value(i));
    }
  }
  uint64_t data = 0;
  for (const auto& [f, end] : run_end)
    data += end - MediumFileHeader::kEncodedLength;
  std::printf("%s: %" PRIu64 " bytes read in %" PRIu64 " reads for %" PRIu64
              " bytes of records\n",
              hinted ? "hinted" : "unhinted", readahead.bytes_read(),
              readahead.reads_issued(), data);
  // Chunks are at least 4 KiB and fit the budget together: no byte is read
  // twice, and with a plan each file's share is read in one request.
  EXPECT_LT(readahead.bytes_read(), data * 11 / 10);
  EXPECT_LT(readahead.reads_issued(), uint64_t{kFiles} * kRecords / 10);
  if (hinted) {
    const uint64_t share = kBudget / 4 * 3 / kFiles;
    EXPECT_LE(readahead.reads_issued(), data / share + 2 * kFiles);
  }
}

INSTANTIATE_TEST_SUITE_P(RunHints, MediumReadaheadTest, testing::Bool(),
                         [](const testing::TestParamInfo<bool>& hinted) {
                           return hinted.param ? "Hinted" : "Unhinted";
                         });

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
