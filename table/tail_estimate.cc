// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "plugin/hybridkv/table/tail_estimate.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

uint64_t TailEstimate::Predict(uint64_t entries, uint64_t data_bytes) const {
  const auto relaxed = std::memory_order_relaxed;
  // No overflow for tables under a terabyte: an index takes at most tens of
  // kilobytes per MiB of data.
  return entries * filter_millibytes_per_entry_.load(relaxed) / 1000 +
         (data_bytes * index_bytes_per_mebibyte_of_data_.load(relaxed) >> 20) +
         fixed_bytes_.load(relaxed);
}

void TailEstimate::Learn(const TableProperties& props, uint64_t tail_size) {
  if (props.num_entries < kMinEntries || props.data_size == 0) {
    return;
  }
  const auto relaxed = std::memory_order_relaxed;
  // Rounded up, so that the prediction errs towards smaller files.
  filter_millibytes_per_entry_.store(
      (props.filter_size * 1000 + props.num_entries - 1) / props.num_entries,
      relaxed);
  index_bytes_per_mebibyte_of_data_.store(
      ((props.index_size << 20) + props.data_size - 1) / props.data_size,
      relaxed);
  const uint64_t scaled = props.filter_size + props.index_size;
  fixed_bytes_.store(tail_size > scaled ? tail_size - scaled : 0, relaxed);
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
