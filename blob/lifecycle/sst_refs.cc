// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "plugin/hybridkv/blob/lifecycle/sst_refs.h"

#include "db/dbformat.h"
#include "file/filename.h"
#include "file/random_access_file_reader.h"
#include "options/cf_options.h"
#include "plugin/hybridkv/blob/format/medium_pointer.h"
#include "plugin/hybridkv/blob/io/rocksdb_compat.h"
#include "plugin/hybridkv/blob/medium/medium_file.h"
#include "rocksdb/table.h"
#include "table/format.h"
#include "table/internal_iterator.h"
#include "table/meta_blocks.h"
#include "table/table_reader.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

namespace {

// Opens the SST at `path` for reading, and sets `*size`.
Status OpenSst(const std::shared_ptr<FileSystem>& fs, const std::string& path,
               std::unique_ptr<RandomAccessFileReader>* file, uint64_t* size) {
  Status s = fs->GetFileSize(path, IOOptions(), size, nullptr);
  return s.ok() ? RandomAccessFileReader::Create(fs, path, FileOptions(), file,
                                                 nullptr)
                : s;
}

}  // namespace

Status ForEachRawEntry(const std::shared_ptr<FileSystem>& fs,
                       const std::string& sst_path,
                       const std::function<void(const Slice& internal_key,
                                                const Slice& value)>& visit) {
  uint64_t size = 0;
  std::unique_ptr<RandomAccessFileReader> file;
  Status s = OpenSst(fs, sst_path, &file, &size);
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

Status ReadSstProperties(const std::shared_ptr<FileSystem>& fs,
                         const std::string& path,
                         std::unique_ptr<TableProperties>* props) {
  uint64_t size = 0;
  std::unique_ptr<RandomAccessFileReader> file;
  Status s = OpenSst(fs, path, &file, &size);
  if (!s.ok()) {
    return s;
  }
  Options options;
  options.env = Env::Default();
  ImmutableOptions ioptions(options);
  ReadOptions read_options;
  read_options.io_activity = CurrentIOActivity();
  // The inner table format is not known here: try each of RocksDB's.
  for (uint64_t magic :
       {kBlockBasedTableMagicNumber, kPlainTableMagicNumber,
        kLegacyPlainTableMagicNumber, kCuckooTableMagicNumber}) {
    s = ReadTableProperties(file.get(), size, magic, ioptions, read_options,
                            props);
    if (!s.IsCorruption()) break;  // a wrong magic number is Corruption
  }
  return s;
}

Status ReadSstMediumRefs(const std::shared_ptr<FileSystem>& fs,
                         const std::string& path, MediumRefs* refs) {
  std::unique_ptr<TableProperties> props;
  Status s = ReadSstProperties(fs, path, &props);
  return s.ok() ? ReadMediumRefs(fs, path, *props, refs) : s;
}

uint64_t SstNumberOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  uint64_t number = 0;
  FileType type;
  return ParseFileName(
             slash == std::string::npos ? path : path.substr(slash + 1),
             &number, &type) &&
                 type == kTableFile
             ? number
             : 0;
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
