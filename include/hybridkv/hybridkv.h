// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// HybridKV's public API. Depends on RocksDB's public headers only.
//
// The plugin registers itself with every ObjectRegistry when RocksDB is built with
// ROCKSDB_PLUGINS=hybridkv, so options strings and OPTIONS files can name its components
// without any call into this header:
//
//   table_factory={id=HybridTable;inner={id=BlockBasedTable;block_size=8192}}
#pragma once

#include <memory>

#include "rocksdb/table.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

// A HybridTable factory wrapping `inner`, or a default BlockBasedTable when `inner` is null.
std::shared_ptr<TableFactory> NewHybridTableFactory(
    std::shared_ptr<TableFactory> inner = nullptr);

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
