// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// table/: HybridTable, the TableFactory placing values by size, and
// HybridKVPartitioner, keeping trivial moves from carrying pointers past the
// merge level. HybridTable derives from BlockBasedTableFactory, takes its
// options (`table_factory.block_size=...`) and wraps its reader, builder and
// iterators, forwarding every virtual, so RocksDB gives it what it gives only
// BlockBasedTable: ttl and periodic_compaction_seconds (defaults and
// settings), FIFO's TTL, and the file-metadata cache charge.
// May depend on: blob/, compaction_filter/ (to validate wrappers),
// include/hybridkv, and RocksDB's public and internal headers (compiled
// in-tree with RocksDB's flags).
#pragma once

#include <memory>
#include <string>

#include "plugin/hybridkv/include/hybridkv/hybridkv.h"
#include "rocksdb/table.h"
#include "table/block_based/block_based_table_factory.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

class HybridTableFactory : public BlockBasedTableFactory {
 public:
  static const char* kClassName() { return kHybridTableId; }

  // Takes `options.inner`'s BlockBasedTable options (null: defaults); other
  // formats fail PrepareOptions and ValidateOptions.
  explicit HybridTableFactory(
      HybridTableOptions options = HybridTableOptions());

  const char* Name() const override { return kClassName(); }
  // For RocksDB's checks by name and tools casting to BlockBasedTableFactory.
  bool IsInstanceOf(const std::string& name) const override {
    return name == kBlockBasedTableName() ||
           BlockBasedTableFactory::IsInstanceOf(name);
  }

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

  // SetOptions mutates the clone.
  std::unique_ptr<TableFactory> Clone() const override {
    return std::make_unique<HybridTableFactory>(*this);
  }

  Status PrepareOptions(const ConfigOptions& config_options) override;
  Status ValidateOptions(const DBOptions& db_opts,
                         const ColumnFamilyOptions& cf_opts) const override;

 protected:
  // Takes `inner={id=BlockBasedTable;...}`, as older OPTIONS files spell it.
  Status ParseOption(const ConfigOptions& config_options,
                     const OptionTypeInfo& opt_info,
                     const std::string& opt_name, const std::string& opt_value,
                     void* opt_ptr) override;

 private:
  // ValidateOptions' companion and feature checks, on a build's options.
  Status CheckBuilderOptions(const TableBuilderOptions& tbo) const;

  HybridTableOptions options_;
  std::string unsupported_inner_;  // a non-BlockBasedTable inner; refused
};

// Whether `db_opts` lists HybridKVListener.
bool HasHybridKVListener(const DBOptions& db_opts);

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
