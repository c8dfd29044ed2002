// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.

#include "plugin/hybridkv/blob/medium/medium_block_cache.h"

#include <algorithm>

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

namespace {

// Bytes only (the key names the file); the item helper marks medium blocks.
struct CachedMediumBlock {
  std::string data;  // kBlockSize bytes, fewer for a file's last block
};

const Cache::CacheItemHelper kCachedMediumBlockHelper(
    CacheEntryRole::kOtherBlock,
    [](Cache::ObjectPtr obj, MemoryAllocator* /*allocator*/) {
      delete static_cast<CachedMediumBlock*>(obj);
    });

}  // namespace

MediumBlockCache::MediumBlockCache(Cache* cache, const std::string& db_id,
                                   const std::string& db_session_id,
                                   uint64_t file_number)
    : cache_(db_session_id.empty() ? nullptr : cache),
      file_key_(cache_ == nullptr
                    ? OffsetableCacheKey()
                    : OffsetableCacheKey(db_id, db_session_id,
                                         file_number | kMediumKeyBit)) {}

bool MediumBlockCache::Lookup(uint64_t offset, size_t n, std::string* scratch,
                              Slice* bytes) const {
  if (cache_ == nullptr || n == 0) {
    return false;
  }
  scratch->clear();
  const uint64_t end = offset + n;
  for (uint64_t block = offset / kBlockSize; block * kBlockSize < end;
       block++) {
    Cache::Handle* h = cache_->Lookup(BlockKey(block).AsSlice());
    if (h == nullptr) {
      return false;
    }
    const uint64_t block_begin = block * kBlockSize;
    const uint64_t from = std::max(offset, block_begin);
    const uint64_t to = std::min(end, block_begin + kBlockSize);
    const auto* cached =
        cache_->GetCacheItemHelper(h) == &kCachedMediumBlockHelper
            ? static_cast<const CachedMediumBlock*>(cache_->Value(h))
            : nullptr;
    const bool covers =
        cached != nullptr && cached->data.size() >= to - block_begin;
    if (covers) {
      scratch->append(cached->data, from - block_begin, to - from);
    }
    cache_->Release(h);
    if (!covers) {
      return false;
    }
  }
  *bytes = Slice(*scratch);
  return true;
}

void MediumBlockCache::BlockSpan(const MediumFileReader& file, uint64_t offset,
                                 size_t n, uint64_t* begin, uint64_t* end) {
  *begin = offset / kBlockSize * kBlockSize;
  *end = std::max(offset + n,
                  std::min(file.data_end(), (offset + n + kBlockSize - 1) /
                                                kBlockSize * kBlockSize));
}

void MediumBlockCache::Insert(uint64_t begin, const Slice& bytes) const {
  const uint64_t end = begin + bytes.size();
  for (uint64_t block_begin = begin; block_begin < end;
       block_begin += kBlockSize) {
    const size_t size =
        static_cast<size_t>(std::min(kBlockSize, end - block_begin));
    auto* entry = new CachedMediumBlock{
        std::string(bytes.data() + (block_begin - begin), size)};
    if (!cache_
             ->Insert(BlockKey(block_begin / kBlockSize).AsSlice(), entry,
                      &kCachedMediumBlockHelper,
                      sizeof(*entry) + entry->data.size())
             .ok()) {
      delete entry;  // a full strict-capacity cache: the read succeeded
    }
  }
}

IOStatus MediumBlockCache::Read(const IOOptions& io,
                                const MediumFileReader& file, uint64_t offset,
                                size_t n, bool fill_cache, std::string* scratch,
                                Slice* bytes, uint64_t* bytes_read) const {
  if (cache_ == nullptr || !fill_cache) {
    *bytes_read = n;
    return file.ReadRange(io, offset, n, scratch, bytes);
  }
  uint64_t begin = 0;
  uint64_t end = 0;
  BlockSpan(file, offset, n, &begin, &end);
  Slice span;
  IOStatus s = file.ReadRange(io, begin, end - begin, scratch, &span);
  if (!s.ok()) {
    return s;
  }
  *bytes_read = end - begin;
  Insert(begin, span);
  *bytes = Slice(span.data() + (offset - begin), n);
  return IOStatus::OK();
}

void MediumBlockCache::ReadInBatch(ReadBatch* batch,
                                 const std::shared_ptr<MediumFileReader>& file,
                                 uint64_t offset, size_t n,
                                 std::atomic<uint64_t>* bytes_read) const {
  if (cache_ == nullptr) {
    return;
  }
  uint64_t begin = 0;
  uint64_t end = 0;
  BlockSpan(*file, offset, n, &begin, &end);
  // The callback keeps the file open until the batch is done with it.
  const MediumBlockCache blocks = *this;
  file->ReadRangeInBatch(
      batch, begin, end - begin,
      [blocks, file, begin, bytes_read](const IOStatus& s, const Slice& span) {
        if (s.ok()) {
          blocks.Insert(begin, span);
          *bytes_read += span.size();
        }
      });
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
