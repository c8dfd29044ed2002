// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "plugin/hybridkv/blob/blobdb/blob_gc_policy.h"

#include <algorithm>
#include <memory>

#include "db/column_family.h"
#include "db/db_impl/db_impl.h"
#include "db/version_set.h"
#include "plugin/hybridkv/include/hybridkv/hybridkv.h"
#include "util/cast_util.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

double RelocatedFilesGarbageRatio(std::vector<BlobFileGarbage> files,
                                  double age_cutoff) {
  std::sort(files.begin(), files.end(),
            [](const BlobFileGarbage& a, const BlobFileGarbage& b) {
              return a.file_number < b.file_number;
            });
  const size_t relocated =
      std::min(files.size(), static_cast<size_t>(age_cutoff * files.size()));
  uint64_t total = 0;
  uint64_t garbage = 0;
  for (size_t i = 0; i < relocated; i++) {
    total += files[i].total_bytes;
    garbage += files[i].garbage_bytes;
  }
  return total == 0 ? 0 : static_cast<double>(garbage) / total;
}

bool WantBlobGarbageCollection(double garbage_ratio, double min_garbage_ratio,
                               bool gc_on) {
  return garbage_ratio >= (gc_on ? min_garbage_ratio / 2 : min_garbage_ratio);
}

void ApplyBlobGcPolicy(DB* db, uint32_t cf_id) {
  // Listener callbacks get RocksDB's DBImpl itself (never a StackableDB).
  auto* impl = static_cast_with_check<DBImpl>(db);
  // Current options and blob files from a referenced SuperVersion (keeping
  // the CF alive), read outside the DB mutex: this runs after every job.
  SuperVersion* sv = nullptr;
  {
    InstrumentedMutexLock lock(impl->mutex());
    ColumnFamilyData* cfd =
        impl->GetVersionSet()->GetColumnFamilySet()->GetColumnFamily(cf_id);
    if (cfd == nullptr || cfd->IsDropped()) {
      return;
    }
    sv = cfd->GetSuperVersion()->Ref();
  }
  const MutableCFOptions& options = sv->mutable_cf_options;
  const auto* table = options.table_factory->GetOptions<HybridTableOptions>();
  const bool gc_on = options.enable_blob_garbage_collection;
  bool want = gc_on;
  if (table != nullptr &&
      table->blob_garbage_collection_min_garbage_ratio > 0 &&
      options.enable_blob_files) {
    const auto& blob_files = sv->current->storage_info()->GetBlobFiles();
    std::vector<BlobFileGarbage> files;
    files.reserve(blob_files.size());
    for (const auto& f : blob_files) {
      files.push_back({f->GetBlobFileNumber(), f->GetTotalBlobBytes(),
                       f->GetGarbageBlobBytes()});
    }
    want = WantBlobGarbageCollection(
        RelocatedFilesGarbageRatio(std::move(files),
                                   options.blob_garbage_collection_age_cutoff),
        table->blob_garbage_collection_min_garbage_ratio, gc_on);
  }
  impl->CleanupSuperVersion(sv);
  if (want == gc_on) {
    return;
  }
  // Rare: at first garbage, and once collected; racing jobs leave it to the
  // next. Listeners see this handle's OnColumnFamilyHandleDeletionStarted.
  std::unique_ptr<ColumnFamilyHandle> cf =
      impl->GetColumnFamilyHandleUnlocked(cf_id);
  if (cf != nullptr) {
    // On failure (e.g. OPTIONS unwritable) the next job retries.
    db->SetOptions(cf.get(), {{"enable_blob_garbage_collection",
                               want ? "true" : "false"}})
        .PermitUncheckedError();
  }
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
