// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "plugin/hybridkv/blob/medium/medium_readahead.h"

#include <algorithm>

#include "file/file_util.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

MediumReadOptions::MediumReadOptions(const ReadOptions& ro)
    : block_cache_only_(ro.read_tier == kBlockCacheTier),
      fill_cache_(ro.fill_cache) {
  io_fields_.deadline = ro.deadline;
  io_fields_.io_timeout = ro.io_timeout;
  io_fields_.rate_limiter_priority = ro.rate_limiter_priority;
  io_fields_.io_activity = ro.io_activity;
}

IOStatus MediumReadOptions::PrepareIO(SystemClock* clock, IOOptions* io) const {
  return PrepareIOFromReadOptions(
      io_fields_, clock != nullptr ? clock : SystemClock::Default().get(), *io);
}

MediumReadahead::MediumReadahead(FileProvider provider,
                                 size_t initial_readahead, size_t max_readahead,
                                 size_t buffer_budget, const Plan* plan)
    : provider_(std::move(provider)),
      plan_(plan),
      initial_readahead_(initial_readahead),
      max_readahead_(std::max(initial_readahead, max_readahead)),
      buffer_budget_(buffer_budget) {}

void MediumReadahead::FreeBuffersOverBudget(const Cursor* keep) {
  while (buffered_ > buffer_budget_) {
    Cursor* lru = nullptr;
    for (auto& [number, cursor] : cursors_) {
      if (&cursor != keep && cursor.accounted > 0 &&
          (lru == nullptr || cursor.last_use < lru->last_use)) {
        lru = &cursor;
      }
    }
    if (lru == nullptr) {
      return;
    }
    // The cursor and its open file stay; its next read starts afresh.
    buffered_ -= lru->accounted;
    lru->accounted = 0;
    std::string().swap(lru->buffer);
    lru->data = Slice();
    lru->buffer_offset = 0;
  }
}

Status MediumReadahead::GetCursor(const IOOptions& io, uint64_t number,
                                  Cursor** cursor) {
  auto it = cursors_.find(number);
  if (it == cursors_.end()) {
    if (cursors_.size() >= kMaxOpenCursors) {
      auto lru = std::min_element(
          cursors_.begin(), cursors_.end(), [](const auto& a, const auto& b) {
            return a.second.last_use < b.second.last_use;
          });
      buffered_ -= lru->second.accounted;
      cursors_.erase(lru);
    }
    Cursor c;
    Status s = provider_(io, number, &c.file);
    if (!s.ok()) {
      return s;
    }
    c.next_read_size = initial_readahead_;
    it = cursors_.emplace(number, std::move(c)).first;
  }
  it->second.last_use = ++clock_;
  *cursor = &it->second;
  return Status::OK();
}

Status MediumReadahead::Read(const IOOptions& io, const MediumPointer& pointer,
                             const Slice& user_key, std::string* value) {
  Cursor* c = nullptr;
  Status s = GetCursor(io, pointer.file_number, &c);
  if (!s.ok()) {
    return s;
  }
  const MediumRecordHandle& h = pointer.handle;
  const MediumFileReader& file = *c->file;
  s = file.CheckHandle(h);
  if (!s.ok()) {
    return s;
  }
  const uint64_t buffer_end = c->buffer_offset + c->data.size();
  if (h.offset < c->buffer_offset || h.offset + h.size > buffer_end) {
    // A record straddling the chunk's end (usually the next) counts as forward.
    const bool forward = h.offset >= c->buffer_offset;
    const bool backward = !forward;
    // Sequential in either direction: grow the chunk.
    if (!c->data.empty() &&
        ((forward && h.offset <= buffer_end + h.size) ||
         (backward && h.offset + 2 * h.size >= c->buffer_offset))) {
      c->next_read_size = std::min(c->next_read_size * 2, max_readahead_);
    }
    // Cursors share the budget; a chunk never drops below the first size.
    // With a plan, every file it names counts from the start, lest early files
    // take later ones' share. A quarter stays free: merges visit files round
    // robin, and LRU eviction at the edge would drop each buffer before use.
    const size_t files =
        std::max<size_t>({size_t{1}, cursors_.size(),
                          plan_ != nullptr ? plan_->FileCount() : 0});
    const size_t share =
        std::max(initial_readahead_, buffer_budget_ / 4 * 3 / files);
    c->next_read_size = std::min(c->next_read_size, share);
    uint64_t n = std::max<uint64_t>(c->next_read_size, h.size);
    const uint64_t run_end = forward && plan_ != nullptr
                                 ? plan_->RunEnd(pointer.file_number, h.offset)
                                 : 0;
    if (run_end > h.offset) {
      // The rest of the run, in as few requests as the budget allows.
      n = std::max<uint64_t>(
          h.size, std::min<uint64_t>(run_end - h.offset,
                                     std::min(max_readahead_, share)));
    }
    uint64_t start = h.offset;
    if (backward && !c->data.empty()) {  // end the chunk at this record
      start = h.offset + h.size > MediumFileHeader::kEncodedLength + n
                  ? h.offset + h.size - n
                  : MediumFileHeader::kEncodedLength;
    }
    const size_t len =
        static_cast<size_t>(std::min<uint64_t>(n, file.data_end() - start));
    if (c->buffer.capacity() < len || c->buffer.capacity() > 2 * len) {
      // Exactly `len`: growing in place doubles capacity, counted by budget.
      std::string exact;
      exact.reserve(len);
      c->buffer.swap(exact);
    }
    s = file.ReadRange(io, start, len, &c->buffer, &c->data);
    buffered_ = buffered_ - c->accounted + c->buffer.capacity();
    c->accounted = c->buffer.capacity();
    if (!s.ok()) {
      c->data = Slice();
      return s;
    }
    FreeBuffersOverBudget(c);
    c->buffer_offset = start;
    bytes_read_ += len;
    reads_issued_++;
  }
  return file.DecodeRecord(
      h.offset, Slice(c->data.data() + (h.offset - c->buffer_offset), h.size),
      user_key, value);
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
