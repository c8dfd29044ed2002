// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "plugin/hybridkv/blob/medium_compactions.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "db/db_impl/db_impl.h"
#include "logging/logging.h"
#include "plugin/hybridkv/blob/medium_lifecycle.h"
#include "plugin/hybridkv/include/hybridkv/hybridkv.h"
#include "rocksdb/metadata.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

// Set while this thread runs one of our rewrites: CompactFiles reports its own
// completion to the listeners, on the same thread.
thread_local bool in_rewrite = false;

// The merge level as the table builder resolves it (ResolveMergeLevel), from
// the column family's current shape.
int MergeLevel(const HybridTableOptions& hybrid, const Options& options,
               const ColumnFamilyMetaData& meta) {
  if (hybrid.merge_level >= 0) {
    return hybrid.merge_level;
  }
  int deepest = 0;
  if (options.compaction_style == kCompactionStyleLevel &&
      options.level_compaction_dynamic_level_bytes) {
    deepest = options.num_levels - 1;
  } else {
    for (const LevelMetaData& level : meta.levels) {
      if (!level.files.empty()) deepest = std::max(deepest, level.level);
    }
  }
  return std::max(0, deepest + 1 + hybrid.merge_level);
}

struct SstLocation {
  int level;
  std::string name;
};

// The next rewrite for column family `cf_id`, if one is due.
struct PlannedRewrite {
  std::vector<std::string> names;
  int output_level = 0;
  const char* why = nullptr;
};

bool PlanRewrite(DB* db, ColumnFamilyHandle* cf, uint32_t cf_id,
                 const Options& options, const HybridTableOptions& hybrid,
                 MediumFileTracker* tracker, PlannedRewrite* plan) {
  ColumnFamilyMetaData meta;
  db->GetColumnFamilyMetaData(cf, &meta);
  std::map<uint64_t, SstLocation> idle;  // SSTs no compaction is using
  std::set<uint64_t> current;            // SSTs of the current Version
  for (const LevelMetaData& level : meta.levels) {
    for (const SstFileMetaData& file : level.files) {
      current.insert(file.file_number);
      if (!file.being_compacted) {
        idle[file.file_number] = {level.level, file.name};
      }
    }
  }
  const int merge_level = MergeLevel(hybrid, options, meta);

  // 1. Pointers at rest at or below the merge level: rewrite them in place, a
  //    few SSTs of one level at a time.
  std::vector<uint64_t> deep;
  for (const auto& [number, loc] : idle) {
    if (loc.level >= merge_level) deep.push_back(number);
  }
  const std::vector<uint64_t> stuck = tracker->WithReferences(cf_id, deep);
  if (!stuck.empty()) {
    plan->output_level = idle[stuck.front()].level;
    plan->why = "pointers at or below the merge level";
    for (uint64_t number : stuck) {
      if (idle[number].level == plan->output_level && plan->names.size() < 8) {
        plan->names.push_back(idle[number].name);
      }
    }
    return true;
  }

  // 2. Medium files held mostly dead: free the worst one by compacting every
  //    SST that references it down to the merge level.
  if (hybrid.max_medium_garbage_ratio <= 0) {
    return false;
  }
  const MediumFileTracker::Garbage g = tracker->GetGarbage(&current);
  if (g.dead_bytes() <= hybrid.max_medium_garbage_ratio * g.file_bytes) {
    return false;
  }
  // The worst file this column family can free now: one whose SSTs no
  // compaction is using (a running one may not free it). SSTs that only old
  // Versions hold (such as our last rewrite's inputs, while the compaction
  // that called us still holds its input Version) do not count: they go with
  // those Versions.
  for (const MediumFileTracker::Garbage::HeldFile& held : g.worst) {
    if (held.cf != cf_id || held.ssts.empty()) continue;
    plan->names.clear();
    plan->output_level = merge_level;
    for (uint64_t number : held.ssts) {
      auto it = idle.find(number);
      if (it == idle.end()) {
        plan->names.clear();
        break;
      }
      plan->names.push_back(it->second.name);
      plan->output_level = std::max(plan->output_level, it->second.level);
    }
    if (!plan->names.empty()) {
      plan->why = "max_medium_garbage_ratio exceeded";
      return true;
    }
  }
  return false;
}

}  // namespace

void MaybeCompactMediumReferences(DB* db, const CompactionJobInfo& info) {
  if (in_rewrite || !info.status.ok()) {
    return;
  }
  std::unique_ptr<ColumnFamilyHandle> cf =
      static_cast<DBImpl*>(db->GetRootDB())
          ->GetColumnFamilyHandleUnlocked(info.cf_id);
  if (cf == nullptr) {
    return;  // dropped
  }
  const Options options = db->GetOptions(cf.get());
  const HybridTableOptions* hybrid =
      options.table_factory->GetOptions<HybridTableOptions>();
  if (hybrid == nullptr || options.disable_auto_compactions) {
    return;
  }
  MediumFileTracker* tracker = TrackerFor(db->GetName());
  if (!tracker->TryBeginRewrite()) {
    return;  // one rewrite at a time per DB
  }
  // Until nothing is due, a rewrite fails (it is retried after the next
  // compaction; ShutdownInProgress ends it at once), or the cap: the caller's
  // background thread is RocksDB's.
  constexpr int kMaxRewritesPerEvent = 16;
  PlannedRewrite plan;
  for (int i = 0;
       i < kMaxRewritesPerEvent &&
       PlanRewrite(db, cf.get(), info.cf_id, options, *hybrid, tracker, &plan);
       ++i) {
    CompactionOptions compact;
    compact.max_subcompactions = 1;
    in_rewrite = true;
    Status s =
        db->CompactFiles(compact, cf.get(), plan.names, plan.output_level);
    in_rewrite = false;
    ROCKS_LOG_INFO(options.info_log,
                   "[%s] HybridKV: rewrote %zu SSTs into level %d (%s): %s",
                   cf->GetName().c_str(), plan.names.size(), plan.output_level,
                   plan.why, s.ToString().c_str());
    if (!s.ok()) {
      break;
    }
    plan = PlannedRewrite();
  }
  tracker->EndRewrite();
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
