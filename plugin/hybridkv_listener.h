// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// HybridKVListener: RocksDB's events, handed to the per-DB state
// (blob/lifecycle/db_state.h): SSTs created and deleted drive the medium-file
// tracker; finished flushes and compactions switch BlobDB's GC by garbage
// (blob/blobdb/blob_gc_policy.h); compactions out of L0 note the base level,
// for merge_level=auto.
#pragma once

#include "plugin/hybridkv/blob/lifecycle/medium_lifecycle.h"
#include "plugin/hybridkv/include/hybridkv/hybridkv.h"
#include "rocksdb/listener.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

// Required in DBOptions `listeners` of every DB with a HybridTable column
// family.
class HybridKVListener : public EventListener {
 public:
  static const char* kClassName() { return kListenerId; }
  const char* Name() const override { return kClassName(); }

  void OnTableFileCreated(const TableFileCreationInfo& info) override;
  void OnTableFileDeleted(const TableFileDeletionInfo& info) override;
  void OnFlushCompleted(DB* db, const FlushJobInfo& info) override;
  // A compaction that changes files' temperature under FIFO may copy SSTs
  // without reporting them created (RocksDB 10+,
  // CompactionOptionsFIFO::allow_trivial_copy_when_change_temperature): the
  // tracker reads the SSTs on disk again before it frees anything.
  void OnCompactionBegin(DB* db, const CompactionJobInfo& info) override;
  void OnCompactionCompleted(DB* db, const CompactionJobInfo& info) override;
};

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
