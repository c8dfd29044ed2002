// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// What a table's Finish() appends after its data blocks: filter, index,
// properties, meta-index and footer. HybridTableBuilder adds the prediction
// to EstimatedFileSize(), so that the estimate is the size the file would
// have if it were finished now.
//
// Why: RocksDB cuts a compaction output once EstimatedFileSize() reaches the
// output's limit (twice the target file size above the last level when the
// level below has files, db/compaction/compaction.cc), and
// BlockBasedTableBuilder's estimate counts only the data blocks written so far.
// The tail is appended after the cut, so every file cut by size ends over its
// limit by its tail. Pointer tables hold about three times the records of
// inline ones per byte, so their filters are larger: the deep run's largest
// pointer SST was 16.6 MiB for a 16 MiB limit.
//
// The model is linear, learned per output level from the tables finished
// there (TableProperties and TableBuilder::GetTailSize()): bytes of filter per
// entry, bytes of index per byte of data, and the rest, which does not grow
// with the table. Per level, because a level holds one kind of table: in a
// 24M-record load, index bytes per MiB of data ranged from 5.3 K (inline
// tables) to 6.4 K (pointer tables), and the fixed part from 1.2 K to 7.8 K
// (a pointer table's refs property). A term follows a larger sample at once
// and a smaller one by an eighth of the difference, so it errs towards
// smaller files. It knows no filter or index format, so it holds for every
// inner table format that reports them. It starts empty in every process, so
// until a level has finished a table of kMinEntries entries, the outputs of
// that level count only the margin. One estimate serves every column family
// that shares the table factory; level -1 (SstFileWriter, repair) shares the
// last slot with levels past it.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>

#include "rocksdb/table_properties.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

class TailEstimate {
 public:
  // The tail of a table at `level` with `entries` entries and `data_bytes`
  // bytes of data blocks; 0 before a table of that level was learned from.
  uint64_t Predict(int level, uint64_t entries, uint64_t data_bytes) const;

  // Learns from a finished table at `level` with properties `props` and a
  // tail of `tail_size` bytes. Tables of fewer than kMinEntries entries are
  // ignored (their fixed part would swamp the per-entry terms), and so are
  // tables with range deletions.
  void Learn(int level, const TableProperties& props, uint64_t tail_size);

  static constexpr uint64_t kMinEntries = 1024;

 private:
  // Relaxed atomics: builders of flushes and compactions run concurrently,
  // and each term is an estimate on its own.
  struct Terms {
    std::atomic<uint64_t> filter_millibytes_per_entry{0};
    std::atomic<uint64_t> index_bytes_per_mebibyte_of_data{0};
    std::atomic<uint64_t> fixed_bytes{0};
  };
  // Levels past the last slot (and -1, level unknown) share the last one.
  static constexpr int kSlots = 16;
  static int Slot(int level) {
    return level >= 0 && level < kSlots ? level : kSlots - 1;
  }

  std::array<Terms, kSlots> levels_;
};

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
