// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "plugin/hybridkv/blob/format/medium_file_format.h"

#include <limits>

#include "plugin/hybridkv/blob/format/record_crc.h"
#include "util/coding.h"
#include "util/crc32c.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

// Crc of a key-elided record: `body` (after the crc field), then the user key.
uint32_t RecordChecksum(const Slice& body, const Slice& user_key) {
  return RecordCrcExtend(RecordCrc(body.data(), body.size()), user_key.data(),
                         user_key.size());
}

}  // namespace

uint64_t MediumNumberOf(const std::string& name) {
  // Digits only up to the suffix: a user's "7-notes.medium" is not file 7.
  const size_t n = std::char_traits<char>::length(kMediumFileSuffix);
  if (name.size() <= n || name.compare(name.size() - n, n, kMediumFileSuffix)) {
    return 0;
  }
  uint64_t number = 0;
  for (size_t i = 0; i < name.size() - n; i++) {
    const char c = name[i];
    if (c < '0' || c > '9' ||
        number > (std::numeric_limits<uint64_t>::max() - (c - '0')) / 10) {
      return 0;
    }
    number = number * 10 + static_cast<uint64_t>(c - '0');
  }
  return number;
}

std::string MediumFileName(const std::string& dir, uint64_t number) {
  return dir + "/" + std::to_string(number) + kMediumFileSuffix;
}

void MediumFileHeader::EncodeTo(char* dst) const {
  EncodeFixed64(dst, kMediumFileMagic);
  EncodeFixed32(dst + 8, version);
  EncodeFixed32(dst + 12, crc32c::Mask(crc32c::Value(dst, 12)));
}

Status MediumFileHeader::DecodeFrom(const Slice& input) {
  if (input.size() < kEncodedLength ||
      DecodeFixed64(input.data()) != kMediumFileMagic ||
      crc32c::Unmask(DecodeFixed32(input.data() + 12)) !=
          crc32c::Value(input.data(), 12)) {
    return Status::Corruption("bad medium file header");
  }
  version = DecodeFixed32(input.data() + 8);
  if (version < kMinMediumFileVersion || version > kMediumFileVersion) {
    return Status::NotSupported(
        "format version " + std::to_string(version) +
        "; this HybridKV reads versions " +
        std::to_string(kMinMediumFileVersion) + " to " +
        std::to_string(kMediumFileVersion) +
        ". Open the DB with the HybridKV release that wrote it.");
  }
  return Status::OK();
}

void MediumFileFooter::EncodeTo(char* dst) const {
  EncodeFixed64(dst, record_count);
  EncodeFixed64(dst + 8, data_end);
  EncodeFixed32(dst + 16, crc32c::Mask(crc32c::Value(dst, 16)));
  EncodeFixed32(dst + 20, kMediumFileVersion);
  EncodeFixed64(dst + 24, kMediumFileMagic);
}

Status MediumFileFooter::DecodeFrom(const Slice& input) {
  if (input.size() < kEncodedLength ||
      DecodeFixed64(input.data() + 24) != kMediumFileMagic ||
      crc32c::Unmask(DecodeFixed32(input.data() + 16)) !=
          crc32c::Value(input.data(), 16)) {
    return Status::Corruption("bad medium file footer");
  }
  record_count = DecodeFixed64(input.data());
  data_end = DecodeFixed64(input.data() + 8);
  return Status::OK();
}

void AppendMediumRecord(const Slice& user_key, const Slice& value,
                        std::string* out) {
  const size_t start = out->size();
  out->append(4, '\0');  // crc, filled in below
  PutVarint32(out, 0);
  PutVarint32(out, static_cast<uint32_t>(value.size()));
  out->append(value.data(), value.size());
  const Slice body(out->data() + start + 4, out->size() - start - 4);
  EncodeFixed32(&(*out)[start],
                crc32c::Mask(RecordChecksum(body, user_key)));
}

Status DecodeMediumRecord(const Slice& record, const Slice& user_key,
                          Slice* value) {
  if (record.size() < 6) {
    return Status::Corruption("medium record too short");
  }
  Slice in(record.data() + 4, record.size() - 4);
  uint32_t key_size, value_size;
  if (!GetVarint32(&in, &key_size) || !GetVarint32(&in, &value_size) ||
      in.size() != static_cast<uint64_t>(key_size) + value_size) {
    return Status::Corruption("medium record has bad lengths");
  }
  const Slice body(record.data() + 4, record.size() - 4);
  // Version 1 stored the key, and its crc covers the body alone.
  const uint32_t crc = key_size == 0 ? RecordChecksum(body, user_key)
                                     : RecordCrc(body.data(), body.size());
  if (crc != crc32c::Unmask(DecodeFixed32(record.data()))) {
    return Status::Corruption(
        key_size == 0 ? "medium record checksum mismatch (damaged, or not the "
                        "pointer's key's record)"
                      : "medium record checksum mismatch");
  }
  if (key_size != 0 && Slice(in.data(), key_size) != user_key) {
    return Status::Corruption("record holds another key than the pointer's");
  }
  *value = Slice(in.data() + key_size, value_size);
  return Status::OK();
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
