// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// blob/format/: HybridKV's encodings, without I/O: the pointer an SST holds in
// a medium value's place (this header) and its MAC (siphash.h), the medium
// file and its records (medium_file_format.h) with their crc (record_crc.h),
// the references an SST records in its properties (medium_refs.h) and their
// byte runs (medium_runs.h).
//
// May depend on: RocksDB headers only.
//
// Medium pointer format, version 1: what an SST stores for a medium value.
//
// clang-format off
//   pointer := tag:u8 file_number:varint64 offset:varint64 size:varint32 mac:fixed64
// clang-format on
//
// - tag is 0xB1: magic nibble 0xB, format version 1. Every tag is >= 3, so
//   stock RocksDB's BlobIndex::DecodeFrom rejects it: on disk, pointer entries
//   carry value type kTypeBlobIndex, and a DB opened without HybridKV fails
//   loudly instead of returning a pointer as a value.
// - file_number, offset, size locate one record of `<file_number>.medium`
//   (medium_file_format.h).
// - mac is SipHash-2-4, keyed by the DB's 128-bit secret, over the bytes
//   before it followed by the entry's user key. A value is a pointer iff it
//   decodes completely, its tag matches and its MAC verifies: a client cannot
//   forge one through Put without the secret, and a pointer copied to another
//   key does not verify. The sequence number is not covered, because
//   bottommost compactions zero it.
//
// There is no separate value checksum: the record's own crc32c, which covers
// the user key (medium_file_format.h) and is checked on every resolve, already
// catches a damaged or misdirected record.
#pragma once

#include <cstdint>
#include <string>

#include "plugin/hybridkv/blob/format/siphash.h"
#include "rocksdb/slice.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

constexpr unsigned char kMediumPointerTag = 0xB1;
constexpr size_t kMediumPointerMacSize = 8;
// 1 + 10 + 10 + 5 + 8: the largest pointer possible.
constexpr size_t kMaxMediumPointerSize = 34;

// Where one record lives: enough to read it back with a single positioned read.
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

// True iff `value` is a complete pointer for `user_key` under `secret`; fills
// `*pointer`.
bool DecodeMediumPointer(const SipKey& secret, const Slice& value,
                         const Slice& user_key, MediumPointer* pointer);

// Decodes the location fields without checking the MAC: only for entries
// HybridKV itself wrote (kTypeBlobIndex with the pointer tag).
bool PeekMediumPointer(const Slice& value, MediumPointer* pointer);

// False means `value` is certainly not a pointer (checks size and tag only).
inline bool MayBeMediumPointer(const Slice& value) {
  return value.size() >= 1 + 3 + kMediumPointerMacSize &&
         static_cast<unsigned char>(value[0]) == kMediumPointerTag;
}

// True when `value` starts with a tag of the pointer format's magic nibble,
// of any version: BlobDB's blob indexes start with a type below 3.
inline bool HasMediumPointerMagic(const Slice& value) {
  return !value.empty() && (static_cast<unsigned char>(value[0]) & 0xF0) ==
                               (kMediumPointerTag & 0xF0);
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
