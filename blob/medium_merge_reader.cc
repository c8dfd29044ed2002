// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "plugin/hybridkv/blob/medium_merge_reader.h"

#include <algorithm>

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

IOStatus OpenMediumFile(const std::shared_ptr<FileSystem>& fs,
                        const std::vector<std::string>& dirs, uint64_t number,
                        const FileOptions& file_options,
                        std::unique_ptr<MediumFileReader>* reader) {
  for (const std::string& dir : dirs) {
    const std::string path = MediumFileName(dir, number);
    if (fs->FileExists(path, IOOptions(), nullptr).ok()) {
      return MediumFileReader::Open(fs, path, file_options, reader);
    }
  }
  return IOStatus::Corruption("medium file " + MediumFileName(dirs.empty() ? "." : dirs[0], number) +
                              " is missing, but an SST points into it");
}

MediumMergeReader::MediumMergeReader(std::shared_ptr<FileSystem> fs,
                                     std::vector<std::string> dirs, FileOptions file_options,
                                     size_t max_readahead)
    : fs_(std::move(fs)),
      dirs_(std::move(dirs)),
      file_options_(std::move(file_options)),
      max_readahead_(max_readahead) {}

Status MediumMergeReader::GetCursor(uint64_t number, Cursor** cursor) {
  auto it = cursors_.find(number);
  if (it == cursors_.end()) {
    if (cursors_.size() >= kMaxOpenCursors) {
      auto lru = std::min_element(cursors_.begin(), cursors_.end(), [](const auto& a, const auto& b) {
        return a.second.last_use < b.second.last_use;
      });
      cursors_.erase(lru);
    }
    Cursor c;
    IOStatus s = OpenMediumFile(fs_, dirs_, number, file_options_, &c.reader);
    if (!s.ok()) {
      return s;
    }
    it = cursors_.emplace(number, std::move(c)).first;
  }
  it->second.last_use = ++clock_;
  *cursor = &it->second;
  return Status::OK();
}

Status MediumMergeReader::Read(const MediumPointer& pointer, const Slice& user_key,
                               std::string* value) {
  Cursor* c = nullptr;
  Status s = GetCursor(pointer.file_number, &c);
  if (!s.ok()) {
    return s;
  }
  const MediumRecordHandle& h = pointer.handle;
  const std::string& path = c->reader->path();
  if (h.offset < kMediumFileHeaderSize || h.offset + h.size > c->reader->data_end()) {
    return Status::Corruption("medium file " + path + ": pointer to offset " +
                              std::to_string(h.offset) + " lies outside the data region");
  }
  const uint64_t buffer_end = c->buffer_offset + c->data.size();
  if (h.offset < c->buffer_offset || h.offset + h.size > buffer_end) {
    // Sequential (the request starts at or just past the buffer's end): grow the chunk.
    if (!c->data.empty() && h.offset >= c->buffer_offset && h.offset <= buffer_end + h.size) {
      c->next_read_size = std::min(c->next_read_size * 2, max_readahead_);
    }
    const size_t n = static_cast<size_t>(std::min<uint64_t>(
        std::max<uint64_t>(c->next_read_size, h.size), c->reader->data_end() - h.offset));
    s = c->reader->ReadRange(IOOptions(), h.offset, n, &c->buffer, &c->data);
    if (!s.ok()) {
      c->data = Slice();
      return s;
    }
    c->buffer_offset = h.offset;
    bytes_read_ += n;
    reads_issued_++;
  }
  Slice key, v;
  s = DecodeMediumRecord(Slice(c->data.data() + (h.offset - c->buffer_offset), h.size), &key, &v);
  if (!s.ok()) {
    return Status::Corruption("medium file " + path + " at offset " + std::to_string(h.offset) +
                              ": " + s.getState());
  }
  if (key != user_key) {
    return Status::Corruption("medium file " + path + " at offset " + std::to_string(h.offset) +
                              ": record holds another key than the pointer's");
  }
  value->assign(v.data(), v.size());
  return Status::OK();
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
