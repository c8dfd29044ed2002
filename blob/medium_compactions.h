// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// Compactions HybridKV asks of RocksDB, for the two cases in which RocksDB's
// own compactions would leave medium references alive for good or for long:
//
// - Pointers at rest at or below the merge level. The partitioner vetoes
//   trivial moves into those levels, but RocksDB does not consult it for moves
//   into the last level (Compaction::IsTrivialMove), so a sequential load moves
//   SSTs with pointers straight from L0 to the last level. Those SSTs are
//   rewritten in place, and the rewrite writes the values back inline.
// - Medium files held mostly dead. A medium file goes only with its last
//   reference, so one SST high in the LSM can hold a file whose other values
//   were overwritten or already written back inline. When the dead bytes of all
//   medium files pass `max_medium_garbage_ratio` of their size, the SSTs that
//   hold the file with the most dead bytes are compacted down to the merge
//   level: Parallax's "merging earlier".
//
// Both run in HybridKVListener::OnCompactionCompleted, on RocksDB's own
// background thread, through DB::CompactFiles. Running there, rather than on a
// thread of our own, is what makes them safe: DB::Close waits for background
// jobs, and no event tells a plugin thread that a DB is going away. The
// rewrites' writes go through the DB's rate limiter like any compaction's.
#pragma once

#include "rocksdb/db.h"
#include "rocksdb/listener.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

// Called after every compaction (trivial moves included) of `db`. At most one
// rewrite per call and one at a time per DB; does nothing for column families
// that are not HybridTable, with disable_auto_compactions, or while the DB
// shuts down.
void MaybeCompactMediumReferences(DB* db, const CompactionJobInfo& info);

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
