// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// MediumBlockCache's keys (one file of one DB session each, apart from SST
// blocks of the same number) and a flush's prepopulation of medium blocks
// (HybridTableOptions::prepopulate_medium_cache).
#include "plugin/hybridkv/blob/medium/medium_block_cache.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "cache/cache_key.h"
#include "plugin/hybridkv/blob/io/rocksdb_compat.h"
#include "hybridkv/hybridkv.h"
#include "rocksdb/cache.h"
#include "rocksdb/db.h"
#include "rocksdb/table.h"
#include "test_util.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

// Two DB session ids, as DBImpl::GenerateDbSessionId makes them.
const std::string kSession1 = "6Q1XJ7Z0T3SMVQK2Z1AB";
const std::string kSession2 = "6Q1XJ7Z0T3SMVQK2Z1AC";

std::string Bytes(const MediumBlockCache& blocks, uint64_t offset, size_t n) {
  std::string scratch;
  Slice bytes;
  return blocks.Lookup(offset, n, &scratch, &bytes) ? bytes.ToString()
                                                    : "(miss)";
}

TEST(MediumBlockCacheTest, KeysNameOneFileOfOneSession) {
  std::shared_ptr<Cache> cache = NewLRUCache(1 << 20);
  const std::string block(MediumBlockCache::kBlockSize, 'a');
  MediumBlockCache file7(cache.get(), "db", kSession1, 7);
  file7.Prepopulate(0, block + "tail");  // a whole block and a last, short one

  EXPECT_EQ(Bytes(file7, 10, 5), "aaaaa");
  EXPECT_EQ(Bytes(file7, 4094, 6), "aatail");
  EXPECT_EQ(Bytes(file7, 4096, 5), "(miss)");  // past the cached data
  // The same bytes are found through another reader of the same file.
  EXPECT_EQ(Bytes(MediumBlockCache(cache.get(), "db", kSession1, 7), 0, 3),
            "aaa");
  // Not by another session (a reopen, where the number may name another
  // file), another file or another DB.
  EXPECT_EQ(Bytes(MediumBlockCache(cache.get(), "db", kSession2, 7), 0, 3),
            "(miss)");
  EXPECT_EQ(Bytes(MediumBlockCache(cache.get(), "db", kSession1, 8), 0, 3),
            "(miss)");
  EXPECT_EQ(Bytes(MediumBlockCache(cache.get(), "db2", kSession1, 7), 0, 3),
            "(miss)");
}

TEST(MediumBlockCacheTest, KeysAreApartFromTheSstOfTheSameNumber) {
  std::shared_ptr<Cache> cache = NewLRUCache(1 << 20);
  // Entries of another kind under the keys BlockBasedTable gives SST 9's
  // blocks (OffsetableCacheKey(db, session, 9), offset / 4).
  static const Cache::CacheItemHelper kOther(
      CacheEntryRole::kDataBlock,
      [](Cache::ObjectPtr obj, MemoryAllocator*) {
        delete static_cast<std::string*>(obj);
      });
  const OffsetableCacheKey sst("db", kSession1, 9);
  for (uint64_t offset = 0; offset < 4 * MediumBlockCache::kBlockSize;
       offset += 4) {
    ASSERT_OK(cache->Insert(sst.WithOffset(offset >> 2).AsSlice(),
                            new std::string(8192, 'x'), &kOther, 8192));
  }
  MediumBlockCache file9(cache.get(), "db", kSession1, 9);
  EXPECT_EQ(Bytes(file9, 0, 10), "(miss)");
  file9.Prepopulate(0, std::string(100, 'm'));
  EXPECT_EQ(Bytes(file9, 0, 3), "mmm");
}

TEST(MediumBlockCacheTest, NoSessionNoCache) {
  // A table read outside a DB (no session id) has no unique keys.
  std::shared_ptr<Cache> cache = NewLRUCache(1 << 20);
  MediumBlockCache file(cache.get(), "db", "", 7);
  file.Prepopulate(0, std::string(100, 'a'));
  EXPECT_EQ(Bytes(file, 0, 3), "(miss)");
  EXPECT_EQ(cache->GetUsage(), 0u);
}

// A flush leaves its medium values in the block cache with
// prepopulate_medium_cache, and not without: reads allowed the block cache
// only (read_tier=kBlockCacheTier) find them there.
TEST(MediumBlockCacheTest, FlushPrepopulatesItsMediumValues) {
  for (bool prepopulate : {true, false}) {
    SCOPED_TRACE(prepopulate ? "prepopulate" : "no prepopulate");
    test::ScratchDir dir(prepopulate ? "prepop-on" : "prepop-off");
    BlockBasedTableOptions bbto;
    bbto.block_cache = NewLRUCache(64 << 20);
    // SST blocks too, so that a cache-only read gets as far as the pointer.
    bbto.prepopulate_block_cache =
        BlockBasedTableOptions::PrepopulateBlockCache::kFlushOnly;
    HybridOptions hybrid;
    hybrid.table.inner.reset(NewBlockBasedTableFactory(bbto));
    hybrid.table.prepopulate_medium_cache = prepopulate;
    Options options = test::SmallLsmOptions(4 << 20, 4 << 20, hybrid);
    DB* raw = nullptr;
    ASSERT_OK(hybridkv::OpenDB(options, dir.path(), &raw));
    std::unique_ptr<DB> db(raw);
    const int kKeys = 300;
    auto value = [](int i) {
      return std::string(300 + i % 500, 'a' + i % 26) + std::to_string(i);
    };
    for (int i = 0; i < kKeys; ++i) {
      ASSERT_OK(db->Put(WriteOptions(), "key" + std::to_string(1000 + i),
                        value(i)));
    }
    ASSERT_OK(db->Flush(FlushOptions()));
    ASSERT_EQ(test::MediumFileNumbers(dir.path()).size(), 1u);

    ReadOptions cache_only;
    cache_only.read_tier = kBlockCacheTier;
    int found = 0;
    for (int i = 0; i < kKeys; ++i) {
      std::string got;
      Status s = db->Get(cache_only, "key" + std::to_string(1000 + i), &got);
      if (s.ok()) {
        ASSERT_EQ(got, value(i));
        found++;
      } else {
        ASSERT_TRUE(s.IsIncomplete()) << s.ToString();
      }
    }
    EXPECT_EQ(found, prepopulate ? kKeys : 0);
    // Every value reads back whichever way it is found.
    for (int i = 0; i < kKeys; ++i) {
      std::string got;
      ASSERT_OK(db->Get(ReadOptions(), "key" + std::to_string(1000 + i), &got));
      ASSERT_EQ(got, value(i));
    }
  }
}

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
