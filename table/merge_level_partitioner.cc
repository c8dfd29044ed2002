// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "plugin/hybridkv/table/merge_level_partitioner.h"

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

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
