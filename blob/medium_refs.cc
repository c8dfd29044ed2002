// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "plugin/hybridkv/blob/medium_refs.h"

#include "db/dbformat.h"
#include "file/random_access_file_reader.h"
#include "options/cf_options.h"
#include "plugin/hybridkv/blob/medium_file.h"
#include "plugin/hybridkv/blob/medium_pointer.h"
#include "rocksdb/table.h"
#include "table/internal_iterator.h"
#include "table/table_builder.h"
#include "table/table_reader.h"
#include "util/coding.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

constexpr uint32_t kRefsVersion = 1;

class MediumRefsCollector : public InternalTblPropColl {
 public:
  Status InternalAdd(const Slice& key, const Slice& value,
                     uint64_t /*file_size*/) override {
    // Only our builder writes kTypeBlobIndex entries with the pointer tag;
    // BlobDB's own blob indexes have type bytes below 3.
    if (ExtractValueType(key) == kTypeBlobIndex && MayBeMediumPointer(value)) {
      MediumPointer p;
      if (PeekMediumPointer(value, &p)) {
        MediumFileRef& ref = refs_[p.file_number];
        ref.pointers++;
        ref.record_bytes += p.handle.size;
      }
    }
    return Status::OK();
  }
  void BlockAdd(uint64_t, uint64_t, uint64_t) override {}
  Status Finish(UserCollectedProperties* properties) override {
    // Always written, even empty: its absence marks SSTs built without
    // HybridKV.
    std::string encoded;
    PutVarint32(&encoded, kRefsVersion);
    PutVarint32(&encoded, static_cast<uint32_t>(refs_.size()));
    for (const auto& [number, ref] : refs_) {
      PutVarint64(&encoded, number);
      PutVarint64(&encoded, ref.pointers);
      PutVarint64(&encoded, ref.record_bytes);
    }
    properties->emplace(kMediumRefsProperty, std::move(encoded));
    return Status::OK();
  }
  const char* Name() const override { return "HybridKVMediumRefsCollector"; }
  UserCollectedProperties GetReadableProperties() const override {
    std::string text;
    for (const auto& [number, ref] : refs_) {
      if (!text.empty()) text += " ";
      text += std::to_string(number) + ":" + std::to_string(ref.pointers) +
              "/" + std::to_string(ref.record_bytes);
    }
    return {{"hybridkv.medium.refs.readable", text}};
  }

 private:
  MediumRefs refs_;
};

}  // namespace

InternalTblPropColl* MediumRefsCollectorFactory::CreateInternalTblPropColl(
    uint32_t, int, int, SequenceNumber) {
  return new MediumRefsCollector();
}

Status GetMediumRefs(const TableProperties& props, MediumRefs* refs,
                     bool* known) {
  refs->clear();
  auto it = props.user_collected_properties.find(kMediumRefsProperty);
  *known = it != props.user_collected_properties.end();
  if (!*known) {
    return Status::OK();
  }
  Slice in(it->second);
  uint32_t version, count;
  if (!GetVarint32(&in, &version) || version != kRefsVersion ||
      !GetVarint32(&in, &count)) {
    return Status::Corruption("bad or unknown-version property " +
                              std::string(kMediumRefsProperty));
  }
  for (uint32_t i = 0; i < count; ++i) {
    uint64_t number;
    MediumFileRef ref;
    if (!GetVarint64(&in, &number) || !GetVarint64(&in, &ref.pointers) ||
        !GetVarint64(&in, &ref.record_bytes)) {
      return Status::Corruption("truncated property " +
                                std::string(kMediumRefsProperty));
    }
    (*refs)[number] = ref;
  }
  return Status::OK();
}

Status ForEachRawEntry(const std::shared_ptr<FileSystem>& fs,
                       const std::string& sst_path,
                       const std::function<void(const Slice& internal_key,
                                                const Slice& value)>& visit) {
  uint64_t size = 0;
  Status s = fs->GetFileSize(sst_path, IOOptions(), &size, nullptr);
  std::unique_ptr<RandomAccessFileReader> file;
  if (s.ok()) {
    s = RandomAccessFileReader::Create(fs, sst_path, FileOptions(), &file,
                                       nullptr);
  }
  if (!s.ok()) {
    return s;
  }
  // The reader keeps references to these options, and the iterator to its
  // ReadOptions: all of them outlive both.
  Options options;
  ImmutableOptions ioptions(options);
  EnvOptions env_options;
  InternalKeyComparator icmp(BytewiseComparator());
  std::shared_ptr<const SliceTransform> no_prefix;
  TableReaderOptions tro(ioptions, no_prefix, env_options, icmp,
                         /*block_protection_bytes_per_key=*/0);
  std::unique_ptr<TableReader> reader;
  std::shared_ptr<TableFactory> bbt(NewBlockBasedTableFactory());
  s = bbt->NewTableReader(tro, std::move(file), size, &reader);
  if (!s.ok()) {
    return s;
  }
  ReadOptions read_options;
  read_options.io_activity = CurrentIOActivity();
  std::unique_ptr<InternalIterator> it(
      reader->NewIterator(read_options, nullptr, nullptr, /*skip_filters=*/true,
                          TableReaderCaller::kCompaction));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    visit(it->key(), it->value());
  }
  return it->status();
}

Status ScanMediumRefs(const std::shared_ptr<FileSystem>& fs,
                      const std::string& sst_path, MediumRefs* refs) {
  refs->clear();
  return ForEachRawEntry(fs, sst_path,
                         [refs](const Slice& key, const Slice& value) {
                           MediumPointer p;
                           if (ExtractValueType(key) == kTypeBlobIndex &&
                               PeekMediumPointer(value, &p)) {
                             MediumFileRef& ref = (*refs)[p.file_number];
                             ref.pointers++;
                             ref.record_bytes += p.handle.size;
                           }
                         });
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
