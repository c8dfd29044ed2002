// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// Compaction pointers: how a medium pointer crosses a compaction, in memory
// only.
//
// On disk a pointer entry is kTypeBlobIndex with the pointer tag
// (medium_pointer.h), which only HybridKV's table reader can tell from
// BlobDB's blob indexes. A compaction's input iterator hands RocksDB each such
// entry as a kTypeValue whose value is a compaction pointer, so that RocksDB
// copies it like any value and never reads the medium value:
//
// clang-format off
//   compaction_pointer := tag:u8 token:fixed64 table:fixed64 pointer
// clang-format on
//
// - tag is 0xC1 (kCompactionPointerTag).
// - token is this process's compaction token: 64 random bits drawn once per
//   process, which never leave its memory.
// - table is the address of the TableMediumValues of the input table that
//   holds the entry. RocksDB keeps an input table open until its compaction
//   ends, so the address is valid wherever the compaction hands the value.
// - pointer is the pointer as stored in the SST.
//
// Why not the stored pointer itself: its bytes are no secret. A
// TablePropertiesCollector sees them, and a user may Put them as a value; the
// output builder must write those bytes back as that value, not as a pointer.
// A value is a compaction pointer iff its token matches, which no value a
// user writes can do: the token is never written anywhere. And the table
// names the DB whose medium files the pointer refers to, so that a compaction
// filter or merge operator resolves it through that DB's own reader, never
// through a guess among the DBs of the process (two copies of one DB share
// secrets, file numbers and keys).
//
// Readers of a compaction pointer: the output HybridTableBuilder (it writes
// the stored pointer back, or the value inline at the merge level) and the
// compaction filter and merge operator wrappers (compaction_filter/).
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
