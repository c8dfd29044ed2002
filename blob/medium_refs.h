// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// The medium files an SST references, recorded in its table properties by a
// collector that sees every entry as written. Lifecycle (reference counting)
// and the reader's fast path (SSTs without references delegate straight to the
// inner table) rely on it.
//
// Property "hybridkv.medium.refs", format version 1:
//
//   refs  := version:varint32 count:varint32 (file_number:varint64
//   pointers:varint64
//            record_bytes:varint64){count}
//
// Files are listed in increasing file number. The table's own block checksums
// protect it. HybridKV writes the property into every SST it builds, with count
// 0 when there are no references: an SST without it was built without HybridKV
// (stock RocksDB compacting a HybridKV DB copies pointers verbatim), so its
// references are unknown.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "db/table_properties_collector.h"
#include "rocksdb/file_system.h"
#include "rocksdb/table_properties.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

const char* const kMediumRefsProperty = "hybridkv.medium.refs";

struct MediumFileRef {
  uint64_t pointers = 0;      // entries of the SST that point into the file
  uint64_t record_bytes = 0;  // bytes of the records they point to
};
using MediumRefs = std::map<uint64_t, MediumFileRef>;  // by medium file number

// Decodes the refs property of `props`. `*known` is false when the SST has no
// such property: it was not built by HybridKV and may hold pointers all the
// same.
Status GetMediumRefs(const TableProperties& props, MediumRefs* refs,
                     bool* known);

// Reads every entry of the SST at `sst_path` with a stock BlockBasedTable
// reader and compaction's view (no HybridKV code in between), calling `visit`
// with each internal key and value.
Status ForEachRawEntry(const std::shared_ptr<FileSystem>& fs,
                       const std::string& sst_path,
                       const std::function<void(const Slice& internal_key,
                                                const Slice& value)>& visit);

// Collects the references of an SST built without HybridKV by reading every
// entry: the fallback when its properties cannot tell.
Status ScanMediumRefs(const std::shared_ptr<FileSystem>& fs,
                      const std::string& sst_path, MediumRefs* refs);

// Creates the refs collector; add it to a builder's internal collectors.
class MediumRefsCollectorFactory : public InternalTblPropCollFactory {
 public:
  InternalTblPropColl* CreateInternalTblPropColl(
      uint32_t column_family_id, int level_at_creation, int num_levels,
      SequenceNumber last_level_inclusive_max_seqno_threshold) override;
  const char* Name() const override {
    return "HybridKVMediumRefsCollectorFactory";
  }
};

// Lets a builder hand the inner builder its own collector list: forwards to a
// factory owned by RocksDB, which outlives the builder.
class ForwardingCollectorFactory : public InternalTblPropCollFactory {
 public:
  explicit ForwardingCollectorFactory(InternalTblPropCollFactory* target)
      : target_(target) {}
  InternalTblPropColl* CreateInternalTblPropColl(
      uint32_t column_family_id, int level_at_creation, int num_levels,
      SequenceNumber last_level_inclusive_max_seqno_threshold) override {
    return target_->CreateInternalTblPropColl(
        column_family_id, level_at_creation, num_levels,
        last_level_inclusive_max_seqno_threshold);
  }
  const char* Name() const override { return target_->Name(); }

 private:
  InternalTblPropCollFactory* const target_;
};

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
