// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// HybridKVListener feeds RocksDB's events to blob/lifecycle/db_state.h: SST
// creations and deletions drive the medium file tracker; finished flushes and
// compactions switch BlobDB's GC (blob/blobdb/blob_gc_policy.h).
#pragma once

#include "plugin/hybridkv/blob/lifecycle/medium_lifecycle.h"
#include "plugin/hybridkv/include/hybridkv/hybridkv.h"
#include "rocksdb/listener.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

// Required in the listeners of every DB with a HybridTable column family.
class HybridKVListener : public EventListener {
 public:
  static const char* kClassName() { return kListenerId; }
  const char* Name() const override { return kClassName(); }

  void OnTableFileCreated(const TableFileCreationInfo& info) override;
  void OnTableFileDeleted(const TableFileDeletionInfo& info) override;
  void OnFlushCompleted(DB* db, const FlushJobInfo& info) override;
  // The tracker rereads SSTs on disk before freeing: FIFO temperature changes
  // may copy them unreported (RocksDB 10+,
  // allow_trivial_copy_when_change_temperature).
  void OnCompactionBegin(DB* db, const CompactionJobInfo& info) override;
  void OnCompactionCompleted(DB* db, const CompactionJobInfo& info) override;
};

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
