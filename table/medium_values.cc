// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "plugin/hybridkv/table/medium_values.h"

#include <algorithm>

#include "plugin/hybridkv/blob/lifecycle/db_secret.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

TableMediumValues::TableMediumValues(MediumReadContext context,
                                     const TableProperties* props)
    : context_(std::move(context)),
      written_here_(props != nullptr &&
                    props->db_session_id == context_.session_id) {
  bool known = false;
  refs_known_ =
      props != nullptr && GetMediumRefs(*props, &refs_, &known).ok() && known;
  has_medium_refs_ = !refs_known_ || !refs_.empty();
}

Status TableMediumValues::GetMediumFile(
    const IOOptions& io, uint64_t number,
    std::shared_ptr<MediumFileReader>* file) {
  auto held = held_.find(number);
  if (held != held_.end()) {
    *file = held->second;
    return Status::OK();
  }
  // A table whose references are not known (not built by HybridKV).
  return context_.state->medium_files.Get(
      context_.fs, context_.dirs, context_.file_options, io, number, file);
}

MediumBlockCache TableMediumValues::BlocksOf(uint64_t file_number) const {
  return MediumBlockCache(context_.block_cache.get(), context_.db_id,
                          context_.session_id, file_number);
}

bool TableMediumValues::UncachedSpan(const IOOptions& io,
                                     const MediumBlockCache& blocks,
                                     const MediumPointer* pointers, size_t n,
                                     std::shared_ptr<MediumFileReader>* file,
                                     uint64_t* begin, uint64_t* end) {
  std::string scratch;
  Slice bytes;
  size_t first = 0;
  while (first < n &&
         blocks.Lookup(pointers[first].handle.offset,
                       pointers[first].handle.size, &scratch, &bytes)) {
    first++;
  }
  if (first == n) {
    return false;
  }
  const MediumRecordHandle& last = pointers[n - 1].handle;
  *begin = pointers[first].handle.offset;
  *end = last.offset + last.size;
  return *end >= *begin &&
         GetMediumFile(io, pointers[first].file_number, file).ok() &&
         (*file)->CheckHandle(pointers[first].handle).ok() &&
         (*file)->CheckHandle(last).ok();
}

void TableMediumValues::AddMediumReads(
    ReadBatch* batch, const IOOptions& io,
    const std::vector<MediumPointer>& pointers,
    const std::vector<std::pair<size_t, size_t>>& spans) {
  if (context_.block_cache == nullptr) {
    return;  // nowhere to keep what would be read
  }
  for (const auto& span : spans) {
    const MediumBlockCache blocks = BlocksOf(pointers[span.first].file_number);
    std::shared_ptr<MediumFileReader> file;
    uint64_t begin = 0;
    uint64_t end = 0;
    if (UncachedSpan(io, blocks, &pointers[span.first],
                     span.second - span.first, &file, &begin, &end)) {
      blocks.ReadInBatch(batch, file, begin, end - begin,
                       &context_.state->counters.resolve_bytes_read);
      context_.state->counters.resolve_reads++;
    }
  }
}

std::vector<std::pair<size_t, size_t>> TableMediumValues::GroupIntoReadSpans(
    std::vector<MediumPointer>* pointers) {
  std::sort(pointers->begin(), pointers->end(),
            [](const MediumPointer& a, const MediumPointer& b) {
              return std::make_pair(a.file_number, a.handle.offset) <
                     std::make_pair(b.file_number, b.handle.offset);
            });
  std::vector<std::pair<size_t, size_t>> spans;
  for (size_t i = 0; i < pointers->size(); i++) {
    const MediumPointer& p = (*pointers)[i];
    // Reading through a gap of up to kMediumRunMergeGap beats a second request.
    if (spans.empty() || p.file_number != (*pointers)[i - 1].file_number ||
        p.handle.offset > (*pointers)[i - 1].handle.offset +
                              (*pointers)[i - 1].handle.size +
                              kMediumRunMergeGap) {
      spans.emplace_back(i, i);
    }
    spans.back().second = i + 1;
  }
  return spans;
}

Status TableMediumValues::ResolvePointer(const MediumReadOptions& options,
                                         const MediumPointer& pointer,
                                         const Slice& user_key,
                                         std::string* value) {
  const MediumRecordHandle& handle = pointer.handle;
  const MediumBlockCache blocks = BlocksOf(pointer.file_number);
  std::string scratch;
  Slice record;
  uint64_t bytes_read = 0;
  std::shared_ptr<MediumFileReader> file;
  if (!blocks.Lookup(handle.offset, handle.size, &scratch, &record)) {
    if (options.block_cache_only()) {
      return Status::Incomplete(
          "HybridKV: medium value not in the block cache, and the read allows "
          "no I/O (read_tier=kBlockCacheTier)");
    }
    IOOptions io;
    Status s = options.PrepareIO(context_.clock, &io);
    if (s.ok()) {
      s = GetMediumFile(io, pointer.file_number, &file);
    }
    if (s.ok()) {
      s = file->CheckHandle(handle);
    }
    if (s.ok()) {
      s = blocks.Read(io, *file, handle.offset, handle.size,
                      options.fill_cache(), &scratch, &record, &bytes_read);
    }
    if (!s.ok()) {
      return s;
    }
  }
  Slice v;
  if (!DecodeMediumRecord(record, user_key, &v).ok()) {
    // Rare: open the file (if the bytes were cached) for an error naming it.
    IOOptions io;
    Status s = file != nullptr ? Status::OK()
                               : GetMediumFile(io, pointer.file_number, &file);
    return s.ok() ? file->DecodeRecord(handle.offset, record, user_key, value)
                  : s;
  }
  value->assign(v.data(), v.size());
  RecordResolved(value->size(), bytes_read, bytes_read > 0 ? 1 : 0);
  return Status::OK();
}

void TableMediumValues::RecordResolved(uint64_t value_bytes,
                                       uint64_t bytes_read, uint64_t reads) {
  DbCounters& counters = context_.state->counters;
  counters.medium_values_resolved++;
  counters.medium_bytes_resolved += value_bytes;
  counters.resolve_bytes_read += bytes_read;
  counters.resolve_reads += reads;
}

namespace {

bool HoldsAnyMediumFile(const std::shared_ptr<FileSystem>& fs,
                        const std::string& dir) {
  std::vector<std::string> children;
  if (!fs->GetChildren(dir, IOOptions(), &children, nullptr).ok()) return true;
  for (const std::string& child : children) {
    if (MediumNumberOf(child) != 0) return true;
  }
  return false;
}

}  // namespace

TableMediumValues::~TableMediumValues() {
  for (const auto& [number, file] : held_) {
    context_.state->medium_files.Release(number, context_.session_id);
  }
}

Status TableMediumValues::HoldMediumFiles(const std::string& sst_path) {
  MediumFileCache& cache = context_.state->medium_files;
  for (const auto& [number, ref] : refs_) {
    std::shared_ptr<MediumFileReader> file;
    Status s = cache.Get(context_.fs, context_.dirs, context_.file_options,
                         IOOptions(), number, &file);
    if (s.IsNotSupported()) {
      return Status::NotSupported(
          "HybridKV: the DB's file system cannot read medium file " +
          std::to_string(number) + ".medium (" + s.ToString() +
          "). DB::OpenAsFollower's OnDemandFileSystem serves only table "
          "files, so a follower opened with it cannot read a HybridKV DB's "
          "medium values: open it with hybridkv::OpenAsFollower instead.");
    }
    if (!s.ok()) {
      if (!HoldsAnyMediumFile(context_.fs, context_.dirs.front())) {
        return NoMediumFiles(number, sst_path);
      }
      continue;  // reads of its values fail, naming it
    }
    cache.Hold(number, context_.session_id);
    held_.emplace(number, std::move(file));
  }
  // No stat for tables this session wrote: no other instance deleted them.
  if (!held_.empty() && !written_here_ &&
      context_.fs->FileExists(sst_path, IOOptions(), nullptr).IsNotFound()) {
    // Corruption, as SecondaryFileSystem reports an SST gone at open, so a
    // catch-up keeps its previous Version (secondary_file_system.h).
    return Status::Corruption(
        "HybridKV: SST " + sst_path +
        " was deleted by another instance while its table was being opened "
        "(on a secondary, by the primary since the MANIFEST named it: the "
        "catch-up keeps its previous Version; catch up again for a later one)");
  }
  return Status::OK();
}

Status TableMediumValues::NoMediumFiles(uint64_t number,
                                        const std::string& sst_path) {
  const std::string& home = context_.dirs.front();
  Status missing =
      MissingMediumFile(context_.fs, home, number, "SST " + sst_path);
  SipKey secret;
  if (GetDbSecret(context_.fs, home, context_.db_id, /*create=*/false, &secret)
          .IsNotFound()) {
    // No medium files nor secret (kept while SSTs hold pointers): a copy made
    // without them. IOError: a Corruption would have recovery blame MANIFEST.
    return Status::IOError(missing.getState());
  }
  // The secret is there: a secondary may be opening a table whose files the
  // primary has since freed. Corruption, which its catch-up skips.
  return Status::Corruption(
      std::string(missing.getState()) + " " + kSecondaryMayHaveMissedIt +
      " If RocksDB names a MANIFEST after this, the MANIFEST is intact: the "
      "medium files are what is missing.");
}

Status TableMediumValues::GetSecret(SipKey* secret) {
  Status s = GetDbSecret(context_.fs, context_.dirs.front(), context_.db_id,
                         /*create=*/false, secret);
  if (s.IsNotFound()) {
    return Status::Corruption(
        "HybridKV: " + context_.dirs.front() + "/" + kSecretFileName +
        " is missing, but SSTs hold medium pointers, which cannot be told "
        "from values without it. " +
        kCopiedWithoutHybridKVFiles);
  }
  return s;
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
