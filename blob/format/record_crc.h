// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// crc32c of medium records, equal to RocksDB's crc32c::Value but through the
// CPU's crc32 instruction wherever it exists. RocksDB picks its implementation
// at compile time, so a portable build (`-DPORTABLE=1`, Debian's) computes it
// in software, and every record is checksummed on write and on every read.
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
