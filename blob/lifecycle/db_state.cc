// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "plugin/hybridkv/blob/lifecycle/db_state.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <set>
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
    : home_(dir),
      tracker_(new MediumFileTracker(dir, &medium_files)) {}

DbState::~DbState() = default;

void DbState::NoteCompactionsResolvePointers(uint32_t cf) {
  std::lock_guard<std::mutex> lock(resolving_mu_);
  resolving_cfs_.insert(cf);
}

bool DbState::CompactionsResolvePointers(uint32_t cf) {
  std::lock_guard<std::mutex> lock(resolving_mu_);
  return resolving_cfs_.count(cf) != 0;
}

namespace {

struct Registry {
  std::mutex mu;
  std::map<std::string, std::unique_ptr<DbState>> states;  // by home
  std::set<std::string> registered_homes;  // by DbStateForPaths
  std::map<std::string, std::string> homes_of_sst_dirs;  // later paths
};

DbState* StateOfHomeLocked(Registry& registry, const std::string& key,
                           const std::string& dir) {
  auto& slot = registry.states[key];
  if (slot == nullptr) {
    // Files are named as the first caller spells the directory: the DB's
    // file system may not know the local file system's real path.
    slot = std::make_unique<DbState>(dir);
  }
  return slot.get();
}

Registry& GetRegistry() {
  static auto* registry = new Registry();
  return *registry;
}

}  // namespace

std::string CanonicalDbDir(const std::string& dir) {
  // Real path of what exists, the rest normalized: same before and after mkdir.
  std::error_code error;
  std::filesystem::path path = std::filesystem::weakly_canonical(
      std::filesystem::absolute(dir, error), error);
  if (error) {
    path = std::filesystem::path(dir).lexically_normal();
  }
  std::string out = path.string();
  while (out.size() > 1 && out.back() == '/') {
    out.pop_back();
  }
  return out;
}

bool IsOneOfPaths(const std::string& dir, const std::vector<DbPath>& paths) {
  const std::string key = CanonicalDbDir(dir);
  for (const DbPath& path : paths) {
    if (CanonicalDbDir(path.path) == key) return true;
  }
  return false;
}

DbState* DbStateFor(const std::string& dir) {
  const std::string key = CanonicalDbDir(dir);
  Registry& registry = GetRegistry();
  std::lock_guard<std::mutex> lock(registry.mu);
  auto home = registry.homes_of_sst_dirs.find(key);
  if (home != registry.homes_of_sst_dirs.end()) {
    return registry.states.at(home->second).get();
  }
  return StateOfHomeLocked(registry, key, dir);
}

Status DbStateForPaths(const std::vector<DbPath>& cf_paths,
                       const std::string& dir, DbState** state) {
  if (cf_paths.empty()) {
    *state = DbStateFor(dir);
    return Status::OK();
  }
  const std::string home = CanonicalDbDir(cf_paths.front().path);
  std::vector<std::string> keys;
  for (const DbPath& path : cf_paths) keys.push_back(CanonicalDbDir(path.path));
  Registry& registry = GetRegistry();
  std::lock_guard<std::mutex> lock(registry.mu);
  for (size_t i = 0; i < keys.size(); ++i) {
    auto other = registry.homes_of_sst_dirs.find(keys[i]);
    const bool later_elsewhere =
        other != registry.homes_of_sst_dirs.end() && other->second != home;
    const bool home_elsewhere =
        keys[i] != home && registry.registered_homes.count(keys[i]) != 0;
    if ((i == 0 && other != registry.homes_of_sst_dirs.end()) ||
        later_elsewhere || home_elsewhere) {
      return Status::NotSupported(
          "HybridKV: directory " + cf_paths[i].path +
          " is the first path of one column family and a later path of "
          "another: a column family's medium files and secret live in its "
          "first path, and each directory belongs to one. Give column "
          "families that share a directory the same first path (a process "
          "that opened a DB with other paths must restart first).");
    }
  }
  *state = StateOfHomeLocked(registry, home, cf_paths.front().path);
  registry.registered_homes.insert(home);
  for (size_t i = 1; i < keys.size(); ++i) {
    if (keys[i] == home) continue;
    registry.homes_of_sst_dirs.emplace(keys[i], home);
    (*state)->tracker().AddSstDir(cf_paths[i].path);
  }
  return Status::OK();
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
