// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// Medium value file format, version 2. One file, `<number>.medium`, holds the
// medium values of one flush output, in the SST's key order; it is written
// once and deleted when no SST points into it any more. Meanwhile record runs
// that no SST points into may be punched out (docs/medium_space.md): they read
// back as zeros, and nothing reads them.
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
// All fixed-width integers are little-endian. Every crc is a masked crc32c
// (util/crc32c.h): header_crc covers magic and version; footer_crc covers
// record_count and data_end. `data_end` is the offset of the footer.
//
// A record's key is elided: version 2 writes key_size 0 and no key, and
// record_crc covers the rest of the record followed by the user key. A read
// through a pointer knows the key, so the crc checks at once that the record
// is intact and that it is the one the pointer was sent to. Version 1 stored
// the key (key_size > 0, record_crc over the rest of the record) and is still
// read: the same rule decodes both, since for an empty key the two crcs agree.
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
  // Corruption for a wrong magic or crc; NotSupported for a version this
  // HybridKV does not read.
  Status DecodeFrom(const Slice& input);
};

struct MediumFileFooter {
  static constexpr size_t kEncodedLength = 32;
  uint64_t record_count = 0;
  uint64_t data_end = 0;  // the footer's offset

  void EncodeTo(char* dst) const;  // kEncodedLength bytes
  // Corruption for a wrong magic or crc.
  Status DecodeFrom(const Slice& input);
};

// `<dir>/<number>.medium`
std::string MediumFileName(const std::string& dir, uint64_t number);

// The number of file name `name` ("<number>.medium"); 0 when it is not a
// medium file's.
uint64_t MediumNumberOf(const std::string& name);

// Appends the record of `value` for `user_key` (its key elided) to `*out`.
void AppendMediumRecord(const Slice& user_key, const Slice& value,
                        std::string* out);

// Decodes `record` (exactly one), checks its crc and that it holds
// `user_key`. On success `*value` points into `record`.
Status DecodeMediumRecord(const Slice& record, const Slice& user_key,
                          Slice* value);

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
