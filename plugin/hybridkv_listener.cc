// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "plugin/hybridkv/plugin/hybridkv_listener.h"

#include "db/column_family.h"
#include "db/db_impl/db_impl.h"
#include "db/version_set.h"
#include "plugin/hybridkv/blob/blobdb/blob_gc_policy.h"
#include "plugin/hybridkv/blob/lifecycle/db_state.h"
#include "plugin/hybridkv/blob/lifecycle/medium_lifecycle.h"
#include "plugin/hybridkv/blob/medium/medium_file.h"
#include "plugin/hybridkv/table/compaction_pointer.h"
#include "util/cast_util.h"

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

namespace {

// Whether compactions of `cf_id` must resolve pointers, as its options (which
// SetOptions may change) would lose them: another table factory writes them as
// values; BlobDB takes values of min_blob_size+ before the output table does.
bool CompactionsMustResolve(DB* db, uint32_t cf_id) {
  if (db == nullptr) {
    return false;  // a unit test's event, with no DB behind it
  }
  // Listener callbacks get RocksDB's DBImpl itself (never a StackableDB).
  auto* impl = static_cast_with_check<DBImpl>(db);
  InstrumentedMutexLock lock(impl->mutex());
  ColumnFamilyData* cfd =
      impl->GetVersionSet()->GetColumnFamilySet()->GetColumnFamily(cf_id);
  if (cfd == nullptr || cfd->GetSuperVersion() == nullptr) {
    return false;
  }
  // The SuperVersion's options are the latest SetOptions installed.
  const MutableCFOptions& options = cfd->GetSuperVersion()->mutable_cf_options;
  return !options.table_factory->IsInstanceOf(kHybridTableId) ||
         (options.enable_blob_files &&
          options.min_blob_size <= kMaxCompactionPointerSize);
}

}  // namespace

void HybridKVListener::OnCompactionBegin(DB* db,
                                         const CompactionJobInfo& info) {
  if (info.input_files.empty()) {
    return;
  }
  DbState* state = DbStateFor(DirName(info.input_files.front()));
  // Before the compaction opens its input iterators.
  if (CompactionsMustResolve(db, info.cf_id)) {
    state->NoteCompactionsResolvePointers(info.cf_id);
  }
  if (info.compaction_reason == CompactionReason::kChangeTemperature) {
    state->tracker().Reseed();
  }
  // Note L0's target, the base level, before builders resolve merge_level=auto.
  if (info.base_input_level == 0 && info.output_level > 0) {
    state->counters.NoteBaseLevel(info.cf_id, info.output_level);
  }
}

void HybridKVListener::OnCompactionCompleted(DB* db,
                                             const CompactionJobInfo& info) {
  if (!info.output_files.empty()) {
    DbState* state = DbStateFor(DirName(info.output_files.front()));
    state->tracker().EnsureSeeded(db->GetName());
    // Trivial moves run no builder: note the deepest level here too.
    state->counters.NoteLevel(info.cf_id, info.output_level);
  }
  ApplyBlobGcPolicy(db, info.cf_id);
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
