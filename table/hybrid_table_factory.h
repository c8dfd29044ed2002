// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// table/: HybridTable, the TableFactory through which HybridKV places values by size.
//
// HybridTable wraps an inner factory (BlockBasedTable by default). Everything the inner format
// supports keeps working, because every TableReader, TableBuilder and iterator virtual is
// forwarded, including the ones RocksDB gives a default body.
//
// May depend on: RocksDB public and internal headers (compiled in-tree with RocksDB's flags).
#pragma once

#include <memory>
#include <string>

#include "rocksdb/table.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

// How values are sorted into the small, medium and large classes.
enum class ClassifyBy : char {
  kSize,   // by value size: [medium_min_value_size, medium_max_value_size] is medium
  kRatio,  // by key/(key+value), Parallax's T_SM and T_ML
};

enum class ValueClass : char { kSmall, kMedium, kLarge };

// Options of HybridTable, as set by `table_factory={id=HybridTable;...}` strings and OPTIONS
// files. Names and defaults are part of the public interface; see README.md.
struct HybridTableOptions {
  static const char* kName() { return "HybridTableOptions"; }

  ClassifyBy classify_by = ClassifyBy::kSize;
  // With kSize: values of [medium_min_value_size, medium_max_value_size] bytes are medium.
  // Larger ones are large, and belong to BlobDB (min_blob_size = medium_max_value_size + 1).
  uint32_t medium_min_value_size = 96;
  uint32_t medium_max_value_size = 999;
  // With kRatio: key/(key+value) above small_medium_ratio is small, at or below
  // medium_large_ratio is large, medium in between.
  double small_medium_ratio = 0.2;
  double medium_large_ratio = 0.02;
  // >= 0: an absolute level. < 0: counted from the deepest non-empty level of the column
  // family (-1 is that level, -2 the one above it). Compactions whose output level is at or
  // below the merge level write medium values back inline.
  int merge_level = -2;
  // The wrapped table format. Never null once options are prepared.
  std::shared_ptr<TableFactory> inner;

  ValueClass Classify(size_t key_size, size_t value_size) const;
};

class HybridTableFactory : public TableFactory {
 public:
  static const char* kClassName() { return "HybridTable"; }

  // A null `options.inner` means the default, a BlockBasedTable with default options.
  explicit HybridTableFactory(HybridTableOptions options = HybridTableOptions());

  const char* Name() const override { return kClassName(); }

  using TableFactory::NewTableReader;
  Status NewTableReader(const ReadOptions& ro,
                        const TableReaderOptions& table_reader_options,
                        std::unique_ptr<RandomAccessFileReader>&& file,
                        uint64_t file_size,
                        std::unique_ptr<TableReader>* table_reader,
                        bool prefetch_index_and_filter_in_cache) const override;

  TableBuilder* NewTableBuilder(const TableBuilderOptions& table_builder_options,
                                WritableFileWriter* file) const override;

  // Deep copy: the inner factory is cloned too, because SetOptions and options-string changes
  // mutate the clone.
  std::unique_ptr<TableFactory> Clone() const override;

  bool IsDeleteRangeSupported() const override {
    return options_.inner->IsDeleteRangeSupported();
  }

  // Lets GetOptions<BlockBasedTableOptions>(), block cache properties and tools that inject a
  // block cache reach the wrapped factory.
  const Customizable* Inner() const override { return options_.inner.get(); }

  Status PrepareOptions(const ConfigOptions& config_options) override;
  Status ValidateOptions(const DBOptions& db_opts,
                         const ColumnFamilyOptions& cf_opts) const override;

  const HybridTableOptions& table_options() const { return options_; }

 private:
  HybridTableOptions options_;
};

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
