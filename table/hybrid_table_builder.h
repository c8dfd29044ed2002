// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#pragma once

#include <memory>

#include "table/table_builder.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

// Builds one HybridTable SST through the inner format's builder. Every virtual is forwarded,
// including those TableBuilder gives a default body: GetTailSize sets the file's tail size,
// NeedCompact marks it for compaction, SetSeqnoTimeTableProperties sets its creation time.
class HybridTableBuilder : public TableBuilder {
 public:
  explicit HybridTableBuilder(TableBuilder* inner) : inner_(inner) {}

  void Add(const Slice& key, const Slice& value) override { inner_->Add(key, value); }
  Status status() const override { return inner_->status(); }
  IOStatus io_status() const override { return inner_->io_status(); }
  Status Finish() override { return inner_->Finish(); }
  void Abandon() override { inner_->Abandon(); }
  uint64_t NumEntries() const override { return inner_->NumEntries(); }
  bool IsEmpty() const override { return inner_->IsEmpty(); }
  uint64_t FileSize() const override { return inner_->FileSize(); }
  uint64_t EstimatedFileSize() const override { return inner_->EstimatedFileSize(); }
  uint64_t GetTailSize() const override { return inner_->GetTailSize(); }
  bool NeedCompact() const override { return inner_->NeedCompact(); }
  TableProperties GetTableProperties() const override {
    return inner_->GetTableProperties();
  }
  std::string GetFileChecksum() const override { return inner_->GetFileChecksum(); }
  const char* GetFileChecksumFuncName() const override {
    return inner_->GetFileChecksumFuncName();
  }
  void SetSeqnoTimeTableProperties(const SeqnoToTimeMapping& relevant_mapping,
                                   uint64_t oldest_ancestor_time) override {
    inner_->SetSeqnoTimeTableProperties(relevant_mapping, oldest_ancestor_time);
  }

 private:
  std::unique_ptr<TableBuilder> inner_;
};

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
