// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "plugin/hybridkv/blob/lifecycle/pointer_resolver.h"

#include <memory>

#include "plugin/hybridkv/blob/lifecycle/db_secret.h"
#include "plugin/hybridkv/blob/lifecycle/db_state.h"
#include "plugin/hybridkv/blob/lifecycle/medium_lifecycle.h"
#include "plugin/hybridkv/blob/medium/medium_pointer.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

IOOptions CurrentIO() {
  IOOptions io;
  io.io_activity = CurrentIOActivity();
  return io;
}

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
    DbState* state = DbStateFor(known.dir);
    std::shared_ptr<MediumFileReader> file;
    Status s = state->medium_files.Get(state->tracker().file_system(),
                                       {known.dir}, FileOptions(), CurrentIO(),
                                       pointer.file_number, &file);
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
