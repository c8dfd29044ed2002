// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "plugin/hybridkv/blob/envelope_resolver.h"

#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>

#include "plugin/hybridkv/blob/db_secret.h"
#include "plugin/hybridkv/blob/medium_lifecycle.h"
#include "plugin/hybridkv/blob/medium_pointer.h"
#include "plugin/hybridkv/blob/medium_readahead.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

IOOptions CurrentIO() {
  IOOptions io;
  io.io_activity = CurrentIOActivity();
  return io;
}

// Recently used medium files, keyed by (dir, DB id, number): the DB id keeps a
// directory's next DB (after DestroyDB) from hitting a previous DB's file of
// the same number.
class OpenFiles {
 public:
  Status Get(const std::string& dir, const std::string& db_id, uint64_t number,
             std::shared_ptr<MediumFileReader>* file) {
    const auto key = std::make_tuple(dir, db_id, number);
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = files_.find(key);
      if (it != files_.end()) {
        *file = it->second;
        return Status::OK();
      }
    }
    std::unique_ptr<MediumFileReader> opened;
    IOStatus s = OpenMediumFile(TrackerFor(dir)->file_system(), {dir}, number,
                                FileOptions(), &opened, CurrentIO());
    if (!s.ok()) {
      return s;
    }
    *file = std::shared_ptr<MediumFileReader>(std::move(opened));
    std::lock_guard<std::mutex> lock(mu_);
    if (order_.size() >= kCapacity) {
      files_.erase(order_.front());
      order_.pop_front();
    }
    files_[key] = *file;
    order_.push_back(key);
    return Status::OK();
  }

 private:
  using Key = std::tuple<std::string, std::string, uint64_t>;
  static constexpr size_t kCapacity = 64;
  std::mutex mu_;
  std::map<Key, std::shared_ptr<MediumFileReader>> files_;
  std::list<Key> order_;  // insertion order, for eviction
};

}  // namespace

Status ResolveIfPointer(const Slice& candidate, const Slice& user_key,
                        bool* is_pointer, std::string* value) {
  *is_pointer = false;
  if (!MayBeMediumPointer(candidate)) {
    return Status::OK();
  }
  // A checkpoint shares its source's secret and DB id, so a pointer may verify
  // under several directories whose files of the same number differ by now:
  // the one whose record has the pointer's key and checksum is the one.
  Status first_error;
  for (const KnownDbSecret& known : KnownDbSecrets()) {
    MediumPointer pointer;
    if (!DecodeMediumPointer(known.secret, candidate, user_key, &pointer)) {
      continue;
    }
    *is_pointer = true;
    static auto* open_files = new OpenFiles();
    std::shared_ptr<MediumFileReader> file;
    Status s =
        open_files->Get(known.dir, known.db_id, pointer.file_number, &file);
    if (s.ok()) {
      s = file->Read(CurrentIO(), pointer.handle, user_key, value);
    }
    if (s.ok()) {
      return s;
    }
    if (first_error.ok()) {
      first_error = s;
    }
  }
  return first_error;
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
