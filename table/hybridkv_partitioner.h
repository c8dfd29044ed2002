// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#pragma once

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <utility>

#include "plugin/hybridkv/include/hybridkv/hybridkv.h"
#include "rocksdb/sst_partitioner.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

// The absolute level `merge_level` names: itself if >= 0, else counted from
// the deepest level (-1); `base_level` is L0's target, 0 while unknown.
// kAutoMergeLevel is -2 once a level lies between base and penultimate, else
// -1: -2 saves fewer writes (with the base right above the penultimate, a
// value goes inline at its second compaction), but in a deeper LSM -1 leaves
// half the entries as pointers above the last level, which Gets read twice.
inline int ResolveMergeLevel(int merge_level, int deepest_level,
                             int base_level) {
  if (merge_level == kAutoMergeLevel) {
    merge_level = base_level > 0 && base_level <= deepest_level - 3 ? -2 : -1;
  }
  return merge_level >= 0 ? merge_level
                          : std::max(0, deepest_level + 1 + merge_level);
}

// HybridKVPartitioner vetoes trivial moves into the merge level and below,
// which would relink SSTs deeper without inlining their pointers; it never
// splits files. RocksDB skips it for moves into the last level (docs/design.md,
// section 2). Its partitioners cannot tell apart the column families one
// factory often serves (ConfigureOptions copies), so moves are vetoed from the
// lowest merge level any reports: a veto too many costs a rewrite, one too few
// leaves pointers until their next compaction.
class HybridKVPartitionerFactory : public SstPartitionerFactory {
 public:
  static const char* kClassName() { return kPartitionerId; }
  const char* Name() const override { return kClassName(); }

  std::unique_ptr<SstPartitioner> CreatePartitioner(
      const SstPartitioner::Context& context) const override;

  // Refuses use without HybridTable (SSTs may hold pointers only it reads),
  // naming the way back.
  Status ValidateOptions(const DBOptions& db_opts,
                         const ColumnFamilyOptions& cf_opts) const override;

  // Column family `cf` of DB state `db` now merges at `merge_level`; true if
  // new. Safe on a factory in use: later moves see it.
  bool SetMergeLevel(const void* db, uint32_t cf, int merge_level) const;
  // The merge level resolved at DB open, used until a column family reports.
  void SetMergeLevelAtOpen(int merge_level) const;

 private:
  void UpdateFirstVetoedLevel() const;  // holds mu_

  mutable std::mutex mu_;
  mutable int merge_level_at_open_ = 1;
  mutable std::map<std::pair<const void*, uint32_t>, int> merge_levels_;
  // Moves to this level or deeper are vetoed; until configured, all (safe).
  mutable std::atomic<int> first_vetoed_level_{1};
};

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
