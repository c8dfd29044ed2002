// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// A process-wide pool of threads that only wait for blocking reads.
#pragma once

#include <cstddef>
#include <functional>

#include "rocksdb/rocksdb_namespace.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

// Runs task(0) .. task(n - 1), each once, on the calling thread and the pool,
// and returns when all have finished. For blocking reads: a batch's requests
// are then in flight together whatever the file system, which RocksDB's
// MultiRead offers only within one file.
void RunReadsInParallel(size_t n, const std::function<void(size_t)>& task);

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
