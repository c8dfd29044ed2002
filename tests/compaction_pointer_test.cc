// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// Compaction pointers (table/compaction_pointer.h): what a compaction sees in
// place of a stored medium pointer, and why no value a user writes is taken
// for one.
#include "plugin/hybridkv/table/compaction_pointer.h"

#include <gtest/gtest.h>

#include <string>

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

std::string StoredPointer(const std::string& key) {
  SipKey secret{};
  secret.k0 = 1;
  secret.k1 = 2;
  MediumPointer pointer;
  pointer.file_number = 12;
  pointer.handle.offset = 4096;
  pointer.handle.size = 300;
  std::string stored;
  EncodeMediumPointer(secret, pointer, key, &stored);
  return stored;
}

// A compaction pointer decodes to the stored pointer and the table it came
// from, and is never longer than the bound min_blob_size is checked against.
TEST(CompactionPointerTest, RoundTrips) {
  const std::string stored = StoredPointer("key");
  auto* table = reinterpret_cast<TableMediumValues*>(uintptr_t{0x1234560});
  std::string encoded;
  EncodeCompactionPointer(table, stored, &encoded);
  EXPECT_LE(encoded.size(), kMaxCompactionPointerSize);
  CompactionPointer decoded;
  ASSERT_TRUE(DecodeCompactionPointer(encoded, &decoded));
  EXPECT_EQ(decoded.table, table);
  EXPECT_EQ(decoded.stored.ToString(), stored);
  EXPECT_EQ(decoded.pointer.file_number, 12u);
  EXPECT_EQ(decoded.pointer.handle.offset, 4096u);
  EXPECT_EQ(decoded.pointer.handle.size, 300u);
}

// The stored pointer's bytes, which collectors see and a user may Put, are
// not a compaction pointer; nor is anything without this process's token.
TEST(CompactionPointerTest, UserBytesAreNeverCompactionPointers) {
  const std::string stored = StoredPointer("key");
  CompactionPointer decoded;
  EXPECT_FALSE(DecodeCompactionPointer(stored, &decoded));
  std::string encoded;
  EncodeCompactionPointer(nullptr, stored, &encoded);
  for (size_t i = 1; i < 9; i++) {  // every byte of the token
    std::string forged = encoded;
    forged[i] ^= 1;
    EXPECT_FALSE(DecodeCompactionPointer(forged, &decoded)) << i;
  }
  EXPECT_FALSE(DecodeCompactionPointer(encoded.substr(0, 17), &decoded));
  EXPECT_FALSE(
      DecodeCompactionPointer(encoded.substr(0, encoded.size() - 1), &decoded));
  EXPECT_FALSE(DecodeCompactionPointer("", &decoded));
}

// A value that is not a compaction pointer resolves to nothing.
TEST(CompactionPointerTest, PlainValuesAreLeftAlone) {
  bool is_pointer = true;
  std::string resolved;
  ASSERT_TRUE(ResolveIfCompactionPointer(StoredPointer("k"), "k", &is_pointer,
                                         &resolved)
                  .ok());
  EXPECT_FALSE(is_pointer);
  EXPECT_TRUE(resolved.empty());
}

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
