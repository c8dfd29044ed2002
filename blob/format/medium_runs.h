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

// The block holes are planned in (ext4's, xfs's). PunchHoles aligns inward to
// the file's own block size, so a larger one only frees less.
constexpr uint64_t kPunchBlockSize = 4096;

// Closer runs are recorded as one: holes are punched in whole blocks.
constexpr uint64_t kMediumRunMergeGap = kPunchBlockSize;

// All: the runs of a reference without runs (version 1, not HybridKV-built).
const MediumRuns& WholeMediumFile();

// Sorts `*runs`, merging runs that overlap or are under `merge_gap` apart.
void NormalizeRuns(MediumRuns* runs, uint64_t merge_gap = 0);

// The parts of `from` that no run of `covered` (sorted, disjoint) overlaps.
MediumRuns SubtractRuns(const MediumRuns& from, const MediumRuns& covered);

// Widens each run of `freed` (just died, outside `live`) to the `block`-aligned
// bounds around it that `live` does not reach: a block shared with an earlier
// dead run is whole only now, the one time it can be freed. Every block the
// result covers whole overlaps `freed`, so none was freed before.
MediumRuns WidenToDeadBlocks(const MediumRuns& freed, const MediumRuns& live,
                             uint64_t block);

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
