// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "plugin/hybridkv/table/compaction_pointer.h"

#include <random>

#include "plugin/hybridkv/table/medium_values.h"
#include "util/coding.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

constexpr size_t kHeaderSize = 1 + 8 + 8;

uint64_t DrawToken() {
  std::random_device device;  // the OS's entropy, not a seeded generator
  return (uint64_t{device()} << 32) ^ device();
}

uint64_t ProcessToken() {
  static const uint64_t token = DrawToken();
  return token;
}

}  // namespace

void EncodeCompactionPointer(TableMediumValues* table, const Slice& stored,
                             std::string* out) {
  out->push_back(static_cast<char>(kCompactionPointerTag));
  PutFixed64(out, ProcessToken());
  PutFixed64(out, reinterpret_cast<uintptr_t>(table));
  out->append(stored.data(), stored.size());
}

bool DecodeCompactionPointer(const Slice& value, CompactionPointer* decoded) {
  if (value.size() <= kHeaderSize ||
      static_cast<unsigned char>(value[0]) != kCompactionPointerTag ||
      DecodeFixed64(value.data() + 1) != ProcessToken()) {
    return false;
  }
  const Slice stored(value.data() + kHeaderSize, value.size() - kHeaderSize);
  MediumPointer pointer;
  if (!PeekMediumPointer(stored, &pointer)) {
    return false;
  }
  decoded->table = reinterpret_cast<TableMediumValues*>(
      static_cast<uintptr_t>(DecodeFixed64(value.data() + 9)));
  decoded->stored = stored;
  decoded->pointer = pointer;
  return true;
}

Status ResolveIfCompactionPointer(const Slice& value, const Slice& user_key,
                                  bool* is_pointer, std::string* resolved) {
  CompactionPointer decoded;
  *is_pointer = DecodeCompactionPointer(value, &decoded);
  if (!*is_pointer) {
    return Status::OK();
  }
  // Records are keyed without the timestamp, which compactions may rewrite.
  const size_t ts = decoded.table->context().timestamp_size;
  const Slice record_key(user_key.data(),
                         user_key.size() >= ts ? user_key.size() - ts : 0);
  // Like RocksDB's own compaction reads, do not fill the block cache.
  ReadOptions read_options;
  read_options.fill_cache = false;
  read_options.io_activity = CurrentIOActivity();
  return decoded.table->ResolvePointer(MediumReadOptions(read_options),
                                       decoded.pointer, record_key, resolved);
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
