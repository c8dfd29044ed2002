// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "plugin/hybridkv/plugin/hybridkv_listener.h"

#include "plugin/hybridkv/blob/blobdb/blob_cache_warmer.h"
#include "plugin/hybridkv/blob/blobdb/blob_gc_policy.h"
#include "plugin/hybridkv/blob/lifecycle/db_state.h"
#include "plugin/hybridkv/blob/lifecycle/medium_lifecycle.h"
#include "plugin/hybridkv/blob/medium/medium_file.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

void HybridKVListener::OnTableFileCreated(const TableFileCreationInfo& info) {
  const uint64_t number = SstNumberOf(info.file_path);
  if (number == 0) {
    return;
  }
  MediumFileTracker* tracker = &DbStateFor(DirName(info.file_path))->tracker();
  if (!info.status.ok()) {
    tracker->BuildFailed(number);
    return;
  }
  tracker->AddSst(number, info.file_path, info.table_properties);
  tracker->EnsureSeeded(info.db_name, /*in_recovery=*/info.reason ==
                                          TableFileCreationReason::kRecovery);
}

void HybridKVListener::OnTableFileDeleted(const TableFileDeletionInfo& info) {
  const uint64_t number = SstNumberOf(info.file_path);
  if (!info.status.ok() || number == 0) {
    return;
  }
  MediumFileTracker* tracker = &DbStateFor(DirName(info.file_path))->tracker();
  tracker->EnsureSeeded(info.db_name);
  tracker->RemoveSst(number);
}

void HybridKVListener::OnFlushCompleted(DB* db, const FlushJobInfo& info) {
  DbStateFor(DirName(info.file_path))->tracker().EnsureSeeded(db->GetName());
  ApplyBlobGcPolicy(db, info.cf_id);
}

void HybridKVListener::OnCompactionBegin(DB* /*db*/,
                                         const CompactionJobInfo& info) {
  if (info.input_files.empty()) {
    return;
  }
  DbState* state = DbStateFor(DirName(info.input_files.front()));
  if (info.compaction_reason == CompactionReason::kChangeTemperature) {
    state->tracker().Reseed();
  }
  // Under leveled compaction L0 compacts into the base level; this event comes
  // before the compaction's builders resolve merge_level=auto.
  if (info.base_input_level == 0 && info.output_level > 0) {
    state->counters.NoteBaseLevel(info.cf_id, info.output_level);
  }
}

void HybridKVListener::OnCompactionCompleted(DB* db,
                                             const CompactionJobInfo& info) {
  if (!info.output_files.empty()) {
    DbState* state = DbStateFor(DirName(info.output_files.front()));
    state->tracker().EnsureSeeded(db->GetName());
    // Trivial moves run no builder: the deepest level that negative merge
    // levels count from is noted here too.
    state->counters.NoteLevel(info.cf_id, info.output_level);
  }
  ApplyBlobGcPolicy(db, info.cf_id);
}

void HybridKVListener::OnBlobFileDeleted(const BlobFileDeletionInfo& info) {
  BlobCacheWarmer::ForgetBlobFile(info.file_path);
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
