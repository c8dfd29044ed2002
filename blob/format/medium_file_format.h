// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// Medium value file format, version 2. `<number>.medium` holds one flush
// output's medium values in the SST's key order; it is written once and
// deleted when no SST points into it. Meanwhile runs no SST points into may be
// punched out (docs/medium_space.md): they read back as zeros, never read.
//
// clang-format off
//   file    := header record* footer
//   header  := magic:fixed64 version:fixed32 header_crc:fixed32        (16 bytes)
//   record  := record_crc:fixed32 key_size:varint32 value_size:varint32 key value
//              (key_size is 0 and key empty from version 2 on: see below)
//   footer  := record_count:fixed64 data_end:fixed64 footer_crc:fixed32
//              version:fixed32 magic:fixed64                           (32 bytes)
// clang-format on
//
// Fixed-width integers are little-endian. Every crc is a masked crc32c
// (util/crc32c.h): header_crc covers magic and version; footer_crc covers
// record_count and data_end. `data_end` is the footer's offset.
// Version 2 elides the key (key_size 0); record_crc covers the rest of the
// record then the user key, proving a read record intact and the pointer's.
// Version 1 stored the key (key_size > 0, record_crc over the rest) and is
// still read by the same rule: for an empty key the two crcs agree.
#pragma once

#include <cstdint>
#include <string>

#include "rocksdb/slice.h"
#include "rocksdb/status.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

constexpr uint64_t kMediumFileMagic =
    0x3164656d766b6268ull;                     // "hbkvmed1", little-endian
constexpr uint32_t kMediumFileVersion = 2;     // written
constexpr uint32_t kMinMediumFileVersion = 1;  // oldest read
const char* const kMediumFileSuffix = ".medium";

struct MediumFileHeader {
  static constexpr size_t kEncodedLength = 16;
  uint32_t version = kMediumFileVersion;

  void EncodeTo(char* dst) const;  // kEncodedLength bytes
  // Corruption on a bad magic or crc; NotSupported on a version not read.
  Status DecodeFrom(const Slice& input);
};

struct MediumFileFooter {
  static constexpr size_t kEncodedLength = 32;
  uint64_t record_count = 0;
  uint64_t data_end = 0;  // the footer's offset

  void EncodeTo(char* dst) const;  // kEncodedLength bytes
  // Corruption on a bad magic or crc.
  Status DecodeFrom(const Slice& input);
};

// `<dir>/<number>.medium`
std::string MediumFileName(const std::string& dir, uint64_t number);

// The number in `name` ("<number>.medium"); 0 if not a medium file's.
uint64_t MediumNumberOf(const std::string& name);

// Appends the record of `value` for `user_key` (its key elided) to `*out`.
void AppendMediumRecord(const Slice& user_key, const Slice& value,
                        std::string* out);

// Decodes one whole record, checking crc and key; `*value` points into it.
Status DecodeMediumRecord(const Slice& record, const Slice& user_key,
                          Slice* value);

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
