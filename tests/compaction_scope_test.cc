// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// CompactionScope (table/compaction_scope.h): the pointers a compaction has
// verified already.
#include "plugin/hybridkv/table/compaction_scope.h"

#include <gtest/gtest.h>

#include <string>

#include "plugin/hybridkv/blob/medium/medium_pointer.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

// The table a compaction's output builder consults instead of a second MAC
// finds only the exact (user key, pointer) bytes that were noted, and hands
// back the pointer decoded. A pointer whose slot another one took, or whose
// key is too long to note, is not found: the builder then checks its MAC.
TEST(CompactionScopeTest, FindsOnlyTheExactPointerNoted) {
  const SipKey secret{0x1234, 0x5678};
  auto pointer_at = [&](uint64_t offset, const std::string& key,
                        std::string* encoded) {
    MediumPointer p;
    p.file_number = 7;
    p.handle.offset = offset;
    p.handle.size = 50;
    encoded->clear();
    EncodeMediumPointer(secret, p, key, encoded);
    return p;
  };
  CompactionScope scope;
  std::string a;
  const MediumPointer pa = pointer_at(100, "key-a", &a);
  scope.NoteVerified("key-a", a, pa);
  MediumPointer out;
  ASSERT_TRUE(scope.WasVerified("key-a", a, &out));
  EXPECT_EQ(out.file_number, 7u);
  EXPECT_EQ(out.handle.offset, 100u);
  EXPECT_EQ(out.handle.size, 50u);
  EXPECT_FALSE(scope.WasVerified("key-b", a, &out));  // another key's value
  std::string damaged = a;
  damaged[2] ^= 1;
  EXPECT_FALSE(scope.WasVerified("key-a", damaged, &out));

  // Some other pointer takes a's slot; from then on only it is found.
  bool evicted = false;
  for (uint64_t offset = 200;
       offset < 200 + 100 * CompactionScope::kSlots && !evicted; ++offset) {
    std::string c;
    const MediumPointer pc = pointer_at(offset, "key-c", &c);
    scope.NoteVerified("key-c", c, pc);
    if (!scope.WasVerified("key-a", a, &out)) {
      evicted = true;
      ASSERT_TRUE(scope.WasVerified("key-c", c, &out));
      EXPECT_EQ(out.handle.offset, offset);
    }
  }
  EXPECT_TRUE(evicted);

  const std::string long_key(65, 'k');
  std::string l;
  const MediumPointer pl = pointer_at(300, long_key, &l);
  scope.NoteVerified(long_key, l, pl);
  EXPECT_FALSE(scope.WasVerified(long_key, l, &out));
}

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
