// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// An SST on disk: its properties, number, and medium references (from the
// refs property, blob/format/medium_refs.h, or by reading every entry).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "plugin/hybridkv/blob/format/medium_refs.h"
#include "rocksdb/file_system.h"
#include "rocksdb/table_properties.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

// Calls `visit` with every internal key and value of the SST at `sst_path`,
// read by a stock BlockBasedTable reader as compaction sees them.
Status ForEachRawEntry(const std::shared_ptr<FileSystem>& fs,
                       const std::string& sst_path,
                       const std::function<void(const Slice& internal_key,
                                                const Slice& value)>& visit);

// The references of an SST built without HybridKV, from its entries.
Status ScanMediumRefs(const std::shared_ptr<FileSystem>& fs,
                      const std::string& sst_path, MediumRefs* refs);

// The references of the SST at `sst_path` (properties `props`): from its refs
// property, else (none, or undecodable) by ScanMediumRefs. An error means they
// are unknown: nothing they might cover may be freed.
Status ReadMediumRefs(const std::shared_ptr<FileSystem>& fs,
                      const std::string& sst_path, const TableProperties& props,
                      MediumRefs* refs);

// Reads the table properties of the SST at `path`, whatever its table format.
Status ReadSstProperties(const std::shared_ptr<FileSystem>& fs,
                         const std::string& path,
                         std::unique_ptr<TableProperties>* props);

// The medium files the SST at `path` references: from its properties, or by
// reading its entries when it was not built by HybridKV.
Status ReadSstMediumRefs(const std::shared_ptr<FileSystem>& fs,
                         const std::string& path, MediumRefs* refs);

// "<dir>/000123.sst" -> 123; 0 when `path` is not an SST file name.
uint64_t SstNumberOf(const std::string& path);

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
