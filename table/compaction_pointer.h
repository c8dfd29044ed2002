// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// Compaction pointers: how a medium pointer crosses a compaction, in memory
// only. A compaction's input iterator hands RocksDB each pointer entry
// (kTypeBlobIndex with the pointer tag, medium_pointer.h) as a kTypeValue
// whose value is a compaction pointer, so that RocksDB copies it like any
// value and never reads the medium value:
//
// clang-format off
//   compaction_pointer := tag:u8 token:fixed64 table:fixed64 pointer
// clang-format on
//
// - tag is 0xC1 (kCompactionPointerTag).
// - token: 64 random bits drawn once per process and never written anywhere,
//   so no value a user writes passes for a compaction pointer. The stored
//   pointer's bytes are no secret: a user may Put them as a value, and the
//   output builder must write them back as that value.
// - table: the address of the input table's TableMediumValues, valid wherever
//   the compaction hands the value (RocksDB keeps its inputs open until it
//   ends). Filters and merge operators resolve through that DB's own reader,
//   never a guess among the process's DBs (copies of one DB share secrets,
//   file numbers and keys).
// - pointer: the pointer as stored in the SST.
//
// Read by the output HybridTableBuilder (which writes the stored pointer
// back, or the value inline at the merge level) and compaction_filter/.
#pragma once

#include <cstdint>
#include <string>

#include "plugin/hybridkv/blob/medium/medium_pointer.h"
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

// Resolves `value` if it is a compaction pointer, through the table that
// holds it: sets `*is_pointer`, and when true `*resolved` holds the medium
// value or the status says why it could not be read. `user_key` is the key
// as compaction filters and merge operators see it, with its timestamp if the
// column family has them.
Status ResolveIfCompactionPointer(const Slice& value, const Slice& user_key,
                                  bool* is_pointer, std::string* resolved);

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
