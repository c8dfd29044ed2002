// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "plugin/hybridkv/table/hybrid_table_factory.h"

#include <unordered_map>

#include "plugin/hybridkv/table/hybrid_table_builder.h"
#include "plugin/hybridkv/table/hybrid_table_reader.h"
#include "rocksdb/utilities/options_type.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

std::unordered_map<std::string, OptionTypeInfo> hybrid_table_type_info = {
    // Serialized as a nested object, `inner={id=BlockBasedTable;block_size=...}`, and compared
    // in full when RocksDB verifies a persisted OPTIONS file.
    {"inner", OptionTypeInfo::AsCustomSharedPtr<TableFactory>(
                  offsetof(struct HybridTableOptions, inner),
                  OptionVerificationType::kNormal, OptionTypeFlags::kNone)},
};

}  // namespace

HybridTableFactory::HybridTableFactory(HybridTableOptions options)
    : options_(std::move(options)) {
  if (options_.inner == nullptr) {
    options_.inner.reset(NewBlockBasedTableFactory());
  }
  RegisterOptions(&options_, &hybrid_table_type_info);
}

Status HybridTableFactory::PrepareOptions(const ConfigOptions& config_options) {
  if (options_.inner == nullptr) {
    return Status::InvalidArgument(
        "HybridTable: option 'inner' is empty. Omit it to wrap the default BlockBasedTable, or "
        "name a table factory, e.g. inner={id=BlockBasedTable;block_size=8192}.");
  }
  if (options_.inner->IsInstanceOf(kClassName())) {
    return Status::InvalidArgument(
        "HybridTable: 'inner' must not itself be a HybridTable; wrap BlockBasedTable instead.");
  }
  return TableFactory::PrepareOptions(config_options);
}

Status HybridTableFactory::ValidateOptions(
    const DBOptions& db_opts, const ColumnFamilyOptions& cf_opts) const {
  if (options_.inner == nullptr) {
    return Status::InvalidArgument("HybridTable: option 'inner' is empty.");
  }
  // Configurable::ValidateOptions also validates the inner factory, a registered option.
  return TableFactory::ValidateOptions(db_opts, cf_opts);
}

Status HybridTableFactory::NewTableReader(
    const ReadOptions& ro, const TableReaderOptions& table_reader_options,
    std::unique_ptr<RandomAccessFileReader>&& file, uint64_t file_size,
    std::unique_ptr<TableReader>* table_reader,
    bool prefetch_index_and_filter_in_cache) const {
  std::unique_ptr<TableReader> inner_reader;
  Status s = options_.inner->NewTableReader(
      ro, table_reader_options, std::move(file), file_size, &inner_reader,
      prefetch_index_and_filter_in_cache);
  if (s.ok()) {
    table_reader->reset(new HybridTableReader(std::move(inner_reader)));
  }
  return s;
}

TableBuilder* HybridTableFactory::NewTableBuilder(
    const TableBuilderOptions& table_builder_options,
    WritableFileWriter* file) const {
  return new HybridTableBuilder(
      options_.inner->NewTableBuilder(table_builder_options, file));
}

std::unique_ptr<TableFactory> HybridTableFactory::Clone() const {
  HybridTableOptions copy = options_;
  if (copy.inner != nullptr) {
    copy.inner = options_.inner->Clone();
  }
  return std::make_unique<HybridTableFactory>(std::move(copy));
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
