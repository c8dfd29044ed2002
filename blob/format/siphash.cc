// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "plugin/hybridkv/blob/format/siphash.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

inline uint64_t Rotl(uint64_t x, int b) { return (x << b) | (x >> (64 - b)); }

inline void Round(uint64_t& v0, uint64_t& v1, uint64_t& v2, uint64_t& v3) {
  v0 += v1;
  v1 = Rotl(v1, 13);
  v1 ^= v0;
  v0 = Rotl(v0, 32);
  v2 += v3;
  v3 = Rotl(v3, 16);
  v3 ^= v2;
  v0 += v3;
  v3 = Rotl(v3, 21);
  v3 ^= v0;
  v2 += v1;
  v1 = Rotl(v1, 17);
  v1 ^= v2;
  v2 = Rotl(v2, 32);
}

}  // namespace

SipHash24::SipHash24(const SipKey& key)
    : v0_(key.k0 ^ 0x736f6d6570736575ull),
      v1_(key.k1 ^ 0x646f72616e646f6dull),
      v2_(key.k0 ^ 0x6c7967656e657261ull),
      v3_(key.k1 ^ 0x7465646279746573ull) {}

void SipHash24::Compress(uint64_t m) {
  v3_ ^= m;
  Round(v0_, v1_, v2_, v3_);
  Round(v0_, v1_, v2_, v3_);
  v0_ ^= m;
}

void SipHash24::Update(const void* data, size_t n) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  total_ += n;
  for (size_t i = 0; i < n; ++i) {
    tail_ |= static_cast<uint64_t>(p[i]) << (8 * tail_len_);
    if (++tail_len_ == 8) {
      Compress(tail_);
      tail_ = 0;
      tail_len_ = 0;
    }
  }
}

uint64_t SipHash24::Final() {
  Compress(tail_ | (total_ << 56));
  v2_ ^= 0xff;
  for (int i = 0; i < 4; ++i) Round(v0_, v1_, v2_, v3_);
  return v0_ ^ v1_ ^ v2_ ^ v3_;
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
