# RocksDB in-tree plugin description, read by RocksDB's Makefile and (by regex) its CMakeLists.txt.
# Paths are relative to the HybridKV repository root, which the build stages as
# <rocksdb>/plugin/hybridkv/ (see scripts/build.sh). Keep the spaces around '='.
hybridkv_SOURCES = plugin/hybridkv_registrar.cc plugin/statistics.cc plugin/admin.cc plugin/live_files.cc plugin/hybrid_db.cc plugin/backup.cc plugin/hybridkv_listener.cc table/hybrid_table_factory.cc table/hybrid_table_reader.cc table/hybrid_table_builder.cc table/hybrid_iterator.cc table/compaction_scope.cc table/tail_estimate.cc table/scan_prefetcher.cc blob/db_state.cc blob/medium_file_cache.cc blob/medium_block_cache.cc blob/medium_refs.cc blob/medium_lifecycle.cc blob/hole_punch.cc blob/blob_cache_warmer.cc blob/blob_gc_policy.cc blob/async_read_batch.cc blob/pointer_resolver.cc compaction_filter/wrappers.cc table/hybridkv_partitioner.cc blob/medium_file.cc blob/medium_pointer.cc blob/medium_readahead.cc blob/db_secret.cc blob/siphash.cc blob/record_crc.cc
hybridkv_HEADERS = include/hybridkv/hybridkv.h
hybridkv_FUNC = hybridkv_reg
