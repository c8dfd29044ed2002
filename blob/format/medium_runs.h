// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// Byte runs of a medium file: where an SST's records lie (medium_refs.h), and
// what is left to free when an SST goes (hole_punch.h).
#pragma once

#include <cstdint>
#include <vector>

#include "rocksdb/rocksdb_namespace.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

// A byte range [begin, end) of a medium file.
struct MediumRun {
  uint64_t begin = 0;
  uint64_t end = 0;
  bool operator==(const MediumRun& o) const {
    return begin == o.begin && end == o.end;
  }
};
using MediumRuns = std::vector<MediumRun>;  // sorted, disjoint

// The file-system block that freeing in place is planned in: ext4's and xfs's.
// PunchHoles aligns inward to the file's own block size, so where that is
// larger, planning in smaller blocks only frees less.
constexpr uint64_t kPunchBlockSize = 4096;

// Runs closer than this are recorded as one. Freeing in place works in whole
// file-system blocks, so a shorter gap could rarely be freed anyway.
constexpr uint64_t kMediumRunMergeGap = kPunchBlockSize;

// Everything: the runs of a reference that does not say (format version 1,
// or an SST scanned without HybridKV's collector).
const MediumRuns& WholeMediumFile();

// Sorts `*runs`, merging runs that overlap or are under `merge_gap` apart.
void NormalizeRuns(MediumRuns* runs, uint64_t merge_gap = 0);

// The parts of `from` that no run of `covered` (sorted, disjoint) overlaps.
MediumRuns SubtractRuns(const MediumRuns& from, const MediumRuns& covered);

// `freed` (runs that just died, outside every run of `live`), each widened to
// the `block`-aligned bounds around it as far as no run of `live` reaches: a
// block a freed run shares with a run that died before is whole only now, the
// one time it can be freed. Every block the result covers whole overlaps
// `freed`, so none was freed before.
MediumRuns WidenToDeadBlocks(const MediumRuns& freed, const MediumRuns& live,
                             uint64_t block);

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
