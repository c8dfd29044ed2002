// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "plugin/hybridkv/blob/format/medium_runs.h"

#include <algorithm>

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

const MediumRuns& WholeMediumFile() {
  static const MediumRuns kWhole{{0, UINT64_MAX}};
  return kWhole;
}

void NormalizeRuns(MediumRuns* runs, uint64_t merge_gap) {
  std::sort(
      runs->begin(), runs->end(),
      [](const MediumRun& a, const MediumRun& b) { return a.begin < b.begin; });
  size_t out = 0;
  for (size_t i = 0; i < runs->size(); ++i) {
    const MediumRun& run = (*runs)[i];
    // Cannot overflow for a run ending at UINT64_MAX (WholeMediumFile).
    if (out > 0 && (run.begin <= (*runs)[out - 1].end ||
                    run.begin - (*runs)[out - 1].end <= merge_gap)) {
      (*runs)[out - 1].end = std::max((*runs)[out - 1].end, run.end);
    } else {
      (*runs)[out++] = run;
    }
  }
  runs->resize(out);
}

MediumRuns SubtractRuns(const MediumRuns& from, const MediumRuns& covered) {
  MediumRuns result;
  size_t c = 0;
  for (MediumRun rest : from) {
    while (c < covered.size() && covered[c].end <= rest.begin) c++;
    for (size_t k = c; k < covered.size() && covered[k].begin < rest.end; ++k) {
      if (covered[k].begin > rest.begin) {
        result.push_back({rest.begin, covered[k].begin});
      }
      rest.begin = std::max(rest.begin, covered[k].end);
      if (rest.begin >= rest.end) break;
    }
    if (rest.begin < rest.end) result.push_back(rest);
  }
  return result;
}

MediumRuns WidenToDeadBlocks(const MediumRuns& freed, const MediumRuns& live,
                             uint64_t block) {
  MediumRuns result;
  size_t next = 0;  // the first live run that ends after the freed run begins
  for (const MediumRun& run : freed) {
    while (next < live.size() && live[next].end <= run.begin) next++;
    const uint64_t live_before = next > 0 ? live[next - 1].end : 0;
    const uint64_t live_after =
        next < live.size() ? live[next].begin : UINT64_MAX;
    const uint64_t up =
        run.end > UINT64_MAX - block ? UINT64_MAX
                                     : (run.end + block - 1) / block * block;
    result.push_back({std::max(live_before, run.begin / block * block),
                      std::min(live_after, up)});
  }
  NormalizeRuns(&result);
  return result;
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
