// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// crc32c::Value for medium records, via the CPU's crc32 instruction where it
// exists: RocksDB chooses at compile time, so portable builds (-DPORTABLE=1,
// Debian's) would crc every record write and read in software.
#pragma once

#include <cstddef>
#include <cstdint>

#include "rocksdb/rocksdb_namespace.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

// Equal to crc32c::Value(data, n) for every input.
uint32_t RecordCrc(const char* data, size_t n);

// Equal to crc32c::Extend(crc, data, n).
uint32_t RecordCrcExtend(uint32_t crc, const char* data, size_t n);

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
