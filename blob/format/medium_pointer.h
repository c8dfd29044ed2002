// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// blob/format/: HybridKV's encodings, without I/O: the medium pointer (this
// header) and its MAC (siphash.h), medium files (medium_file_format.h), record
// crc (record_crc.h), SST references (medium_refs.h) and runs (medium_runs.h).
// May depend on: RocksDB headers only.
//
// Medium pointer format, version 1: what an SST stores for a medium value.
//
// clang-format off
//   pointer := tag:u8 file_number:varint64 offset:varint64 size:varint32 mac:fixed64
// clang-format on
//
// - tag is 0xB1: magic nibble 0xB, format version 1. Stored as kTypeBlobIndex,
//   which stock RocksDB rejects for tags >= 3 (BlobIndex::DecodeFrom): without
//   HybridKV a DB fails loudly instead of returning pointers as values.
// - file_number, offset, size locate one record of `<file_number>.medium`
//   (medium_file_format.h).
// - mac: SipHash-2-4 keyed by the DB's 128-bit secret, over the preceding bytes
//   then the user key (not the seqno, which bottommost compactions zero). A
//   value is a pointer iff it decodes fully, its tag matches and its MAC
//   verifies: Put cannot forge one, nor a copy verify under another key.
// No value checksum: the record's crc32c covers the user key and is checked on
// every resolve (medium_file_format.h).
#pragma once

#include <cstdint>
#include <string>

#include "plugin/hybridkv/blob/format/siphash.h"
#include "rocksdb/slice.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

constexpr unsigned char kMediumPointerTag = 0xB1;
constexpr size_t kMediumPointerMacSize = 8;
constexpr size_t kMaxMediumPointerSize = 34;  // 1 + 10 + 10 + 5 + 8

// Where one record lives, for a single positioned read.
struct MediumRecordHandle {
  uint64_t offset = 0;  // of the record's first byte
  uint32_t size = 0;    // of the whole record, crc included
};

struct MediumPointer {
  uint64_t file_number = 0;
  MediumRecordHandle handle;
};

// Appends the pointer for `user_key` to `*out`.
void EncodeMediumPointer(const SipKey& secret, const MediumPointer& pointer,
                         const Slice& user_key, std::string* out);

// True iff `value` is a complete, verified pointer for `user_key`.
bool DecodeMediumPointer(const SipKey& secret, const Slice& value,
                         const Slice& user_key, MediumPointer* pointer);

// Skips the MAC check: only for HybridKV's own kTypeBlobIndex entries.
bool PeekMediumPointer(const Slice& value, MediumPointer* pointer);

// False means `value` is certainly not a pointer (checks size and tag only).
inline bool MayBeMediumPointer(const Slice& value) {
  return value.size() >= 1 + 3 + kMediumPointerMacSize &&
         static_cast<unsigned char>(value[0]) == kMediumPointerTag;
}

// A pointer tag of any version; BlobDB's blob indexes start with a type < 3.
inline bool HasMediumPointerMagic(const Slice& value) {
  return !value.empty() && (static_cast<unsigned char>(value[0]) & 0xF0) ==
                               (kMediumPointerTag & 0xF0);
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
