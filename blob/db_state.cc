// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "plugin/hybridkv/blob/db_state.h"

#include <map>
#include <memory>
#include <mutex>

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

void DbCounters::NoteLevel(uint32_t cf, int level) {
  std::atomic<int>& d = deepest_[cf % kTrackedColumnFamilies];
  int seen = d.load(std::memory_order_relaxed);
  while (level > seen && !d.compare_exchange_weak(seen, level)) {
  }
}

int DbCounters::DeepestLevel(uint32_t cf) const {
  return deepest_[cf % kTrackedColumnFamilies].load(std::memory_order_relaxed);
}

DbState* DbStateFor(const std::string& dir) {
  static std::mutex mu;
  static auto* registry = new std::map<std::string, std::unique_ptr<DbState>>();
  std::lock_guard<std::mutex> lock(mu);
  auto& slot = (*registry)[dir];
  if (slot == nullptr) {
    slot = std::make_unique<DbState>(dir);
  }
  return slot.get();
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
