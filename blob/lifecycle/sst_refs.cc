// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "plugin/hybridkv/blob/lifecycle/sst_refs.h"

#include "db/dbformat.h"
#include "file/random_access_file_reader.h"
#include "options/cf_options.h"
#include "plugin/hybridkv/blob/format/medium_pointer.h"
#include "plugin/hybridkv/blob/io/rocksdb_compat.h"
#include "plugin/hybridkv/blob/medium/medium_file.h"
#include "rocksdb/table.h"
#include "table/internal_iterator.h"
#include "table/table_reader.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

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
  const TableReaderOptions tro =
      StandaloneTableReaderOptions(ioptions, no_prefix, env_options, icmp);
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
  MediumRefsRecorder recorder;
  uint64_t unknown_pointers = 0;
  Status s = ForEachRawEntry(
      fs, sst_path,
      [&recorder, &unknown_pointers](const Slice& key, const Slice& value) {
        if (ExtractValueType(key) != kTypeBlobIndex) return;
        MediumPointer p;
        if (PeekMediumPointer(value, &p)) {
          recorder.AddRecord(p.file_number, p.handle.offset, p.handle.size);
        } else if (HasMediumPointerMagic(value)) {
          unknown_pointers++;  // another pointer format version
        }
      });
  if (s.ok() && unknown_pointers != 0) {
    s = Status::NotSupported(
        "HybridKV: " + sst_path + " holds " + std::to_string(unknown_pointers) +
        " medium pointers of a format this build cannot read; a newer "
        "HybridKV wrote them. Open the DB with that version.");
  }
  *refs = std::move(*recorder.refs());
  for (auto& entry : *refs) {
    NormalizeRuns(&entry.second.runs, kMediumRunMergeGap);
  }
  return s;
}

Status ReadMediumRefs(const std::shared_ptr<FileSystem>& fs,
                      const std::string& sst_path, const TableProperties& props,
                      MediumRefs* refs) {
  bool known = false;
  if (GetMediumRefs(props, refs, &known).ok() && known) {
    return Status::OK();
  }
  return ScanMediumRefs(fs, sst_path, refs);
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
