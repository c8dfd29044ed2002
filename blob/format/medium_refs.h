// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// The medium files an SST references, recorded in its table properties by
// the builder that writes its pointers, for the lifecycle and the reader.
// Property "hybridkv.medium.refs", format version 2:
//
// clang-format off
//   refs  := version:varint32 count:varint32 file{count}
//   file  := file_number:varint64 pointers:varint64 record_bytes:varint64
//            run_count:varint32 run{run_count}
//   run   := gap:varint64 length:varint64
// clang-format on
//
// Files are in increasing number. A run is a byte range of the medium file
// holding every record the SST points to there; the first `gap` is the run's
// start offset, each later `gap` the distance from the previous run's end.
// Runs are sorted, disjoint, and merged across gaps under kMediumRunMergeGap
// to keep the property small; bytes between runs may be freed in place.
// Version 1 had no runs: its references cover the whole file. The table's
// block checksums protect the property. HybridKV writes it into every SST it
// builds (count 0 if none), so an SST without it was not built by HybridKV
// (stock RocksDB compaction copies pointers verbatim): references unknown.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "db/table_properties_collector.h"
#include "plugin/hybridkv/blob/format/medium_runs.h"
#include "rocksdb/table_properties.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

const char* const kMediumRefsProperty = "hybridkv.medium.refs";

struct MediumFileRef {
  uint64_t pointers = 0;      // entries of the SST that point into the file
  uint64_t record_bytes = 0;  // bytes of the records they point to
  MediumRuns runs;            // where those records are
  // Adds [offset, offset + size); records arrive in any order.
  void AddRecord(uint64_t offset, uint64_t size);
};
using MediumRefs = std::map<uint64_t, MediumFileRef>;  // by medium file number

// Records an SST's references for its builder. A direct-mapped cache spares a
// map lookup per pointer, as consecutive pointers mostly name different files.
class MediumRefsRecorder {
 public:
  void AddRecord(uint64_t file_number, uint64_t offset, uint64_t size) {
    Slot& slot = slots_[(file_number * 0x9E3779B97F4A7C15ull) >>
                        (64 - kSlotBits)];  // Fibonacci hashing
    if (slot.ref == nullptr || slot.number != file_number) {
      slot.number = file_number;
      slot.ref = &refs_[file_number];  // map entries never move
    }
    slot.ref->AddRecord(offset, size);
  }
  MediumRefs* refs() { return &refs_; }

 private:
  static constexpr int kSlotBits = 10;
  struct Slot {
    uint64_t number = 0;
    MediumFileRef* ref = nullptr;
  };
  MediumRefs refs_;
  std::array<Slot, size_t{1} << kSlotBits> slots_;
};

// `*known` is false if the SST lacks the property and is not SstFileWriter
// output (not HybridKV-built, it may hold pointers). Corruption, `*refs`
// empty, if the property is truncated, of unknown version or has extra bytes.
Status GetMediumRefs(const TableProperties& props, MediumRefs* refs,
                     bool* known);

// Writes into the property the `*refs` its builder fills (outliving it).
class MediumRefsCollectorFactory : public InternalTblPropCollFactory {
 public:
  explicit MediumRefsCollectorFactory(MediumRefs* refs) : refs_(refs) {}
  InternalTblPropColl* CreateInternalTblPropColl(
      uint32_t column_family_id, int level_at_creation, int num_levels,
      SequenceNumber last_level_inclusive_max_seqno_threshold) override;
  const char* Name() const override {
    return "HybridKVMediumRefsCollectorFactory";
  }

 private:
  MediumRefs* const refs_;
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
