// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "plugin/hybridkv/blob/lifecycle/db_state.h"

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "plugin/hybridkv/blob/lifecycle/medium_lifecycle.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

void DbCounters::NoteLevel(uint32_t cf, int level) {
  std::lock_guard<std::mutex> lock(levels_mu_);
  int& deepest = deepest_[cf];
  deepest = std::max(deepest, level);
  if (level > 0) {
    auto it = shallowest_.emplace(cf, level).first;
    it->second = std::min(it->second, level);
  }
}

int DbCounters::DeepestLevel(uint32_t cf) const {
  std::lock_guard<std::mutex> lock(levels_mu_);
  return LevelOf(deepest_, cf);
}

void DbCounters::NoteBaseLevel(uint32_t cf, int level) {
  std::lock_guard<std::mutex> lock(levels_mu_);
  base_[cf] = level;
}

int DbCounters::BaseLevel(uint32_t cf) const {
  std::lock_guard<std::mutex> lock(levels_mu_);
  const int base = LevelOf(base_, cf);
  return base > 0 ? base : LevelOf(shallowest_, cf);
}

int DbCounters::LevelOf(const std::map<uint32_t, int>& levels, uint32_t cf) {
  auto it = levels.find(cf);
  return it == levels.end() ? 0 : it->second;
}

DbState::DbState(const std::string& dir)
    : tracker_(new MediumFileTracker(dir, &medium_files)) {}

DbState::~DbState() = default;

BuildRegistry& DbState::builds() { return *tracker_; }

namespace {

struct Registry {
  std::mutex mu;
  std::map<std::string, std::unique_ptr<DbState>> states;
};

Registry& GetRegistry() {
  static auto* registry = new Registry();
  return *registry;
}

}  // namespace

DbState* DbStateFor(const std::string& dir) {
  Registry& registry = GetRegistry();
  std::lock_guard<std::mutex> lock(registry.mu);
  auto& slot = registry.states[dir];
  if (slot == nullptr) {
    slot = std::make_unique<DbState>(dir);
  }
  return slot.get();
}

void ForEachDbState(
    const std::function<void(const std::string& dir, DbState* state)>& visit) {
  std::vector<std::pair<std::string, DbState*>> states;
  {
    Registry& registry = GetRegistry();
    std::lock_guard<std::mutex> lock(registry.mu);
    for (const auto& [dir, state] : registry.states) {
      states.emplace_back(dir, state.get());
    }
  }
  for (const auto& [dir, state] : states) {
    visit(dir, state);
  }
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
