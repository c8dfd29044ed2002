// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// table/: HybridTable, the TableFactory through which HybridKV places values by
// size, and HybridKVPartitioner, which keeps trivial moves from carrying
// pointers past the merge level.
//
// HybridTable wraps an inner factory (BlockBasedTable by default). Everything
// the inner format supports keeps working, because every TableReader,
// TableBuilder and iterator virtual is forwarded, including the ones RocksDB
// gives a default body.
//
// May depend on: blob/, compaction_filter/ (to validate wrappers),
// include/hybridkv, and RocksDB's public and internal headers (compiled in-tree
// with RocksDB's flags).
#pragma once

#include <memory>
#include <string>
#include <unordered_map>

#include "plugin/hybridkv/include/hybridkv/hybridkv.h"
#include "plugin/hybridkv/table/tail_estimate.h"
#include "rocksdb/table.h"
#include "rocksdb/utilities/options_type.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

class HybridTableFactory : public TableFactory {
 public:
  static const char* kClassName() { return kHybridTableId; }

  // A null `options.inner` means the default, a BlockBasedTable with default
  // options.
  explicit HybridTableFactory(
      HybridTableOptions options = HybridTableOptions());

  const char* Name() const override { return kClassName(); }

  using TableFactory::NewTableReader;
  Status NewTableReader(const ReadOptions& ro,
                        const TableReaderOptions& table_reader_options,
                        std::unique_ptr<RandomAccessFileReader>&& file,
                        uint64_t file_size,
                        std::unique_ptr<TableReader>* table_reader,
                        bool prefetch_index_and_filter_in_cache) const override;

  TableBuilder* NewTableBuilder(
      const TableBuilderOptions& table_builder_options,
      WritableFileWriter* file) const override;

  // Deep copy: the inner factory is cloned too, because SetOptions and
  // options-string changes mutate the clone. What the builders learned is
  // shared with the clone.
  std::unique_ptr<TableFactory> Clone() const override;

  bool IsDeleteRangeSupported() const override {
    return options_.inner->IsDeleteRangeSupported();
  }

  // Lets GetOptions<BlockBasedTableOptions>(), block cache properties and tools
  // that inject a block cache reach the wrapped factory.
  const Customizable* Inner() const override { return options_.inner.get(); }

  Status PrepareOptions(const ConfigOptions& config_options) override;
  Status ValidateOptions(const DBOptions& db_opts,
                         const ColumnFamilyOptions& cf_opts) const override;

 private:
  // What ValidateOptions checks of the companions and unsupported features,
  // on the options a flush or compaction builds with.
  Status CheckBuilderOptions(const TableBuilderOptions& tbo) const;
  // Registers, under the inner factory's own option names, entries that hand
  // the option to it: SetOptions({{"table_factory.block_size", ...}}), as
  // RocksDB users spell it, then reaches the wrapped BlockBasedTable. Never
  // serialized (the inner's options are, under `inner`), never compared.
  void ForwardInnerOptionNames();

  HybridTableOptions options_;
  std::unordered_map<std::string, OptionTypeInfo> inner_option_names_;
  // Learned from the tables this factory's builders finish.
  std::shared_ptr<TailEstimate> tail_estimate_ =
      std::make_shared<TailEstimate>();
};

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
