// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// When BlobDB's garbage collection runs for the large class.
//
// RocksDB's integrated BlobDB relocates, in every compaction, the live blobs
// of the oldest `blob_garbage_collection_age_cutoff` share of blob files,
// whatever garbage they hold. In an insert-only load they hold none: every
// relocated byte is rewritten for nothing, and a file relocated in part is
// kept whole until its last blob moves.
//
// So after each flush and compaction the listener switches the column
// family's enable_blob_garbage_collection (DB::SetOptions) by the garbage in
// exactly the files GC would relocate: on at `min_garbage_ratio` or more, off
// below half of it (the gap keeps a ratio near the threshold from switching,
// and rewriting OPTIONS, at every job).
#pragma once

#include <cstdint>
#include <vector>

#include "rocksdb/db.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

struct BlobFileGarbage {
  uint64_t file_number = 0;
  uint64_t total_bytes = 0;
  uint64_t garbage_bytes = 0;
};

// The garbage share of the files RocksDB's GC relocates at `age_cutoff`: the
// oldest floor(age_cutoff * files.size()) by file number, as
// CompactionIterator computes it. 0 when that is no file.
double RelocatedFilesGarbageRatio(std::vector<BlobFileGarbage> files,
                                  double age_cutoff);

// Whether GC should run, given it runs now (`gc_on`).
bool WantBlobGarbageCollection(double garbage_ratio, double min_garbage_ratio,
                               bool gc_on);

// Applies the policy to column family `cf_id` of `db`, which must be the DB a
// listener callback was given (RocksDB's DBImpl). Does nothing unless the
// column family is a HybridTable with blob_garbage_collection_min_garbage_ratio
// above 0. Call from flush and compaction callbacks only, with no DB mutex
// held: they run on background jobs, which DB::Close waits for before it
// tears the DB down, so the SetOptions this may call never races the close.
void ApplyBlobGcPolicy(DB* db, uint32_t cf_id);

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
