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

// The absolute level `merge_level` names, given the deepest level and the one
// L0 compacts into (`base_level`, 0 while unknown): itself when >= 0, else
// counted from the deepest level (-1 is that level).
//
// kAutoMergeLevel is -2 once a level lies between the base level and the
// penultimate one, else -1. -2 saves fewer writes, only above the penultimate
// level (with the base level right above it, a value goes back inline at its
// second compaction); but in a deeper LSM -1 leaves half the entries as
// pointers above the last level, which Gets read twice.
inline int ResolveMergeLevel(int merge_level, int deepest_level,
                             int base_level) {
  if (merge_level == kAutoMergeLevel) {
    merge_level = base_level > 0 && base_level <= deepest_level - 3 ? -2 : -1;
  }
  return merge_level >= 0 ? merge_level
                          : std::max(0, deepest_level + 1 + merge_level);
}

// HybridKVPartitioner vetoes trivial moves into the merge level and below,
// which would relink SSTs deeper without writing their pointers back inline.
// It never splits files. RocksDB does not consult it for moves into the last
// level (docs/design.md, section 2).
//
// One factory often serves several column families (ConfigureOptions copies)
// and its partitioners cannot tell them apart, so moves are vetoed from the
// lowest merge level any reports. A veto too many costs a rewrite; one too
// few would leave pointers behind until their next compaction.
class HybridKVPartitionerFactory : public SstPartitionerFactory {
 public:
  static const char* kClassName() { return kPartitionerId; }
  const char* Name() const override { return kClassName(); }

  std::unique_ptr<SstPartitioner> CreatePartitioner(
      const SstPartitioner::Context& context) const override;

  // Set without HybridTable, the table factory was switched away while SSTs
  // may hold pointers only HybridTable reads: refused, naming the way back.
  Status ValidateOptions(const DBOptions& db_opts,
                         const ColumnFamilyOptions& cf_opts) const override;

  // Column family `cf` of the DB with state `db` now merges at `merge_level`;
  // true if that is new. Safe on a factory in use: later moves see it.
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
