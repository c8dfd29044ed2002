// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// When BlobDB's garbage collection runs for the large class.
// Integrated BlobDB relocates, in every compaction, the live blobs of the
// oldest `blob_garbage_collection_age_cutoff` share of blob files, garbage or
// not. Insert-only loads have none, so the rewrites are wasted, and a file
// relocated in part is kept whole until its last blob moves. So after each
// flush and compaction the listener sets enable_blob_garbage_collection
// (DB::SetOptions) by the garbage in exactly the files GC would relocate: on
// at `min_garbage_ratio` or more, off below half of it (the gap stops a ratio
// near the threshold from switching, and rewriting OPTIONS, every job).
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

// Garbage share of the files GC relocates at `age_cutoff`: the oldest
// floor(age_cutoff * files.size()) by number, as CompactionIterator; 0 if none.
double RelocatedFilesGarbageRatio(std::vector<BlobFileGarbage> files,
                                  double age_cutoff);

// Whether GC should run, given it runs now (`gc_on`).
bool WantBlobGarbageCollection(double garbage_ratio, double min_garbage_ratio,
                               bool gc_on);

// `db` must be the DBImpl a listener callback was given. No-op unless the
// column family is a HybridTable with blob_garbage_collection_min_garbage_ratio
// > 0. REQUIRES: called from flush/compaction callbacks without the DB mutex;
// DB::Close waits for those background jobs, so SetOptions never races close.
void ApplyBlobGcPolicy(DB* db, uint32_t cf_id);

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
