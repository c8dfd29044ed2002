// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// plugin/: how RocksDB finds HybridKV. hybridkv.mk and CMakeLists.txt build
// it in-tree; the registrar below adds its components to every ObjectRegistry.
// May depend on: every other folder of HybridKV, and RocksDB.
#include "plugin/hybridkv/compaction_filter/wrappers.h"
#include "plugin/hybridkv/include/hybridkv/hybridkv.h"
#include "plugin/hybridkv/plugin/hybridkv_listener.h"
#include "plugin/hybridkv/table/hybrid_table_factory.h"
#include "plugin/hybridkv/table/hybridkv_partitioner.h"
#include "rocksdb/utilities/object_registry.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

std::shared_ptr<TableFactory> NewHybridTableFactory(
    const HybridTableOptions& options) {
  return std::make_shared<HybridTableFactory>(options);
}

std::shared_ptr<TableFactory> NewHybridTableFactory(
    std::shared_ptr<TableFactory> inner) {
  HybridTableOptions options;
  options.inner = std::move(inner);
  return NewHybridTableFactory(options);
}

Status ConfigureOptions(Options* options, const HybridOptions& hybrid) {
  Options configured = *options;
  HybridTableOptions table = hybrid.table;
  table.blob_garbage_collection_min_garbage_ratio =
      hybrid.enable_blob_garbage_collection
          ? hybrid.blob_garbage_collection_min_garbage_ratio
          : 0;
  configured.table_factory = NewHybridTableFactory(table);
  configured.sst_partitioner_factory =
      std::make_shared<HybridKVPartitionerFactory>();
  if (configured.merge_operator != nullptr &&
      !configured.merge_operator->IsInstanceOf(
          HybridKVMergeOperator::kClassName())) {
    configured.merge_operator =
        std::make_shared<HybridKVMergeOperator>(configured.merge_operator);
  }
  // A compaction filter takes precedence over a factory.
  if (configured.compaction_filter != nullptr) {
    configured.compaction_filter_factory =
        std::make_shared<HybridKVCompactionFilterFactory>(
            NewSharedCompactionFilterFactory(configured.compaction_filter));
    configured.compaction_filter = nullptr;
  } else if (configured.compaction_filter_factory != nullptr &&
             !configured.compaction_filter_factory->IsInstanceOf(
                 HybridKVCompactionFilterFactory::kClassName())) {
    configured.compaction_filter_factory =
        std::make_shared<HybridKVCompactionFilterFactory>(
            configured.compaction_filter_factory);
  }
  if (!HasHybridKVListener(configured)) {
    configured.listeners.push_back(std::make_shared<HybridKVListener>());
  }
  configured.enable_blob_files = hybrid.enable_blob_files;
  configured.min_blob_size = uint64_t{hybrid.table.medium_max_value_size} + 1;
  // Under the garbage policy GC starts off; the listener turns it on.
  configured.enable_blob_garbage_collection =
      hybrid.enable_blob_garbage_collection &&
      table.blob_garbage_collection_min_garbage_ratio == 0;
  configured.blob_garbage_collection_age_cutoff =
      hybrid.blob_garbage_collection_age_cutoff;
  configured.blob_compaction_readahead_size =
      hybrid.blob_compaction_readahead_size;
  Status s = configured.table_factory->ValidateOptions(
      DBOptions(configured), ColumnFamilyOptions(configured));
  if (s.ok()) {
    *options = std::move(configured);
  }
  return s;
}

namespace {

// Adds `T`, default-constructed, as the `Base` named T::kClassName().
template <typename Base, typename T>
void AddFactory(ObjectLibrary& library) {
  library.AddFactory<Base>(T::kClassName(), [](const std::string& /*uri*/,
                                               std::unique_ptr<Base>* guard,
                                               std::string* /*errmsg*/) {
    guard->reset(new T());
    return guard->get();
  });
}

int Register(ObjectLibrary& library) {
  AddFactory<TableFactory, HybridTableFactory>(library);
  AddFactory<SstPartitionerFactory, HybridKVPartitionerFactory>(library);
  AddFactory<EventListener, HybridKVListener>(library);
  AddFactory<CompactionFilterFactory, HybridKVCompactionFilterFactory>(library);
  AddFactory<MergeOperator, HybridKVMergeOperator>(library);
  size_t num_types;
  return static_cast<int>(library.GetFactoryCount(&num_types));
}

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE

// Called for every ObjectRegistry RocksDB creates (ROCKSDB_PLUGIN_BUILTINS).
extern "C" int hybridkv_reg(ROCKSDB_NAMESPACE::ObjectLibrary& library,
                            const std::string& /*arg*/) {
  return ROCKSDB_NAMESPACE::hybridkv::Register(library);
}
