// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "plugin/hybridkv/blob/blob_gc_policy.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "db/db_impl/db_impl.h"
#include "plugin/hybridkv/include/hybridkv/hybridkv.h"
#include "rocksdb/metadata.h"

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
  std::unique_ptr<ColumnFamilyHandle> cf =
      static_cast<DBImpl*>(db)->GetColumnFamilyHandleUnlocked(cf_id);
  if (cf == nullptr) {
    return;  // dropped
  }
  // Flushes and compactions of one column family finish on several threads:
  // one decision at a time, each on the options the last one set.
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  const Options options = db->GetOptions(cf.get());
  const auto* table =
      options.table_factory == nullptr
          ? nullptr
          : options.table_factory->GetOptions<HybridTableOptions>();
  if (table == nullptr ||
      !(table->blob_garbage_collection_min_garbage_ratio > 0) ||
      !options.enable_blob_files) {
    return;
  }
  ColumnFamilyMetaData meta;
  db->GetColumnFamilyMetaData(cf.get(), &meta);
  std::vector<BlobFileGarbage> files;
  files.reserve(meta.blob_files.size());
  for (const BlobMetaData& f : meta.blob_files) {
    files.push_back(
        {f.blob_file_number, f.total_blob_bytes, f.garbage_blob_bytes});
  }
  const bool gc_on = options.enable_blob_garbage_collection;
  const bool want = WantBlobGarbageCollection(
      RelocatedFilesGarbageRatio(std::move(files),
                                 options.blob_garbage_collection_age_cutoff),
      table->blob_garbage_collection_min_garbage_ratio, gc_on);
  if (want != gc_on) {
    // A failure (say, the OPTIONS file cannot be written) leaves GC as it
    // was; the next flush or compaction tries again.
    db->SetOptions(cf.get(), {{"enable_blob_garbage_collection",
                               want ? "true" : "false"}})
        .PermitUncheckedError();
  }
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
