// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "plugin/hybridkv/blob/format/medium_pointer.h"

#include "util/coding.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

uint64_t Mac(const SipKey& secret, const Slice& fields, const Slice& user_key) {
  SipHash24 h(secret);
  h.Update(fields.data(), fields.size());
  h.Update(user_key.data(), user_key.size());
  return h.Final();
}

}  // namespace

void EncodeMediumPointer(const SipKey& secret, const MediumPointer& pointer,
                         const Slice& user_key, std::string* out) {
  const size_t start = out->size();
  out->push_back(static_cast<char>(kMediumPointerTag));
  PutVarint64(out, pointer.file_number);
  PutVarint64(out, pointer.handle.offset);
  PutVarint32(out, pointer.handle.size);
  const Slice fields(out->data() + start, out->size() - start);
  PutFixed64(out, Mac(secret, fields, user_key));
}

bool PeekMediumPointer(const Slice& value, MediumPointer* pointer) {
  if (!MayBeMediumPointer(value)) {
    return false;
  }
  Slice in(value.data() + 1, value.size() - 1);
  MediumPointer p;
  if (!GetVarint64(&in, &p.file_number) ||
      !GetVarint64(&in, &p.handle.offset) ||
      !GetVarint32(&in, &p.handle.size) || in.size() != kMediumPointerMacSize) {
    return false;
  }
  *pointer = p;
  return true;
}

bool DecodeMediumPointer(const SipKey& secret, const Slice& value,
                         const Slice& user_key, MediumPointer* pointer) {
  MediumPointer p;
  if (!PeekMediumPointer(value, &p)) {
    return false;
  }
  const Slice fields(value.data(), value.size() - kMediumPointerMacSize);
  if (DecodeFixed64(value.data() + fields.size()) !=
      Mac(secret, fields, user_key)) {
    return false;
  }
  *pointer = p;
  return true;
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
