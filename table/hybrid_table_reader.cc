// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "plugin/hybridkv/table/hybrid_table_reader.h"

#include "memory/arena.h"
#include "plugin/hybridkv/table/hybrid_iterator.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

InternalIterator* HybridTableReader::NewIterator(
    const ReadOptions& read_options, const SliceTransform* prefix_extractor,
    Arena* arena, bool skip_filters, TableReaderCaller caller,
    size_t compaction_readahead_size, bool allow_unprepared_value) {
  InternalIterator* inner = inner_->NewIterator(
      read_options, prefix_extractor, arena, skip_filters, caller,
      compaction_readahead_size, allow_unprepared_value);
  // The caller owns an arena-placed iterator's memory and only runs its destructor, so the
  // wrapper lives in the same arena as the iterator it wraps.
  if (arena != nullptr) {
    return new (arena->AllocateAligned(sizeof(HybridIterator)))
        HybridIterator(inner, /*inner_in_arena=*/true);
  }
  return new HybridIterator(inner, /*inner_in_arena=*/false);
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
