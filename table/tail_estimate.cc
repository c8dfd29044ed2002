// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "plugin/hybridkv/table/tail_estimate.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

constexpr auto kRelaxed = std::memory_order_relaxed;

// Up to a larger sample at once, down towards a smaller one by an eighth.
// A compare-and-swap loop, so that of two builders finishing at once the
// larger sample is not lost.
void Follow(std::atomic<uint64_t>* term, uint64_t sample) {
  uint64_t now = term->load(kRelaxed);
  while (!term->compare_exchange_weak(
      now, sample >= now ? sample : now - (now - sample) / 8, kRelaxed)) {
  }
}

}  // namespace

uint64_t TailEstimate::Predict(int level, uint64_t entries,
                               uint64_t data_bytes) const {
  const Terms& t = levels_[Slot(level)];
  // No overflow for tables under a terabyte: an index takes at most tens of
  // kilobytes per MiB of data.
  return entries * t.filter_millibytes_per_entry.load(kRelaxed) / 1000 +
         (data_bytes * t.index_bytes_per_mebibyte_of_data.load(kRelaxed) >>
          20) +
         t.fixed_bytes.load(kRelaxed);
}

void TailEstimate::Learn(int level, const TableProperties& props,
                         uint64_t tail_size) {
  // A range-deletion block is part of the tail but grows with neither
  // term: such a table would inflate the fixed part for the level.
  if (props.num_entries < kMinEntries || props.data_size == 0 ||
      props.num_range_deletions > 0) {
    return;
  }
  // Terms rounded up, so that the prediction errs towards smaller files.
  Terms& t = levels_[Slot(level)];
  Follow(
      &t.filter_millibytes_per_entry,
      (props.filter_size * 1000 + props.num_entries - 1) / props.num_entries);
  Follow(&t.index_bytes_per_mebibyte_of_data,
         ((props.index_size << 20) + props.data_size - 1) / props.data_size);
  const uint64_t scaled = props.filter_size + props.index_size;
  Follow(&t.fixed_bytes, tail_size > scaled ? tail_size - scaled : 0);
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
