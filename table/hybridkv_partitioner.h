// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#pragma once

#include <algorithm>
#include <atomic>
#include <memory>

#include "plugin/hybridkv/include/hybridkv/hybridkv.h"
#include "rocksdb/sst_partitioner.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

// The absolute level that the `merge_level` option names in a column family
// whose deepest level is `deepest_level`: itself when >= 0, otherwise counted
// from the deepest level (-1 is that level, -2 the one above). The one place
// this is computed: the builder (at each compaction) and option validation
// (for the partitioner) both call it.
inline int ResolveMergeLevel(int merge_level, int deepest_level) {
  return merge_level >= 0 ? merge_level
                          : std::max(0, deepest_level + 1 + merge_level);
}

// HybridKVPartitioner: vetoes trivial moves into the merge level and below. A
// trivial move relinks an SST into a deeper level without rewriting it, so
// medium pointers would come to rest where no compaction writes them back
// inline. It never splits files.
//
// RocksDB does not consult partitioners for moves into the last level; see
// docs/design.md, section 2. HybridTable's ValidateOptions sets the first vetoed level from the
// column family's resolved merge level when the DB opens.
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

  // Trivial moves whose output level is >= `level` are vetoed. Safe to call on
  // a factory already in use: moves that start later see the new level.
  void SetFirstVetoedLevel(int level) const {
    first_vetoed_level_.store(level);
  }

 private:
  // Until configured, veto every move: always correct, at worst a rewrite too
  // many.
  mutable std::atomic<int> first_vetoed_level_{1};
};

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
