// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// What a table's Finish() appends after its data blocks: filter, index,
// properties, meta-index and footer. HybridTableBuilder adds the prediction
// to EstimatedFileSize(), so that the estimate is the size the file would
// have if it were finished now.
//
// Why: RocksDB cuts a compaction output once EstimatedFileSize() reaches the
// output's limit (twice the target file size above the last level,
// db/compaction/compaction.cc), and BlockBasedTableBuilder's estimate counts
// only the data blocks written so far. The tail is appended after the cut, so
// every file cut by size ends over its limit by its tail. Pointer tables hold
// about three times the records of inline ones per byte, so their filters are
// larger: the deep run's largest pointer SST was 16.6 MiB for a 16 MiB limit.
//
// The model is linear and learned, per table factory, from the last large
// table it finished (TableProperties and TableBuilder::GetTailSize()): bytes
// of filter per entry, bytes of index per byte of data, and the rest, which
// does not grow with the table. It knows nothing of a filter or index format,
// so it holds for every inner table format that reports them.
#pragma once

#include <atomic>
#include <cstdint>

#include "rocksdb/table_properties.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

class TailEstimate {
 public:
  // The tail of a table with `entries` entries and `data_bytes` bytes of data
  // blocks, as the last table learned from had it; 0 before any.
  uint64_t Predict(uint64_t entries, uint64_t data_bytes) const;

  // Learns from a finished table with properties `props` and a tail of
  // `tail_size` bytes. Tables of fewer than kMinEntries entries are ignored:
  // their fixed part would dominate the per-entry terms.
  void Learn(const TableProperties& props, uint64_t tail_size);

  static constexpr uint64_t kMinEntries = 1024;

 private:
  // Relaxed atomics: builders of flushes and compactions run concurrently,
  // and each term is an estimate on its own.
  std::atomic<uint64_t> filter_millibytes_per_entry_{0};
  std::atomic<uint64_t> index_bytes_per_mebibyte_of_data_{0};
  std::atomic<uint64_t> fixed_bytes_{0};
};

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
