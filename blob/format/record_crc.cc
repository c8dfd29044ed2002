// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "plugin/hybridkv/blob/format/record_crc.h"

#include <cstring>

#include "util/crc32c.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <nmmintrin.h>
#define HYBRIDKV_HAVE_CRC32_INSTRUCTION 1
#endif

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

#ifdef HYBRIDKV_HAVE_CRC32_INSTRUCTION
// Built for SSE4.2 whatever the flags; called only where the CPU has it.
__attribute__((target("sse4.2"))) uint32_t HardwareCrc(uint32_t init,
                                                       const char* p,
                                                       size_t n) {
  uint64_t crc = init ^ 0xffffffffu;  // crc32c's inversion, as RocksDB's
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t word;
    std::memcpy(&word, p, 8);
    crc = _mm_crc32_u64(crc, word);
  }
  uint32_t crc32 = static_cast<uint32_t>(crc);
  for (; n > 0; p++, n--) {
    crc32 = _mm_crc32_u8(crc32, static_cast<unsigned char>(*p));
  }
  return crc32 ^ 0xffffffffu;
}

bool CpuHasCrc32() {
  static const bool has = __builtin_cpu_supports("sse4.2");
  return has;
}
#endif

}  // namespace

uint32_t RecordCrc(const char* data, size_t n) {
  return RecordCrcExtend(0, data, n);
}

uint32_t RecordCrcExtend(uint32_t crc, const char* data, size_t n) {
#ifdef HYBRIDKV_HAVE_CRC32_INSTRUCTION
  if (CpuHasCrc32()) {
    return HardwareCrc(crc, data, n);
  }
#endif
  return crc32c::Extend(crc, data, n);
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
