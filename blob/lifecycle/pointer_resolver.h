// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#pragma once

#include <string>

#include "rocksdb/slice.h"
#include "rocksdb/status.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

// Resolves a value that may be a medium pointer, seen where the DB it belongs
// to is unknown: merge operators and compaction filters receive compaction
// input values without context. The pointer's MAC identifies its DB: exactly
// the DB whose secret verifies it.
//
// Sets `*is_pointer`. When true, `*value` holds the medium value, or the
// returned status says why it could not be read. When false, `candidate` is a
// plain value: it does not verify under any secret this process has loaded, so
// a value that merely imitates a pointer stays as is.
Status ResolveIfPointer(const Slice& candidate, const Slice& user_key,
                        bool* is_pointer, std::string* value);

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
