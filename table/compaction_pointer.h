// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// Compaction pointers carry a medium pointer (medium_pointer.h) through a
// compaction, in memory only: input iterators hand RocksDB each pointer entry
// as a kTypeValue holding one, copied like any value without reading it:
// clang-format off
//   compaction_pointer := tag:u8 token:fixed64 table:fixed64 pointer
// clang-format on
// - tag: 0xC1 (kCompactionPointerTag).
// - token: 64 random bits drawn once per process, never persisted, so no user
//   value passes for one; a stored pointer's bytes are no secret (a user may
//   Put them, and they must stay a value).
// - table: the input's TableMediumValues, valid while the compaction runs
//   (RocksDB keeps inputs open); filters and merge operators resolve through
//   it, never a guess among DBs (copies share secrets, file numbers, keys).
// - pointer: the pointer as stored in the SST.
// Read by the output HybridTableBuilder and compaction_filter/.
#pragma once

#include <cstdint>
#include <string>

#include "plugin/hybridkv/blob/format/medium_pointer.h"
#include "rocksdb/slice.h"
#include "rocksdb/status.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

class TableMediumValues;

constexpr unsigned char kCompactionPointerTag = 0xC1;
// 1 + 8 + 8 + kMaxMediumPointerSize: the largest compaction pointer. RocksDB's
// BlobDB must never take one for a large value (min_blob_size above this).
constexpr size_t kMaxCompactionPointerSize = 17 + kMaxMediumPointerSize;

struct CompactionPointer {
  TableMediumValues* table = nullptr;
  Slice stored;           // the pointer as the SST stores it
  MediumPointer pointer;  // `stored`, decoded
};

// Appends the compaction pointer for `stored`, an entry of `table`, to `*out`.
void EncodeCompactionPointer(TableMediumValues* table, const Slice& stored,
                             std::string* out);

// True iff `value` is a compaction pointer made in this process; fills
// `*decoded` (whose `stored` points into `value`).
bool DecodeCompactionPointer(const Slice& value, CompactionPointer* decoded);

// Sets `*is_pointer`; if true, resolves `value` through its table into
// `*resolved`. `user_key` is as filters see it, with any timestamp.
Status ResolveIfCompactionPointer(const Slice& value, const Slice& user_key,
                                  bool* is_pointer, std::string* resolved);

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
