// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#pragma once

#include <memory>
#include <string>

#include "plugin/hybridkv/blob/format/medium_refs.h"
#include "plugin/hybridkv/blob/format/siphash.h"
#include "plugin/hybridkv/blob/io/rocksdb_compat.h"
#include "plugin/hybridkv/blob/lifecycle/db_state.h"
#include "plugin/hybridkv/blob/lifecycle/medium_lifecycle.h"
#include "plugin/hybridkv/blob/medium/medium_file.h"
#include "plugin/hybridkv/blob/medium/medium_readahead.h"
#include "plugin/hybridkv/include/hybridkv/hybridkv.h"
#include "plugin/hybridkv/table/compaction_pointer.h"
#include "plugin/hybridkv/table/compaction_scope.h"
#include "table/table_builder.h"

namespace ROCKSDB_NAMESPACE {

class BlockBasedTableFactory;

namespace hybridkv {

// Builds one HybridTable SST through the inner builder. Medium values go,
// - at flush and recovery: into `<sst number>.medium` in key order, the SST
//   storing a kTypeBlobIndex pointer;
// - in compactions above the merge level: as pointers (from compaction ones);
// - at or below it: back inline; elsewhere (SstFileWriter...): as they come.
// Forwards every virtual, defaulted ones too (GetTailSize, NeedCompact,
// SetSeqnoTimeTableProperties and, from RocksDB 10.9, EstimatedTailSize, for
// target_file_size_is_upper_bound).
class HybridTableBuilder : public TableBuilder {
 public:
  HybridTableBuilder(const HybridTableOptions& options,
                     const BlockBasedTableFactory& inner_factory,
                     const TableBuilderOptions& tbo, WritableFileWriter* file);
  ~HybridTableBuilder() override;

  // Fails the build with `reason`: nothing is added, and Finish returns it.
  void Refuse(const Status& reason) {
    if (status_.ok()) status_ = reason;
  }

  void Add(const Slice& key, const Slice& value) override;
  Status status() const override;
  IOStatus io_status() const override;
  Status Finish() override;
  void Abandon() override;
  uint64_t NumEntries() const override { return inner_->NumEntries(); }
  // Not empty once failed: RocksDB's flush abandons an empty builder and
  // reports success without asking its status, dropping the memtable.
  bool IsEmpty() const override { return status().ok() && inner_->IsEmpty(); }
  uint64_t FileSize() const override { return inner_->FileSize(); }
  uint64_t EstimatedFileSize() const override {
    return inner_->EstimatedFileSize();
  }
#if HYBRIDKV_ROCKSDB_AT_LEAST(10, 9)
  uint64_t EstimatedTailSize() const override {
    return inner_->EstimatedTailSize();
  }
#endif
  uint64_t GetTailSize() const override { return inner_->GetTailSize(); }
  bool NeedCompact() const override { return inner_->NeedCompact(); }
  TableProperties GetTableProperties() const override {
    return inner_->GetTableProperties();
  }
  std::string GetFileChecksum() const override {
    return inner_->GetFileChecksum();
  }
  const char* GetFileChecksumFuncName() const override {
    return inner_->GetFileChecksumFuncName();
  }
  void SetSeqnoTimeTableProperties(const SeqnoToTimeMapping& relevant_mapping,
                                   uint64_t oldest_ancestor_time) override {
    inner_->SetSeqnoTimeTableProperties(relevant_mapping, oldest_ancestor_time);
  }

 private:
  enum class Mode { kPassThrough, kExtract, kKeepPointers, kInline };

  // The mode for why RocksDB builds the table; a compaction also joins its
  // CompactionScope and notes its output level (for negative merge levels).
  Mode ChooseMode(const TableBuilderOptions& tbo);
  // Tells the partitioner the merge level now, logging a change.
  int ResolveMergeLevelNow(const TableBuilderOptions& tbo);
  // Compactions: refuses a min_blob_size at which BlobDB would take pointers.
  Status CheckBlobThreshold(const TableBuilderOptions& tbo);
  // kInline: the reader of the medium records this build writes back inline.
  void OpenMergeReader(const TableBuilderOptions& tbo);
  void AddRetyped(const Slice& key, ValueType type, const Slice& value);
  void ExtractMedium(const Slice& key, const Slice& mac_key,
                     const Slice& value);

  const HybridTableOptions options_;
  Mode mode_ = Mode::kPassThrough;
  // Holds the medium files and secret: the first cf_path, or for SstFileWriter
  // and friends the SST's directory.
  const std::string home_;
  const uint64_t file_number_;
  const size_t timestamp_size_;
  const std::shared_ptr<FileSystem> fs_;
  FileOptions medium_file_options_;
  MediumFileWriter::SyncOptions medium_sync_;
  Logger* const logger_;
  DbState* state_ = nullptr;  // the column family's; set first
  MediumFileTracker* tracker_ = nullptr;  // null for SstFileWriter and friends
  SipKey secret_;  // kExtract: keys the MACs of the pointers it writes
  Status status_;
  // Medium write errors, classified by RocksDB via io_status() like the SST's.
  IOStatus medium_io_status_;
  IOOptions write_io_;   // the medium file's writes
  IOOptions merge_io_;   // merge-level reads of medium files
  bool closed_ = false;  // the inner builder was finished or abandoned

  void NoteReference(const MediumPointer& pointer);  // into refs_

  // Before inner_, which uses them until destroyed: RocksDB's collectors plus
  // ours, which writes refs_ (the records this SST points to).
  MediumRefsRecorder refs_;
  InternalTblPropCollFactories collector_factories_;
  std::unique_ptr<TableBuilder> inner_;
  std::unique_ptr<MediumFileWriter> medium_;  // kExtract, on first value
  // Is `value` a compaction pointer? One from another DB fails the build.
  bool IsCompactionPointer(const Slice& value, CompactionPointer* pointer);

  // kInline; shared by the compaction's outputs, so counters are diffed.
  std::shared_ptr<MediumReadahead> merge_reader_;
  std::shared_ptr<CompactionScope> scope_;  // compactions only
  uint64_t merge_bytes_read_before_ = 0, merge_reads_before_ = 0;
  std::string key_buffer_;
  std::string value_buffer_;
  uint64_t small_values_ = 0, small_bytes_ = 0, large_values_ = 0;
  uint64_t kept_ = 0, inlined_ = 0, inlined_bytes_ = 0;
};

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
