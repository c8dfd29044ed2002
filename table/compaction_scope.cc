// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "plugin/hybridkv/table/compaction_scope.h"

#include <algorithm>
#include <cstring>

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

thread_local std::weak_ptr<CompactionScope> current_scope;

// The pointer's last bytes are MAC output: a uniform slot index.
size_t SlotOf(const Slice& pointer) {
  const size_t n = pointer.size();
  return (static_cast<unsigned char>(pointer[n - 1]) << 8 |
          static_cast<unsigned char>(pointer[n - 2])) %
         CompactionScope::kSlots;
}

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

void CompactionScope::NoteVerified(const Slice& user_key, const Slice& pointer,
                                   const MediumPointer& decoded) {
  if (pointer.size() < 2) return;
  Verified& v = verified_[SlotOf(pointer)];
  if (user_key.size() > v.key.size() || pointer.size() > v.pointer.size()) {
    return;
  }
  v.decoded = decoded;
  v.key_size = static_cast<uint8_t>(user_key.size());
  v.pointer_size = static_cast<uint8_t>(pointer.size());
  std::memcpy(v.key.data(), user_key.data(), user_key.size());
  std::memcpy(v.pointer.data(), pointer.data(), pointer.size());
}

bool CompactionScope::WasVerified(const Slice& user_key, const Slice& pointer,
                                  MediumPointer* decoded) const {
  if (pointer.size() < 2) return false;
  const Verified& v = verified_[SlotOf(pointer)];
  if (v.pointer_size == pointer.size() && v.key_size == user_key.size() &&
      std::memcmp(v.pointer.data(), pointer.data(), pointer.size()) == 0 &&
      std::memcmp(v.key.data(), user_key.data(), user_key.size()) == 0) {
    *decoded = v.decoded;
    return true;
  }
  return false;
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
