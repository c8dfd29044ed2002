// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// blob/medium/: the medium value file and what reads it: the file's writer
// and reader (this header), readers with readahead (medium_readahead.h), the
// block cache of medium blocks (medium_block_cache.h), and one open-file cache
// per DB (medium_file_cache.h).
//
// May depend on: blob/format/, blob/io/ and RocksDB (public and internal
// headers). Who keeps which file alive is blob/lifecycle/'s business. The
// file's format is blob/format/medium_file_format.h's.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "plugin/hybridkv/blob/format/medium_file_format.h"
#include "plugin/hybridkv/blob/format/medium_pointer.h"
#include "plugin/hybridkv/blob/io/read_batch.h"
#include "rocksdb/file_system.h"
#include "rocksdb/io_status.h"
#include "rocksdb/slice.h"
#include "rocksdb/status.h"

namespace ROCKSDB_NAMESPACE {

struct ImmutableOptions;
class RandomAccessFileReader;
class WritableFileWriter;

namespace hybridkv {

// The directory part of `path` ("." when it has none).
std::string DirName(const std::string& path);

// Makes the entries of `dir` durable (after a create or rename in it).
IOStatus SyncDirectory(const std::shared_ptr<FileSystem>& fs,
                       const std::string& dir, const IOOptions& io,
                       const DirFsyncOptions& options = DirFsyncOptions());

// Writes one medium file. Not thread-safe.
class MediumFileWriter {
 public:
  // Creates `path` through `fs` and writes the header. Every write uses `io`,
  // whose io_activity tells RocksDB's accounting whose I/O it is.
  static IOStatus Create(const std::shared_ptr<FileSystem>& fs,
                         const std::string& path,
                         const FileOptions& file_options,
                         std::unique_ptr<MediumFileWriter>* writer,
                         const IOOptions& io = IOOptions());
  ~MediumFileWriter();

  // Appends one record. Callers add records in key order.
  IOStatus Add(const Slice& user_key, const Slice& value,
               MediumRecordHandle* handle);

  struct SyncOptions {
    bool use_fsync = true;  // fsync, else fdatasync (Options::use_fsync)
    // A flush passes false: RocksDB's flush job fsyncs the SST's directory,
    // where the medium file lives, before it logs the version edit
    // (FlushJob::WriteLevel0Table, 9.10 through 11.8).
    bool sync_directory = true;
  };
  // Writes the footer, then syncs the file and its directory: the file is
  // durable before the SST that points into it can join a Version.
  IOStatus Finish(const SyncOptions& sync);
  IOStatus Finish() { return Finish(SyncOptions()); }

  // Closes and deletes the file (a failed or empty build).
  void Abandon();

  const std::string& path() const { return path_; }
  uint64_t num_records() const { return num_records_; }
  uint64_t value_bytes() const { return value_bytes_; }

 private:
  MediumFileWriter(const std::shared_ptr<FileSystem>& fs, std::string path,
                   std::unique_ptr<WritableFileWriter> file,
                   const IOOptions& io);
  IOStatus FlushBuffer();  // appends buffer_ to the file and empties it
  static constexpr size_t kAppendSize = 64 << 10;  // buffer_'s flush size

  std::shared_ptr<FileSystem> fs_;
  const IOOptions io_;
  std::string path_;
  std::unique_ptr<WritableFileWriter> file_;
  std::string buffer_;  // framed records not yet appended to file_
  uint64_t offset_ = 0;
  uint64_t num_records_ = 0;
  uint64_t value_bytes_ = 0;
  bool finished_ = false;
};

// The io_activity of the calling RocksDB thread's operation, for HybridKV's
// I/O outside table builders and readers (listeners, wrappers): RocksDB
// attributes I/O statistics by it, and debug builds check it.
Env::IOActivity CurrentIOActivity();

// Reads one medium file by record handle. Thread-safe.
class MediumFileReader {
 public:
  // Opens `path` and verifies its header and footer, reading with `io`. While
  // open, the file is held (HoldForReading): no other process punches it.
  static IOStatus Open(const std::shared_ptr<FileSystem>& fs,
                       const std::string& path, const FileOptions& file_options,
                       std::unique_ptr<MediumFileReader>* reader,
                       const IOOptions& io = IOOptions());
  ~MediumFileReader();

  // Corruption if `handle` lies outside the file's data region.
  IOStatus CheckHandle(const MediumRecordHandle& handle) const;

  // Decodes `record`, the whole record read from `offset`, for `user_key`;
  // Corruption names the file and offset.
  IOStatus DecodeRecord(uint64_t offset, const Slice& record,
                        const Slice& user_key, std::string* value) const;

  // Reads `[offset, offset + n)` into `*scratch` with one I/O.
  IOStatus ReadRange(const IOOptions& io_options, uint64_t offset, size_t n,
                     std::string* scratch, Slice* result) const;

  // Adds the read of `[offset, offset + n)` to `batch`; this reader must
  // outlive the batch's Wait.
  void ReadRangeInBatch(ReadBatch* batch, uint64_t offset, size_t n,
                        ReadBatch::Done done) const;

  const std::string& path() const { return path_; }
  uint64_t data_end() const { return data_end_; }
  uint64_t num_records() const { return num_records_; }

 private:
  MediumFileReader(std::string path,
                   std::unique_ptr<RandomAccessFileReader> file);

  std::string path_;
  std::unique_ptr<RandomAccessFileReader> file_;
  int hold_fd_ = -1;               // HoldForReading's, while open
  uint64_t data_end_ = 0;
  uint64_t num_records_ = 0;
};

// For the errors that find a HybridKV file missing.
const char* const kCopiedWithoutHybridKVFiles =
    "This DB was probably copied by a tool that does not know HybridKV's "
    "files (RocksDB's BackupEngine::CreateNewBackup, or Checkpoint on the DB* "
    "of DB::Open). Restore it from a backup made by hybridkv::CreateNewBackup "
    "with hybridkv::RestoreDBFromBackup, or copy it with Checkpoint on the "
    "handle of hybridkv::Open.";

const char* const kSecondaryMayHaveMissedIt =
    "(On a secondary instance, the primary may have deleted it since the last "
    "TryCatchUpWithPrimary: catch up and retry.)";

// The Corruption for medium file `number` of `dir` missing while `referrer`
// (an SST, or "an SST") points into it.
Status MissingMediumFile(const std::shared_ptr<FileSystem>& fs,
                         const std::string& dir, uint64_t number,
                         const std::string& referrer);

// Opens `<number>.medium` from the first of `dirs` that holds it: medium files
// live next to the SST that created them, in any of a column family's paths.
IOStatus OpenMediumFile(const std::shared_ptr<FileSystem>& fs,
                        const std::vector<std::string>& dirs, uint64_t number,
                        const FileOptions& file_options,
                        std::unique_ptr<MediumFileReader>* reader,
                        const IOOptions& io = IOOptions());

// Directories where a column family's medium files are looked for: its home
// (the first of its cf_paths, where flushes write them) first.
std::vector<std::string> MediumFileDirs(const std::string& home,
                                        const ImmutableOptions& ioptions);

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
