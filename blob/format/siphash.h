// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#pragma once

#include <cstddef>
#include <cstdint>

#include "rocksdb/rocksdb_namespace.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

// A 128-bit SipHash key.
struct SipKey {
  uint64_t k0 = 0;
  uint64_t k1 = 0;
};

// SipHash-2-4 (Aumasson and Bernstein, 2012), a keyed MAC with a 64-bit tag;
// incremental, to cover non-contiguous pieces (pointer fields, user key).
class SipHash24 {
 public:
  explicit SipHash24(const SipKey& key);
  void Update(const void* data, size_t n);
  uint64_t Final();

 private:
  void Compress(uint64_t m);

  uint64_t v0_, v1_, v2_, v3_;
  uint64_t tail_ = 0;  // pending bytes, little-endian
  size_t tail_len_ = 0;
  uint64_t total_ = 0;  // bytes hashed so far
};

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
