// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// compaction_filter/: wrappers resolving the medium pointers compactions read
// as values before a user's compaction filter or merge operator sees them. A
// kept value keeps the pointer; changed values and merge results go inline.
// ConfigureOptions installs them; HybridTable's ValidateOptions rejects
// unwrapped ones.
// May depend on: table/compaction_pointer.h (to resolve pointers), HybridKV's
// public header, RocksDB's public headers.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "plugin/hybridkv/include/hybridkv/hybridkv.h"
#include "rocksdb/compaction_filter.h"
#include "rocksdb/merge_operator.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

class HybridKVCompactionFilterFactory : public CompactionFilterFactory {
 public:
  static const char* kClassName() { return kCompactionFilterId; }
  explicit HybridKVCompactionFilterFactory(
      std::shared_ptr<CompactionFilterFactory> inner = nullptr);

  const char* Name() const override { return kClassName(); }
  const Customizable* Inner() const override { return inner_.get(); }
  bool ShouldFilterTableFileCreation(
      TableFileCreationReason reason) const override;
  std::unique_ptr<CompactionFilter> CreateCompactionFilter(
      const CompactionFilter::Context& context) override;
  Status PrepareOptions(const ConfigOptions& config_options) override;

 private:
  std::shared_ptr<CompactionFilterFactory> inner_;
};

// Adapts a caller-owned compaction_filter to a factory, so it can be wrapped.
std::shared_ptr<CompactionFilterFactory> NewSharedCompactionFilterFactory(
    const CompactionFilter* filter);

class HybridKVMergeOperator : public MergeOperator {
 public:
  static const char* kClassName() { return kMergeOperatorId; }
  explicit HybridKVMergeOperator(
      std::shared_ptr<MergeOperator> inner = nullptr);

  const char* Name() const override { return kClassName(); }
  const Customizable* Inner() const override { return inner_.get(); }
  Status PrepareOptions(const ConfigOptions& config_options) override;

  bool FullMergeV3(const MergeOperationInputV3& merge_in,
                   MergeOperationOutputV3* merge_out) const override;
  // Without an inner operator (an OPTIONS file named one this process cannot
  // create) these answer as MergeOperator's defaults, since every flush and
  // compaction asks AllowSingleOperand; FullMergeV3 fails the merge.
  bool PartialMerge(const Slice& key, const Slice& left_operand,
                    const Slice& right_operand, std::string* new_value,
                    Logger* logger) const override {
    return inner_ != nullptr &&
           inner_->PartialMerge(key, left_operand, right_operand, new_value,
                                logger);
  }
  bool PartialMergeMulti(const Slice& key,
                         const std::deque<Slice>& operand_list,
                         std::string* new_value,
                         Logger* logger) const override {
    return inner_ != nullptr &&
           inner_->PartialMergeMulti(key, operand_list, new_value, logger);
  }
  bool AllowSingleOperand() const override {
    return inner_ != nullptr && inner_->AllowSingleOperand();
  }
  bool ShouldMerge(const std::vector<Slice>& operands) const override {
    return inner_ != nullptr && inner_->ShouldMerge(operands);
  }

 private:
  std::shared_ptr<MergeOperator> inner_;
};

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
