// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// The medium pointer (blob/format/medium_pointer.h): its encoding, and the MAC
// that binds it to its key and its DB.
#include "plugin/hybridkv/blob/format/medium_pointer.h"

#include <gtest/gtest.h>

#include <string>

#include "util/coding.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

TEST(MediumPointerTest, RoundTripAndSize) {
  SipKey secret{0x1234, 0x5678};
  MediumPointer p;
  p.file_number = 1234;
  p.handle.offset = 5'000'000;
  p.handle.size = 140;
  std::string encoded;
  EncodeMediumPointer(secret, p, "user-key-000001", &encoded);
  // tag 1 + file 2 + offset 4 + size 2 + mac 8
  EXPECT_EQ(encoded.size(), 17u);
  MediumPointer out;
  ASSERT_TRUE(DecodeMediumPointer(secret, encoded, "user-key-000001", &out));
  EXPECT_EQ(out.file_number, 1234u);
  EXPECT_EQ(out.handle.offset, 5'000'000u);
  EXPECT_EQ(out.handle.size, 140u);
}

TEST(MediumPointerTest, RejectsForgeriesAndDamage) {
  SipKey secret{0xdeadbeef, 0xfeedface};
  MediumPointer p;
  p.file_number = 7;
  p.handle.offset = 16;
  p.handle.size = 120;
  std::string good;
  EncodeMediumPointer(secret, p, "k", &good);
  MediumPointer out;
  EXPECT_FALSE(DecodeMediumPointer(secret, good, "other-key",
                                   &out));  // moved to another key
  EXPECT_FALSE(DecodeMediumPointer(SipKey{1, 2}, good, "k",
                                   &out));    // another DB's secret
  for (size_t i = 0; i < good.size(); ++i) {  // any flipped byte
    std::string bad = good;
    bad[i] ^= 0x01;
    EXPECT_FALSE(DecodeMediumPointer(secret, bad, "k", &out)) << "byte " << i;
  }
  EXPECT_FALSE(
      DecodeMediumPointer(secret, good + "x", "k", &out));  // trailing bytes
  EXPECT_FALSE(
      DecodeMediumPointer(secret, good.substr(0, good.size() - 1), "k", &out));
  // A value that imitates the layout with a guessed MAC.
  std::string forged = good;
  EncodeFixed64(&forged[forged.size() - 8], 0x0123456789abcdefull);
  EXPECT_FALSE(DecodeMediumPointer(secret, forged, "k", &out));
  EXPECT_FALSE(DecodeMediumPointer(secret, "", "k", &out));
}

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
