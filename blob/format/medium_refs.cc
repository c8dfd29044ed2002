// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "plugin/hybridkv/blob/format/medium_refs.h"

#include <algorithm>

#include "db/dbformat.h"
#include "table/sst_file_writer_collectors.h"
#include "util/coding.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

constexpr uint32_t kRefsVersion = 2;
constexpr uint32_t kRefsVersionWithoutRuns = 1;

void EncodeRefs(const MediumRefs& refs, std::string* out) {
  PutVarint32(out, kRefsVersion);
  PutVarint32(out, static_cast<uint32_t>(refs.size()));
  for (const auto& [number, ref] : refs) {
    PutVarint64(out, number);
    PutVarint64(out, ref.pointers);
    PutVarint64(out, ref.record_bytes);
    PutVarint32(out, static_cast<uint32_t>(ref.runs.size()));
    uint64_t previous_end = 0;
    for (const MediumRun& run : ref.runs) {
      PutVarint64(out, run.begin - previous_end);
      PutVarint64(out, run.end - run.begin);
      previous_end = run.end;
    }
  }
}

// Writes the references its builder records (MediumRefsCollectorFactory).
class MediumRefsCollector : public InternalTblPropColl {
 public:
  explicit MediumRefsCollector(MediumRefs* refs) : refs_(*refs) {}
  Status InternalAdd(const Slice& /*key*/, const Slice& /*value*/,
                     uint64_t /*file_size*/) override {
    return Status::OK();
  }
  void BlockAdd(uint64_t, uint64_t, uint64_t) override {}
  Status Finish(UserCollectedProperties* properties) override {
    for (auto& entry : refs_) {
      NormalizeRuns(&entry.second.runs, kMediumRunMergeGap);
    }
    std::string encoded;
    EncodeRefs(refs_, &encoded);
    properties->emplace(kMediumRefsProperty, std::move(encoded));
    return Status::OK();
  }
  const char* Name() const override { return "HybridKVMediumRefsCollector"; }
  UserCollectedProperties GetReadableProperties() const override {
    std::string text;
    for (const auto& [number, ref] : refs_) {
      if (!text.empty()) text += " ";
      text += std::to_string(number) + ":" + std::to_string(ref.pointers) +
              "/" + std::to_string(ref.record_bytes) + "/" +
              std::to_string(ref.runs.size()) + "runs";
    }
    return {{"hybridkv.medium.refs.readable", text}};
  }

 private:
  MediumRefs& refs_;  // the builder's
};

}  // namespace

void MediumFileRef::AddRecord(uint64_t offset, uint64_t size) {
  pointers++;
  record_bytes += size;
  // Offsets mostly ascend (key order): extend the last run; NormalizeRuns
  // sorts the rest.
  if (!runs.empty() && offset >= runs.back().begin &&
      (offset <= runs.back().end ||
       offset - runs.back().end <= kMediumRunMergeGap)) {
    runs.back().end = std::max(runs.back().end, offset + size);
  } else {
    runs.push_back({offset, offset + size});
  }
}

InternalTblPropColl* MediumRefsCollectorFactory::CreateInternalTblPropColl(
    uint32_t, int, int, SequenceNumber) {
  return new MediumRefsCollector(refs_);
}

Status GetMediumRefs(const TableProperties& props, MediumRefs* refs,
                     bool* known) {
  refs->clear();
  auto it = props.user_collected_properties.find(kMediumRefsProperty);
  *known = it != props.user_collected_properties.end();
  if (!*known) {
    // SstFileWriter output references nothing: its API writes no blob
    // indexes, and HybridTable's builder extracts nothing for it.
    *known = props.user_collected_properties.count(
                 ExternalSstFilePropertyNames::kVersion) != 0;
    return Status::OK();
  }
  Slice in(it->second);
  uint32_t version, count;
  if (!GetVarint32(&in, &version) ||
      (version != kRefsVersion && version != kRefsVersionWithoutRuns) ||
      !GetVarint32(&in, &count)) {
    return Status::Corruption(
        "HybridKV: SST property " + std::string(kMediumRefsProperty) +
        " is damaged or has an unknown version (this build reads versions 1 "
        "and 2); a newer HybridKV may have written it");
  }
  MediumRefs decoded;
  auto truncated = [] {
    return Status::Corruption("HybridKV: SST property " +
                              std::string(kMediumRefsProperty) +
                              " is truncated");
  };
  for (uint32_t i = 0; i < count; ++i) {
    uint64_t number;
    MediumFileRef ref;
    if (!GetVarint64(&in, &number) || !GetVarint64(&in, &ref.pointers) ||
        !GetVarint64(&in, &ref.record_bytes)) {
      return truncated();
    }
    if (version == kRefsVersionWithoutRuns) {
      ref.runs = WholeMediumFile();
    } else {
      uint32_t run_count;
      if (!GetVarint32(&in, &run_count)) return truncated();
      uint64_t previous_end = 0;
      for (uint32_t r = 0; r < run_count; ++r) {
        uint64_t gap, length;
        if (!GetVarint64(&in, &gap) || !GetVarint64(&in, &length)) {
          return truncated();
        }
        ref.runs.push_back({previous_end + gap, previous_end + gap + length});
        previous_end = ref.runs.back().end;
      }
    }
    decoded[number] = std::move(ref);
  }
  if (!in.empty()) {
    // Not what any version writes: nothing decoded can be trusted.
    return Status::Corruption("HybridKV: SST property " +
                              std::string(kMediumRefsProperty) + " has " +
                              std::to_string(in.size()) +
                              " bytes past its last entry: it is damaged");
  }
  *refs = std::move(decoded);
  return Status::OK();
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
