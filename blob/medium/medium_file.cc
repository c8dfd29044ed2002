// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "plugin/hybridkv/blob/medium/medium_file.h"

#include <algorithm>

#include "file/filename.h"
#include "file/random_access_file_reader.h"
#include "file/writable_file_writer.h"
#include "monitoring/thread_status_util.h"
#include "options/cf_options.h"
#include "plugin/hybridkv/blob/lifecycle/hole_punch.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

IOStatus Corrupt(const std::string& path, uint64_t offset,
                 const std::string& what) {
  return IOStatus::Corruption("HybridKV: medium file " + path + " at offset " +
                              std::to_string(offset) + ": " + what + " " +
                              kSecondaryMayHaveMissedIt);
}

}  // namespace

std::string DirName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

IOStatus SyncDirectory(const std::shared_ptr<FileSystem>& fs,
                       const std::string& dir, const IOOptions& io,
                       const DirFsyncOptions& options) {
  std::unique_ptr<FSDirectory> d;
  IOStatus s = fs->NewDirectory(dir, io, &d, nullptr);
  if (s.ok()) s = d->FsyncWithDirOptions(io, nullptr, options);
  if (s.ok()) s = d->Close(io, nullptr);
  return s;
}

MediumFileWriter::MediumFileWriter(const std::shared_ptr<FileSystem>& fs,
                                   std::string path,
                                   std::unique_ptr<WritableFileWriter> file,
                                   const IOOptions& io)
    : fs_(fs), io_(io), path_(std::move(path)), file_(std::move(file)) {}

MediumFileWriter::~MediumFileWriter() {
  if (file_ != nullptr && !finished_) {
    Abandon();
  }
}

IOStatus MediumFileWriter::Create(const std::shared_ptr<FileSystem>& fs,
                                  const std::string& path,
                                  const FileOptions& file_options,
                                  std::unique_ptr<MediumFileWriter>* writer,
                                  const IOOptions& io) {
  std::unique_ptr<WritableFileWriter> file;
  IOStatus s =
      WritableFileWriter::Create(fs, path, file_options, &file, nullptr);
  if (!s.ok()) {
    return s;
  }
  std::unique_ptr<MediumFileWriter> w(
      new MediumFileWriter(fs, path, std::move(file), io));
  char header[MediumFileHeader::kEncodedLength];
  MediumFileHeader().EncodeTo(header);
  w->buffer_.reserve(kAppendSize + 4096);  // an append and one more record
  w->buffer_.append(header, sizeof(header));
  w->offset_ = sizeof(header);
  *writer = std::move(w);
  return s;
}

IOStatus MediumFileWriter::Add(const Slice& user_key, const Slice& value,
                               MediumRecordHandle* handle) {
  // Framed in place in `buffer_`, which goes to the file in large appends:
  // WritableFileWriter::Append costs too much per record.
  const size_t start = buffer_.size();
  AppendMediumRecord(user_key, value, &buffer_);
  const size_t size = buffer_.size() - start;
  handle->offset = offset_;
  handle->size = static_cast<uint32_t>(size);
  offset_ += size;
  num_records_++;
  value_bytes_ += value.size();
  return buffer_.size() >= kAppendSize ? FlushBuffer() : IOStatus::OK();
}

IOStatus MediumFileWriter::FlushBuffer() {
  IOStatus s = file_->Append(io_, buffer_);
  buffer_.clear();
  return s;
}

IOStatus MediumFileWriter::Finish(const SyncOptions& sync) {
  MediumFileFooter f;
  f.record_count = num_records_;
  f.data_end = offset_;
  char footer[MediumFileFooter::kEncodedLength];
  f.EncodeTo(footer);
  const IOOptions& io = io_;
  buffer_.append(footer, sizeof(footer));
  IOStatus s = FlushBuffer();
  if (s.ok()) s = file_->Sync(io, sync.use_fsync);
  if (s.ok()) s = file_->Close(io);
  if (s.ok()) offset_ += sizeof(footer);
  if (s.ok() && sync.sync_directory) {
    s = SyncDirectory(fs_, DirName(path_), io, DirFsyncOptions(path_));
  }
  if (s.ok()) {
    finished_ = true;
    file_.reset();
  }
  return s;
}

void MediumFileWriter::Abandon() {
  if (file_ != nullptr) {
    file_->Close(io_).PermitUncheckedError();
    file_.reset();
  }
  fs_->DeleteFile(path_, io_, nullptr).PermitUncheckedError();
  finished_ = true;
}

Env::IOActivity CurrentIOActivity() {
  switch (ThreadStatusUtil::GetThreadOperation()) {
    case ThreadStatus::OP_FLUSH:
      return Env::IOActivity::kFlush;
    case ThreadStatus::OP_COMPACTION:
      return Env::IOActivity::kCompaction;
    case ThreadStatus::OP_DBOPEN:
      return Env::IOActivity::kDBOpen;
    case ThreadStatus::OP_GET:
      return Env::IOActivity::kGet;
    case ThreadStatus::OP_MULTIGET:
      return Env::IOActivity::kMultiGet;
    case ThreadStatus::OP_DBITERATOR:
      return Env::IOActivity::kDBIterator;
    case ThreadStatus::OP_VERIFY_DB_CHECKSUM:
      return Env::IOActivity::kVerifyDBChecksum;
    default:
      return Env::IOActivity::kUnknown;
  }
}

MediumFileReader::MediumFileReader(std::string path,
                                   std::unique_ptr<RandomAccessFileReader> file)
    : path_(std::move(path)), file_(std::move(file)) {}

MediumFileReader::~MediumFileReader() { ReleaseHold(hold_fd_); }

IOStatus MediumFileReader::Open(const std::shared_ptr<FileSystem>& fs,
                                const std::string& path,
                                const FileOptions& file_options,
                                std::unique_ptr<MediumFileReader>* reader,
                                const IOOptions& io) {
  uint64_t size = 0;
  IOStatus s = fs->GetFileSize(path, io, &size, nullptr);
  if (!s.ok()) {
    return s;
  }
  if (size <
      MediumFileHeader::kEncodedLength + MediumFileFooter::kEncodedLength) {
    return Corrupt(path, 0,
                   "file is " + std::to_string(size) +
                       " bytes, shorter than header and footer");
  }
  // file_options.rate_limiter is the DB's, charged as for SST reads.
  std::unique_ptr<FSRandomAccessFile> raw;
  s = fs->NewRandomAccessFile(path, file_options, &raw, nullptr);
  if (!s.ok()) {
    return s;
  }
  auto file = std::make_unique<RandomAccessFileReader>(
      std::move(raw), path, /*clock=*/nullptr, /*io_tracer=*/nullptr,
      /*stats=*/nullptr, Histograms::HISTOGRAM_ENUM_MAX,
      /*file_read_hist=*/nullptr, file_options.rate_limiter);
  std::unique_ptr<MediumFileReader> r(
      new MediumFileReader(path, std::move(file)));
  // Held before the header and footer are read (a punch before the hold fails
  // their checks or is harmless), whatever this reader's file system: the
  // writer's may punch where it does not (a secondary's primary punches
  // through POSIX). A path naming no local file has nothing to hold or punch.
  r->hold_fd_ = HoldForReading(path);
  char header_buf[MediumFileHeader::kEncodedLength];
  char footer_buf[MediumFileFooter::kEncodedLength];
  Slice header, footer;
  s = r->file_->Read(io, 0, sizeof(header_buf), &header, header_buf, nullptr);
  if (s.ok()) {
    s = r->file_->Read(io, size - sizeof(footer_buf), sizeof(footer_buf),
                       &footer, footer_buf, nullptr);
  }
  if (!s.ok()) {
    return s;
  }
  MediumFileHeader h;
  Status d = header.size() == sizeof(header_buf)
                 ? h.DecodeFrom(header)
                 : Status::Corruption("short header");
  if (d.IsNotSupported()) {
    return IOStatus::NotSupported("HybridKV: medium file " + path + ": " +
                                  d.getState());
  }
  if (!d.ok()) {
    return Corrupt(path, 0, "bad header (not a medium file, or damaged)");
  }
  const uint64_t footer_offset = size - sizeof(footer_buf);
  MediumFileFooter f;
  if (footer.size() != sizeof(footer_buf) || !f.DecodeFrom(footer).ok() ||
      f.data_end != footer_offset) {
    return Corrupt(path, footer_offset,
                   "bad footer (truncated or damaged file)");
  }
  r->num_records_ = f.record_count;
  r->data_end_ = f.data_end;
  *reader = std::move(r);
  return s;
}

IOStatus MediumFileReader::CheckHandle(const MediumRecordHandle& handle) const {
  if (handle.offset < MediumFileHeader::kEncodedLength ||
      handle.offset + handle.size > data_end_) {
    return Corrupt(path_, handle.offset,
                   "record of " + std::to_string(handle.size) +
                       " bytes lies outside the data region");
  }
  return IOStatus::OK();
}

IOStatus MediumFileReader::DecodeRecord(uint64_t offset, const Slice& record,
                                        const Slice& user_key,
                                        std::string* value) const {
  Slice v;
  Status d = DecodeMediumRecord(record, user_key, &v);
  if (!d.ok()) {
    return Corrupt(path_, offset, d.getState());
  }
  value->assign(v.data(), v.size());
  return IOStatus::OK();
}

void MediumFileReader::ReadRangeInBatch(ReadBatch* batch, uint64_t offset,
                                        size_t n, ReadBatch::Done done) const {
  batch->Add(file_.get(), offset, n, std::move(done));
}

IOStatus MediumFileReader::ReadRange(const IOOptions& io_options,
                                     uint64_t offset, size_t n,
                                     std::string* scratch,
                                     Slice* result) const {
  scratch->resize(n);
  IOStatus s =
      file_->Read(io_options, offset, n, result, &(*scratch)[0], nullptr);
  if (s.ok() && result->size() != n) {
    return Corrupt(path_, offset,
                   "short read of " + std::to_string(result->size()) +
                       " bytes, expected " + std::to_string(n));
  }
  return s;
}

IOStatus OpenMediumFile(const std::shared_ptr<FileSystem>& fs,
                        const std::vector<std::string>& dirs, uint64_t number,
                        const FileOptions& file_options,
                        std::unique_ptr<MediumFileReader>* reader,
                        const IOOptions& io) {
  for (const std::string& dir : dirs) {
    const std::string path = MediumFileName(dir, number);
    if (fs->FileExists(path, io, nullptr).ok()) {
      return MediumFileReader::Open(fs, path, file_options, reader, io);
    }
  }
  const Status missing =
      MissingMediumFile(fs, dirs.empty() ? "." : dirs[0], number, "an SST");
  return IOStatus::Corruption(std::string(missing.getState()) + " " +
                              kSecondaryMayHaveMissedIt);
}

Status MissingMediumFile(const std::shared_ptr<FileSystem>& fs,
                         const std::string& dir, uint64_t number,
                         const std::string& referrer) {
  std::string how = kCopiedWithoutHybridKVFiles;
  const std::string alias = BlobFileName(dir, number);
  if (fs->FileExists(alias, IOOptions(), nullptr).ok()) {
    how = "The directory holds " + alias +
          ": the DB was restored by RocksDB's RestoreDBFromBackup from a "
          "backup made by hybridkv::CreateNewBackup. Restore it again with "
          "hybridkv::RestoreDBFromBackup, which puts medium files back under "
          "their names.";
  }
  return Status::Corruption(
      "HybridKV: medium file " + MediumFileName(dir, number) +
      " is missing, but " + referrer + " points into it. " + how +
      " (paranoid_checks=false opens the DB anyway; reads of the values "
      "stored there then fail.)");
}

std::vector<std::string> MediumFileDirs(const std::string& home,
                                        const ImmutableOptions& ioptions) {
  std::vector<std::string> dirs{home};
  for (const auto* paths : {&ioptions.cf_paths, &ioptions.db_paths}) {
    for (const DbPath& p : *paths) {
      if (std::find(dirs.begin(), dirs.end(), p.path) == dirs.end()) {
        dirs.push_back(p.path);
      }
    }
  }
  return dirs;
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
