// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// SipHash-2-4 (blob/format/siphash.h), the MAC of medium pointers.
#include "plugin/hybridkv/blob/format/siphash.h"

#include <gtest/gtest.h>

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

const SipKey kPaperKey{0x0706050403020100ull, 0x0f0e0d0c0b0a0908ull};

TEST(SipHashTest, ReferenceVectors) {
  // From the SipHash paper (Appendix A) and its reference vectors.
  SipHash24 empty(kPaperKey);
  EXPECT_EQ(empty.Final(), 0x726fdb47dd0e0e31ull);
  unsigned char msg[15];
  for (int i = 0; i < 15; ++i) msg[i] = static_cast<unsigned char>(i);
  SipHash24 whole(kPaperKey);
  whole.Update(msg, sizeof(msg));
  EXPECT_EQ(whole.Final(), 0xa129ca6149be45e5ull);
  SipHash24 pieces(kPaperKey);  // incremental updates give the same tag
  pieces.Update(msg, 3);
  pieces.Update(msg + 3, 9);
  pieces.Update(msg + 12, 3);
  EXPECT_EQ(pieces.Final(), 0xa129ca6149be45e5ull);
}

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
