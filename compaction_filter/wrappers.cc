// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "plugin/hybridkv/compaction_filter/wrappers.h"

#include <unordered_map>

#include "logging/logging.h"
#include "plugin/hybridkv/table/compaction_pointer.h"
#include "rocksdb/utilities/options_type.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

std::unordered_map<std::string, OptionTypeInfo> filter_factory_type_info = {
    {"inner",
     OptionTypeInfo::AsCustomSharedPtr<CompactionFilterFactory>(
         0, OptionVerificationType::kByName, OptionTypeFlags::kAllowNull)},
};

std::unordered_map<std::string, OptionTypeInfo> merge_operator_type_info = {
    {"inner",
     OptionTypeInfo::AsCustomSharedPtr<MergeOperator>(
         0, OptionVerificationType::kByName, OptionTypeFlags::kAllowNull)},
};

Status MissingInner(const char* what) {
  return Status::InvalidArgument(std::string(what) +
                                 ": option 'inner' is empty; name the wrapped "
                                 "component, e.g. inner={id=...}.");
}

class ResolvingCompactionFilter : public CompactionFilter {
 public:
  explicit ResolvingCompactionFilter(std::unique_ptr<CompactionFilter> owned)
      : owned_(std::move(owned)), inner_(owned_.get()) {}
  explicit ResolvingCompactionFilter(const CompactionFilter* shared)
      : inner_(shared) {}

  const char* Name() const override { return inner_->Name(); }
  bool IgnoreSnapshots() const override { return inner_->IgnoreSnapshots(); }

  Decision FilterV3(
      int level, const Slice& key, ValueType value_type,
      const Slice* existing_value, const WideColumns* existing_columns,
      std::string* new_value,
      std::vector<std::pair<std::string, std::string>>* new_columns,
      std::string* skip_until) const override {
    std::string resolved;
    if (value_type == ValueType::kValue && existing_value != nullptr) {
      bool is_pointer = false;
      Status s = ResolveIfCompactionPointer(*existing_value, key, &is_pointer,
                                            &resolved);
      if (!s.ok()) {
        // A filter cannot report errors: keep the entry, losing nothing, and
        // let the read path report the damaged medium file.
        return Decision::kKeep;
      }
      if (is_pointer) {
        const Slice value(resolved);
        return inner_->FilterV3(level, key, value_type, &value,
                                existing_columns, new_value, new_columns,
                                skip_until);
      }
    }
    return inner_->FilterV3(level, key, value_type, existing_value,
                            existing_columns, new_value, new_columns,
                            skip_until);
  }
  Decision FilterBlobByKey(int level, const Slice& key, std::string* new_value,
                           std::string* skip_until) const override {
    return inner_->FilterBlobByKey(level, key, new_value, skip_until);
  }

 private:
  std::unique_ptr<CompactionFilter> owned_;
  const CompactionFilter* inner_;
};

class SharedFilterFactory : public CompactionFilterFactory {
 public:
  explicit SharedFilterFactory(const CompactionFilter* filter)
      : filter_(filter) {}
  const char* Name() const override { return "HybridKVSharedCompactionFilter"; }
  bool ShouldFilterTableFileCreation(
      TableFileCreationReason reason) const override {
    return reason == TableFileCreationReason::kCompaction;
  }
  std::unique_ptr<CompactionFilter> CreateCompactionFilter(
      const CompactionFilter::Context&) override {
    return std::make_unique<ResolvingCompactionFilter>(filter_);
  }

 private:
  const CompactionFilter* const filter_;
};

}  // namespace

HybridKVCompactionFilterFactory::HybridKVCompactionFilterFactory(
    std::shared_ptr<CompactionFilterFactory> inner)
    : inner_(std::move(inner)) {
  RegisterOptions("HybridKVCompactionFilterInner", &inner_,
                  &filter_factory_type_info);
}

Status HybridKVCompactionFilterFactory::PrepareOptions(
    const ConfigOptions& config_options) {
  // Lenient parsing (of RocksDB's own or a loaded OPTIONS file) leaves an
  // uncreatable inner filter null, as stock RocksDB drops it; strict fails.
  if (inner_ == nullptr && !config_options.ignore_unsupported_options) {
    return MissingInner(kClassName());
  }
  return CompactionFilterFactory::PrepareOptions(config_options);
}

bool HybridKVCompactionFilterFactory::ShouldFilterTableFileCreation(
    TableFileCreationReason reason) const {
  return inner_ != nullptr && inner_->ShouldFilterTableFileCreation(reason);
}

std::unique_ptr<CompactionFilter>
HybridKVCompactionFilterFactory::CreateCompactionFilter(
    const CompactionFilter::Context& context) {
  if (inner_ == nullptr) {
    return nullptr;  // see PrepareOptions
  }
  std::unique_ptr<CompactionFilter> filter =
      inner_->CreateCompactionFilter(context);
  if (filter == nullptr) {
    return nullptr;
  }
  return std::make_unique<ResolvingCompactionFilter>(std::move(filter));
}

std::shared_ptr<CompactionFilterFactory> NewSharedCompactionFilterFactory(
    const CompactionFilter* filter) {
  return std::make_shared<SharedFilterFactory>(filter);
}

HybridKVMergeOperator::HybridKVMergeOperator(
    std::shared_ptr<MergeOperator> inner)
    : inner_(std::move(inner)) {
  RegisterOptions("HybridKVMergeOperatorInner", &inner_,
                  &merge_operator_type_info);
}

Status HybridKVMergeOperator::PrepareOptions(
    const ConfigOptions& config_options) {
  // As for HybridKVCompactionFilterFactory::PrepareOptions.
  if (inner_ == nullptr && !config_options.ignore_unsupported_options) {
    return MissingInner(kClassName());
  }
  return MergeOperator::PrepareOptions(config_options);
}

bool HybridKVMergeOperator::FullMergeV3(
    const MergeOperationInputV3& merge_in,
    MergeOperationOutputV3* merge_out) const {
  if (inner_ == nullptr) {
    // Fail the merge (Corruption to the caller) rather than guess.
    ROCKS_LOG_ERROR(merge_in.logger,
                    "HybridKVMergeOperator: no inner merge operator; register "
                    "it with the ObjectRegistry or set it in code.");
    return false;
  }
  if (const Slice* existing = std::get_if<Slice>(&merge_in.existing_value)) {
    bool is_pointer = false;
    std::string resolved;
    Status s = ResolveIfCompactionPointer(*existing, merge_in.key, &is_pointer,
                                          &resolved);
    if (!s.ok()) {
      // Fail the compaction (or read) rather than merge onto pointer bytes.
      merge_out->op_failure_scope = OpFailureScope::kMustMerge;
      return false;
    }
    if (is_pointer) {
      MergeOperationInputV3 resolved_in(merge_in.key, Slice(resolved),
                                        merge_in.operand_list, merge_in.logger);
      const bool ok = inner_->FullMergeV3(resolved_in, merge_out);
      // A result that is "the existing value" points into `resolved`, which
      // dies here: RocksDB copies it only after we return.
      if (const Slice* out = std::get_if<Slice>(&merge_out->new_value)) {
        if (out->data() >= resolved.data() &&
            out->data() <= resolved.data() + resolved.size()) {
          merge_out->new_value = out->ToString();
        }
      }
      return ok;
    }
  }
  return inner_->FullMergeV3(merge_in, merge_out);
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
