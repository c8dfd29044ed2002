// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// Every RocksDB version difference (9.10 to 11.8) HybridKV's code meets, keyed
// on ROCKSDB_MAJOR/MINOR; no other code tests a version.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "db/dbformat.h"
#include "options/cf_options.h"
#include "rocksdb/db.h"
#include "rocksdb/version.h"
#include "table/table_builder.h"

#define HYBRIDKV_ROCKSDB_AT_LEAST(major, minor) \
  (ROCKSDB_MAJOR > (major) ||                   \
   (ROCKSDB_MAJOR == (major) && ROCKSDB_MINOR >= (minor)))

// RocksDB 10 added defaulted TableReader::DumpTable `show_sequence_number_type`
// and VerifyChecksum `meta_blocks_only`; HybridTableReader's overrides forward.
#if HYBRIDKV_ROCKSDB_AT_LEAST(10, 0)
#define HYBRIDKV_DUMP_TABLE_EXTRA_PARAMS , bool show_sequence_number_type
#define HYBRIDKV_DUMP_TABLE_EXTRA_ARGS , show_sequence_number_type
#define HYBRIDKV_VERIFY_CHECKSUM_EXTRA_PARAMS , bool meta_blocks_only
#define HYBRIDKV_VERIFY_CHECKSUM_EXTRA_ARGS , meta_blocks_only
#define HYBRIDKV_VERIFY_CHECKSUM_META_BLOCKS_ONLY meta_blocks_only
#else
#define HYBRIDKV_DUMP_TABLE_EXTRA_PARAMS
#define HYBRIDKV_DUMP_TABLE_EXTRA_ARGS
#define HYBRIDKV_VERIFY_CHECKSUM_EXTRA_PARAMS
#define HYBRIDKV_VERIFY_CHECKSUM_EXTRA_ARGS
#define HYBRIDKV_VERIFY_CHECKSUM_META_BLOCKS_ONLY false
#endif

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

// Options to open one SST outside a DB (tools, seeding): no prefix
// extractor, no block protection. The result refers to its arguments.
inline TableReaderOptions StandaloneTableReaderOptions(
    const ImmutableOptions& ioptions,
    const std::shared_ptr<const SliceTransform>& no_prefix,
    const EnvOptions& env_options, const InternalKeyComparator& icmp) {
#if HYBRIDKV_ROCKSDB_AT_LEAST(10, 0)
  // 10.x added the compression manager; null means RocksDB's built-in one.
  return TableReaderOptions(ioptions, no_prefix,
                            /*_compression_manager=*/nullptr, env_options, icmp,
                            /*_block_protection_bytes_per_key=*/0);
#else
  return TableReaderOptions(ioptions, no_prefix, env_options, icmp,
                            /*_block_protection_bytes_per_key=*/0);
#endif
}

// `tbo` with `factories` as collectors. They sit behind a const pointer, so the
// copy is built field by field, and the fields differ between versions.
inline TableBuilderOptions CopyWithCollectors(
    const TableBuilderOptions& tbo,
    const InternalTblPropCollFactories* factories) {
  TableBuilderOptions copy(
      tbo.ioptions, tbo.moptions, tbo.read_options, tbo.write_options,
      tbo.internal_comparator, factories, tbo.compression_type,
      tbo.compression_opts, tbo.column_family_id, tbo.column_family_name,
      tbo.level_at_creation, tbo.newest_key_time, tbo.is_bottommost, tbo.reason,
      tbo.oldest_key_time, tbo.file_creation_time, tbo.db_id, tbo.db_session_id,
      tbo.target_file_size, tbo.cur_file_num,
      tbo.last_level_inclusive_max_seqno_threshold
#if HYBRIDKV_ROCKSDB_AT_LEAST(10, 0)
      ,
      tbo.embedded_blob_options
#endif
  );
#if !HYBRIDKV_ROCKSDB_AT_LEAST(10, 0)
  copy.skip_filters = tbo.skip_filters;  // removed in 10.x
#endif
  return copy;
}

// DB::Open and friends into DB**: 9.x takes it, 11.x std::unique_ptr<DB>* only.
template <typename Open>
Status OpenIntoRawPointer(DB** db, const Open& open) {
#if HYBRIDKV_ROCKSDB_AT_LEAST(10, 0)
  std::unique_ptr<DB> owned;
  Status s = open(&owned);
  *db = owned.release();
  return s;
#else
  return open(db);
#endif
}

inline Status OpenDB(const Options& options, const std::string& name, DB** db) {
  return OpenIntoRawPointer(
      db, [&](auto* out) { return DB::Open(options, name, out); });
}

inline Status OpenDB(const DBOptions& options, const std::string& name,
                     const std::vector<ColumnFamilyDescriptor>& families,
                     std::vector<ColumnFamilyHandle*>* handles, DB** db) {
  return OpenIntoRawPointer(db, [&](auto* out) {
    return DB::Open(options, name, families, handles, out);
  });
}

inline Status OpenSecondaryDB(const Options& options, const std::string& name,
                              const std::string& secondary_path, DB** db) {
  return OpenIntoRawPointer(db, [&](auto* out) {
    return DB::OpenAsSecondary(options, name, secondary_path, out);
  });
}

// Whether local compactions re-read each output and compare entry hashes:
// paranoid_file_checks, or on RocksDB 11 verify_output_flags with
// kVerifyIteration and kEnableForLocalCompaction
// (CompactionJob::VerifyOutputFiles), detected by the member's presence.
template <typename CfOptions>
auto VerifiesOutputFlags(const CfOptions& o, int)
    -> decltype(o.verify_output_flags, bool()) {
  using Flags = decltype(o.verify_output_flags);
  const Flags wanted =
      Flags::kVerifyIteration | Flags::kEnableForLocalCompaction;
  return (o.verify_output_flags & wanted) == wanted;
}
template <typename CfOptions>
bool VerifiesOutputFlags(const CfOptions&, long) {
  return false;
}
inline bool VerifiesCompactionOutputEntries(const ColumnFamilyOptions& o) {
  return o.paranoid_file_checks || VerifiesOutputFlags(o, 0);
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
