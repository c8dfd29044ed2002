// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "plugin/hybridkv/blob/medium_file.h"
#include "plugin/hybridkv/blob/medium_pointer.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

// Opens `<number>.medium` from the first of `dirs` that holds it. Medium files live next to
// the SST that created them, which may be any of a column family's paths.
IOStatus OpenMediumFile(const std::shared_ptr<FileSystem>& fs,
                        const std::vector<std::string>& dirs, uint64_t number,
                        const FileOptions& file_options,
                        std::unique_ptr<MediumFileReader>* reader);

// Resolves pointers for a compaction that writes medium values back inline. Pointers arrive
// in key order, and each medium file holds its records in key order, so within one file the
// requested offsets increase: each file is read sequentially in chunks and each region is
// fetched once (Parallax's "sorted segments"). A file's chunk starts at 64 KiB and doubles,
// up to `max_readahead`, while reads stay sequential: an output SST that needs only a slice
// of a medium file does not pay for a whole megabyte. Not thread-safe; one per compaction
// output.
class MediumMergeReader {
 public:
  MediumMergeReader(std::shared_ptr<FileSystem> fs, std::vector<std::string> dirs,
                    FileOptions file_options, size_t max_readahead = 1 << 20);

  // Sets `*value` to the value `pointer` refers to, after checking the record's crc and
  // that it belongs to `user_key`.
  Status Read(const MediumPointer& pointer, const Slice& user_key, std::string* value);

  uint64_t bytes_read() const { return bytes_read_; }
  uint64_t reads_issued() const { return reads_issued_; }

 private:
  struct Cursor {
    std::unique_ptr<MediumFileReader> reader;
    std::string buffer;
    uint64_t buffer_offset = 0;  // file offset of buffer[0]
    Slice data;                  // valid bytes, inside buffer
    size_t next_read_size = kInitialReadahead;
    uint64_t last_use = 0;
  };
  static constexpr size_t kMaxOpenCursors = 64;
  static constexpr size_t kInitialReadahead = 64 << 10;

  Status GetCursor(uint64_t number, Cursor** cursor);

  const std::shared_ptr<FileSystem> fs_;
  const std::vector<std::string> dirs_;
  const FileOptions file_options_;
  const size_t max_readahead_;
  std::map<uint64_t, Cursor> cursors_;
  uint64_t clock_ = 0;
  uint64_t bytes_read_ = 0;
  uint64_t reads_issued_ = 0;
};

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
