// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "plugin/hybridkv/table/hybridkv_partitioner.h"

#include <limits>

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

class MergeLevelPartitioner : public SstPartitioner {
 public:
  explicit MergeLevelPartitioner(bool allow_trivial_move)
      : allow_trivial_move_(allow_trivial_move) {}
  const char* Name() const override {
    return HybridKVPartitionerFactory::kClassName();
  }
  PartitionerResult ShouldPartition(
      const PartitionerRequest& /*request*/) override {
    return kNotRequired;
  }
  bool CanDoTrivialMove(const Slice& /*smallest_user_key*/,
                        const Slice& /*largest_user_key*/) override {
    return allow_trivial_move_;
  }

 private:
  const bool allow_trivial_move_;
};

}  // namespace

std::unique_ptr<SstPartitioner> HybridKVPartitionerFactory::CreatePartitioner(
    const SstPartitioner::Context& context) const {
  return std::make_unique<MergeLevelPartitioner>(context.output_level <
                                                 first_vetoed_level_.load());
}

bool HybridKVPartitionerFactory::SetMergeLevel(const void* db, uint32_t cf,
                                               int merge_level) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto [it, inserted] = merge_levels_.emplace(std::make_pair(db, cf), 0);
  if (!inserted && it->second == merge_level) {
    return false;
  }
  it->second = merge_level;
  UpdateFirstVetoedLevel();
  return true;
}

void HybridKVPartitionerFactory::SetMergeLevelAtOpen(int merge_level) const {
  std::lock_guard<std::mutex> lock(mu_);
  merge_level_at_open_ = merge_level;
  UpdateFirstVetoedLevel();
}

void HybridKVPartitionerFactory::UpdateFirstVetoedLevel() const {
  int lowest = merge_levels_.empty() ? merge_level_at_open_
                                     : std::numeric_limits<int>::max();
  for (const auto& [column_family, level] : merge_levels_) {
    lowest = std::min(lowest, level);
  }
  first_vetoed_level_.store(std::max(1, lowest));
}

Status HybridKVPartitionerFactory::ValidateOptions(
    const DBOptions& db_opts, const ColumnFamilyOptions& cf_opts) const {
  const TableFactory* table = cf_opts.table_factory.get();
  if (table == nullptr || !table->IsInstanceOf(kHybridTableId)) {
    return Status::InvalidArgument(
        "HybridKVPartitioner is set on a column family whose table factory "
        "is " +
        std::string(table != nullptr ? table->Name() : "none") +
        ", not HybridTable. If this column family was HybridTable, its SSTs "
        "may still hold medium pointers, which only HybridTable can read. To "
        "switch back safely: open with HybridTable, run CompactRange with "
        "bottommost_level_compaction=kForce (no pointers remain), then remove "
        "sst_partitioner_factory=HybridKVPartitioner along with the table "
        "factory.");
  }
  return SstPartitionerFactory::ValidateOptions(db_opts, cf_opts);
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
