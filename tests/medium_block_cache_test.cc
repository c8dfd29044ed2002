// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// MediumBlockCache: blocks of one medium file of one DB session each, apart
// from the SST blocks of the same number, filled by reads that fill the cache.
#include "plugin/hybridkv/blob/medium/medium_block_cache.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "cache/cache_key.h"
#include "plugin/hybridkv/blob/io/rocksdb_compat.h"
#include "rocksdb/cache.h"
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

// A medium file in `dir` with records of 1,000 bytes, a little over two
// blocks of data; opened.
std::unique_ptr<MediumFileReader> WriteAndOpen(const std::string& dir) {
  const std::string path = MediumFileName(dir, 7);
  std::unique_ptr<MediumFileWriter> writer;
  EXPECT_OK(MediumFileWriter::Create(FileSystem::Default(), path, FileOptions(),
                                     &writer));
  MediumRecordHandle handle;
  for (int i = 0; i < 9; i++) {
    EXPECT_OK(writer->Add("key" + std::to_string(i),
                          std::string(1000, static_cast<char>('a' + i)),
                          &handle));
  }
  EXPECT_OK(writer->Finish());
  std::unique_ptr<MediumFileReader> reader;
  EXPECT_OK(MediumFileReader::Open(FileSystem::Default(), path, FileOptions(),
                                   &reader));
  return reader;
}

// Reads [offset, offset + n) through `blocks`, filling the cache; the bytes.
std::string ReadThrough(const MediumBlockCache& blocks,
                        const MediumFileReader& file, uint64_t offset,
                        size_t n) {
  std::string scratch;
  Slice bytes;
  uint64_t bytes_read = 0;
  EXPECT_OK(blocks.Read(IOOptions(), file, offset, n, /*fill_cache=*/true,
                        &scratch, &bytes, &bytes_read));
  return bytes.ToString();
}

TEST(MediumBlockCacheTest, KeysNameOneFileOfOneSession) {
  test::ScratchDir dir("block-keys");
  const auto file = WriteAndOpen(dir.path());
  std::shared_ptr<Cache> cache = NewLRUCache(1 << 20);
  MediumBlockCache file7(cache.get(), "db", kSession1, 7);
  EXPECT_EQ(Bytes(file7, 100, 5), "(miss)");
  const std::string read = ReadThrough(file7, *file, 4090, 12);  // 2 blocks
  EXPECT_EQ(Bytes(file7, 4090, 12), read);
  EXPECT_EQ(Bytes(file7, 10, 5), ReadThrough(file7, *file, 10, 5));
  EXPECT_EQ(Bytes(file7, 3 * MediumBlockCache::kBlockSize, 5), "(miss)");
  // The same bytes are found through another reader of the same file.
  EXPECT_EQ(Bytes(MediumBlockCache(cache.get(), "db", kSession1, 7), 4090, 12),
            read);
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
  test::ScratchDir dir("block-sst");
  const auto file = WriteAndOpen(dir.path());
  std::shared_ptr<Cache> cache = NewLRUCache(1 << 20);
  // Entries of another kind under the keys BlockBasedTable gives SST 7's
  // blocks (OffsetableCacheKey(db, session, 7), offset / 4).
  static const Cache::CacheItemHelper kOther(
      CacheEntryRole::kDataBlock, [](Cache::ObjectPtr obj, MemoryAllocator*) {
        delete static_cast<std::string*>(obj);
      });
  const OffsetableCacheKey sst("db", kSession1, 7);
  for (uint64_t offset = 0; offset < 4 * MediumBlockCache::kBlockSize;
       offset += 4) {
    ASSERT_OK(cache->Insert(sst.WithOffset(offset >> 2).AsSlice(),
                            new std::string(8192, 'x'), &kOther, 8192));
  }
  MediumBlockCache file7(cache.get(), "db", kSession1, 7);
  EXPECT_EQ(Bytes(file7, 0, 10), "(miss)");
  const std::string read = ReadThrough(file7, *file, 0, 100);
  EXPECT_EQ(Bytes(file7, 0, 100), read);
}

TEST(MediumBlockCacheTest, NoSessionNoCache) {
  // A table read outside a DB (no session id) has no unique keys.
  test::ScratchDir dir("block-nosession");
  const auto file = WriteAndOpen(dir.path());
  std::shared_ptr<Cache> cache = NewLRUCache(1 << 20);
  MediumBlockCache blocks(cache.get(), "db", "", 7);
  EXPECT_EQ(ReadThrough(blocks, *file, 0, 100).size(), 100u);
  EXPECT_EQ(Bytes(blocks, 0, 3), "(miss)");
  EXPECT_EQ(cache->GetUsage(), 0u);
}

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
