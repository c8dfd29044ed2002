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

// The absolute level that the `merge_level` option names in a column family
// whose deepest level is `deepest_level` and whose L0 compacts into
// `base_level` (0 while unknown): itself when >= 0, otherwise counted from the
// deepest level (-1 is that level, -2 the one above). Builders and option
// validation both call it.
//
// kAutoMergeLevel is -2 once at least one level lies between the base level
// and the penultimate one, else -1. -2 saves fewer writes than -1, and only in
// compactions above the penultimate level: with the base level right above
// it, a medium value goes back inline at its second compaction. In a deeper
// LSM -2 keeps most of the saving, while -1 leaves half the entries as
// pointers above the last level, which Gets read twice.
inline int ResolveMergeLevel(int merge_level, int deepest_level,
                             int base_level) {
  if (merge_level == kAutoMergeLevel) {
    merge_level = base_level > 0 && base_level <= deepest_level - 3 ? -2 : -1;
  }
  return merge_level >= 0 ? merge_level
                          : std::max(0, deepest_level + 1 + merge_level);
}

// HybridKVPartitioner: vetoes trivial moves into the merge level and below. A
// trivial move relinks an SST into a deeper level without rewriting it, so
// medium pointers would come to rest where no compaction writes them back
// inline. It never splits files.
//
// RocksDB does not consult partitioners for moves into the last level
// (docs/design.md, section 2).
//
// One factory often serves several column families (one ConfigureOptions
// result copied into each), and the partitioner it creates cannot tell them
// apart. Each column family's builders report its merge level as compactions
// resolve it; moves are vetoed from the lowest of them. A veto too many costs
// a rewrite; one too few would leave pointers at a merge level until their
// next compaction.
class HybridKVPartitionerFactory : public SstPartitionerFactory {
 public:
  static const char* kClassName() { return kPartitionerId; }
  const char* Name() const override { return kClassName(); }

  std::unique_ptr<SstPartitioner> CreatePartitioner(
      const SstPartitioner::Context& context) const override;

  // DB::Open validates it with each column family's options: set without
  // HybridTable, it means the table factory was switched away from HybridTable
  // while SSTs may still hold pointers that no other factory can read. Refused,
  // naming the safe way back.
  Status ValidateOptions(const DBOptions& db_opts,
                         const ColumnFamilyOptions& cf_opts) const override;

  // Column family `cf` of the DB whose state is `db` merges at `merge_level`
  // now; true when that is new for it. Safe to call on a factory in use:
  // moves that start later see it.
  bool SetMergeLevel(const void* db, uint32_t cf, int merge_level) const;
  // The merge level HybridTable resolves when a DB opens, used until a
  // column family reports one.
  void SetMergeLevelAtOpen(int merge_level) const;

 private:
  void UpdateFirstVetoedLevel() const;  // holds mu_

  mutable std::mutex mu_;
  mutable int merge_level_at_open_ = 1;
  mutable std::map<std::pair<const void*, uint32_t>, int> merge_levels_;
  // Trivial moves whose output level is >= this are vetoed. Until configured,
  // every move: always correct, at worst a rewrite too many.
  mutable std::atomic<int> first_vetoed_level_{1};
};

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
