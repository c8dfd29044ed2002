// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "plugin/hybridkv/table/compaction_scope.h"

#include <algorithm>

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

thread_local std::weak_ptr<CompactionScope> current_scope;

}  // namespace

std::shared_ptr<CompactionScope> CompactionScope::Current() {
  return current_scope.lock();
}

std::shared_ptr<CompactionScope> CompactionScope::Enter(
    const MediumRefs& refs) {
  std::shared_ptr<CompactionScope> scope = current_scope.lock();
  if (scope == nullptr) {
    scope = std::make_shared<CompactionScope>();
    current_scope = scope;
  }
  for (const auto& [number, ref] : refs) {
    MediumRuns& runs = scope->runs_[number];
    runs.insert(runs.end(), ref.runs.begin(), ref.runs.end());
    NormalizeRuns(&runs);
  }
  return scope;
}

uint64_t CompactionScope::RunEnd(uint64_t number, uint64_t offset) const {
  auto it = runs_.find(number);
  if (it == runs_.end()) return 0;
  const MediumRuns& runs = it->second;
  auto run = std::upper_bound(
      runs.begin(), runs.end(), offset,
      [](uint64_t o, const MediumRun& r) { return o < r.end; });
  return run != runs.end() && run->begin <= offset ? run->end : 0;
}

std::shared_ptr<MediumReadahead> CompactionScope::MergeReader(
    const std::function<std::shared_ptr<MediumReadahead>()>& make) {
  if (merge_reader_ == nullptr) merge_reader_ = make();
  return merge_reader_;
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
