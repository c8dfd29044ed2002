// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// The medium file format (blob/format/medium_file_format.h) without a file:
// header, footer and records round-trip, and every damage is Corruption.
#include "plugin/hybridkv/blob/format/medium_file_format.h"

#include <gtest/gtest.h>

#include <string>

#include "test_util.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

TEST(MediumFileFormatTest, HeaderAndFooterRoundTripAndCheckTheirCrc) {
  char header[MediumFileHeader::kEncodedLength];
  MediumFileHeader().EncodeTo(header);
  MediumFileHeader h;
  ASSERT_OK(h.DecodeFrom(Slice(header, sizeof(header))));
  EXPECT_EQ(h.version, kMediumFileVersion);
  header[9] ^= 1;  // the version, under the crc
  EXPECT_TRUE(h.DecodeFrom(Slice(header, sizeof(header))).IsCorruption());

  MediumFileFooter f;
  f.record_count = 7;
  f.data_end = 12345;
  char footer[MediumFileFooter::kEncodedLength];
  f.EncodeTo(footer);
  MediumFileFooter g;
  ASSERT_OK(g.DecodeFrom(Slice(footer, sizeof(footer))));
  EXPECT_EQ(g.record_count, 7u);
  EXPECT_EQ(g.data_end, 12345u);
  EXPECT_TRUE(g.DecodeFrom(Slice(footer, sizeof(footer) - 1)).IsCorruption());
  footer[3] ^= 1;
  EXPECT_TRUE(g.DecodeFrom(Slice(footer, sizeof(footer))).IsCorruption());
}

// A record's crc covers its key, which is not stored: decoding with another
// key, or after any flipped byte, is Corruption.
TEST(MediumFileFormatTest, RecordsDecodeOnlyWithTheirKeyAndIntact) {
  std::string record;
  AppendMediumRecord("key1", "a medium value", &record);
  EXPECT_EQ(record.find("key1"), std::string::npos);
  Slice value;
  ASSERT_OK(DecodeMediumRecord(record, "key1", &value));
  EXPECT_EQ(value, "a medium value");
  EXPECT_TRUE(DecodeMediumRecord(record, "key2", &value).IsCorruption());
  for (size_t i = 0; i < record.size(); i++) {
    std::string damaged = record;
    damaged[i] ^= 0x20;
    EXPECT_TRUE(DecodeMediumRecord(damaged, "key1", &value).IsCorruption())
        << i;
  }
  EXPECT_TRUE(DecodeMediumRecord(Slice(record.data(), record.size() - 1),
                                 "key1", &value)
                  .IsCorruption());
}

// A medium file's name is its number and the suffix, nothing else.
TEST(MediumFileFormatTest, NumberOnlyFromDigitsUpToTheSuffix) {
  EXPECT_EQ(MediumNumberOf("123.medium"), 123u);
  EXPECT_EQ(MediumNumberOf(MediumFileName("/d", 42).substr(3)), 42u);
  for (const char* not_ours :
       {"7-notes.medium", ".medium", "x.medium", "12.medium.bak", "12.sst",
        "-3.medium", " 3.medium", "99999999999999999999.medium"}) {
    EXPECT_EQ(MediumNumberOf(not_ours), 0u) << not_ours;
  }
}

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
