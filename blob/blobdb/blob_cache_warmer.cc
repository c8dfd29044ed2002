// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "plugin/hybridkv/blob/blobdb/blob_cache_warmer.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>

#include "cache/cache_key.h"
#include "cache/typed_cache.h"
#include "db/blob/blob_contents.h"
#include "db/blob/blob_file_cache.h"
#include "db/blob/blob_log_format.h"
#include "db/blob/blob_read_request.h"
#include "db/blob/blob_source.h"
#include "file/filename.h"
#include "file/random_access_file_reader.h"
#include "monitoring/statistics_impl.h"
#include "plugin/hybridkv/blob/lifecycle/db_state.h"
#include "rocksdb/cache.h"
#include "table/multiget_context.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

// Blob files one warmer keeps open. Reopening one costs an open and two reads
// (header and footer), more than the blob itself, so this is generous, as
// RocksDB's own BlobFileCache is (it shares the table cache, unbounded with
// max_open_files=-1). HybridKVListener closes deleted files (ForgetBlobFile).
constexpr size_t kOpenBlobFiles = 4096;

std::shared_ptr<Cache> NewReaderCache() {
  LRUCacheOptions options;
  options.capacity = kOpenBlobFiles;  // each reader is charged 1
  options.num_shard_bits = 0;
  // As RocksDB's table cache: metadata charged too would cut the capacity to a
  // few dozen readers.
  options.metadata_charge_policy = kDontChargeCacheMetadata;
  return options.MakeSharedCache();
}

}  // namespace

std::shared_ptr<BlobCacheWarmer> BlobCacheWarmer::For(
    const ImmutableOptions& ioptions, const FileOptions& file_options,
    const std::shared_ptr<TableFactory>& inner, uint32_t column_family_id,
    const std::string& db_id, const std::string& db_session_id) {
  if (ioptions.blob_cache == nullptr || ioptions.cf_paths.empty() ||
      db_session_id.empty()) {
    return nullptr;
  }
  const std::string& dir = ioptions.cf_paths.front().path;
  const std::string key =
      std::to_string(column_family_id) + '\0' + db_id + '\0' + db_session_id;
  DbState* state = DbStateFor(dir);
  std::lock_guard<std::mutex> lock(state->blob_warmers_mu);
  auto& warmers = state->blob_warmers;
  std::shared_ptr<BlobCacheWarmer> warmer = warmers[key].lock();
  if (warmer == nullptr) {
    // Drop what expired with earlier sessions.
    for (auto it = warmers.begin(); it != warmers.end();) {
      it = it->second.expired() ? warmers.erase(it) : std::next(it);
    }
    warmer.reset(new BlobCacheWarmer(ioptions, file_options, inner,
                                     column_family_id, db_id, db_session_id));
    warmers[key] = warmer;
  }
  return warmer;
}

void BlobCacheWarmer::ForgetBlobFile(const std::string& path) {
  const size_t slash = path.rfind('/');
  const std::string dir =
      slash == std::string::npos ? std::string() : path.substr(0, slash);
  uint64_t number = 0;
  FileType type;
  if (!ParseFileName(path.substr(slash + 1), &number, &type) ||
      type != kBlobFile) {
    return;
  }
  std::vector<std::shared_ptr<BlobCacheWarmer>> warmers;
  {
    DbState* state = DbStateFor(dir);
    std::lock_guard<std::mutex> lock(state->blob_warmers_mu);
    for (const auto& [key, weak] : state->blob_warmers) {
      if (auto warmer = weak.lock()) warmers.push_back(warmer);
    }
  }
  for (const auto& warmer : warmers) {
    warmer->blob_file_cache_->Evict(number);
    std::lock_guard<std::mutex> lock(warmer->files_mu_);
    warmer->files_.erase(number);
  }
}

BlobCacheWarmer::BlobCacheWarmer(const ImmutableOptions& ioptions,
                                 const FileOptions& file_options,
                                 const std::shared_ptr<TableFactory>& inner,
                                 uint32_t column_family_id, std::string db_id,
                                 std::string db_session_id)
    : fs_(ReadFileSystemFor(ioptions.fs)),  // reads may stay in flight
      blob_dir_(ioptions.cf_paths.front().path),
      column_family_id_(column_family_id),
      clock_(ioptions.clock),
      statistics_(ioptions.stats),
      blob_cache_(ioptions.blob_cache),
      lowest_used_cache_tier_(ioptions.lowest_used_cache_tier),
      db_id_(std::move(db_id)),
      db_session_id_(std::move(db_session_id)),
      file_options_(file_options),
      reader_cache_(NewReaderCache()) {
  blob_file_cache_ = std::make_unique<BlobFileCache>(
      reader_cache_.get(), &ioptions, &file_options_, column_family_id,
      /*blob_file_read_hist=*/nullptr, /*io_tracer=*/nullptr);
  // BlobSource reads only the table factory from the mutable options, to
  // learn whether blob cache memory is charged to the block cache.
  ColumnFamilyOptions cf_options;
  cf_options.table_factory = inner;
  blob_source_ = std::make_unique<BlobSource>(
      ioptions, MutableCFOptions(cf_options), db_id_, db_session_id_,
      blob_file_cache_.get());
}

BlobCacheWarmer::~BlobCacheWarmer() = default;

static_assert(BlobCacheWarmer::kMaxGroup == MultiGetContext::MAX_BATCH_SIZE,
              "a group is one BlobSource::MultiGetBlobFromOneFile call");

void BlobCacheWarmer::WarmGroup(const ReadOptions& read_options,
                                const Blob* blobs, size_t count) {
  std::vector<Slice> keys(count);
  std::vector<PinnableSlice> values(count);
  std::vector<Status> statuses(count);
  autovector<BlobReadRequest> requests;
  for (size_t i = 0; i < count; i++) {
    keys[i] = blobs[i].user_key;
    requests.emplace_back(keys[i], blobs[i].offset, blobs[i].size,
                          blobs[i].compression, &values[i], &statuses[i]);
  }
  uint64_t bytes_read = 0;
  blob_source_->MultiGetBlobFromOneFile(read_options, blobs[0].file_number,
                                        /*file_size=*/0, requests, &bytes_read);
}

BlobCacheWarmer::OpenBlobFile BlobCacheWarmer::OpenFile(uint64_t number) {
  {
    std::lock_guard<std::mutex> lock(files_mu_);
    auto it = files_.find(number);
    if (it != files_.end()) {
      return it->second;
    }
  }
  const std::string path = BlobFileName(blob_dir_, number);
  std::unique_ptr<FSRandomAccessFile> file;
  if (!fs_->NewRandomAccessFile(path, file_options_, &file, nullptr).ok()) {
    return {};
  }
  OpenBlobFile open;
  open.reader = std::make_shared<RandomAccessFileReader>(
      std::move(file), path, clock_, /*io_tracer=*/nullptr, statistics_,
      BLOB_DB_BLOB_FILE_READ_MICROS);
  // BlobFileReader's header checks: the file is this column family's, and
  // the compression every blob index of the file must name.
  char scratch[BlobLogHeader::kSize];
  Slice bytes;
  BlobLogHeader header;
  if (!open.reader
           ->Read(IOOptions(), 0, BlobLogHeader::kSize, &bytes, scratch,
                  /*aligned_buf=*/nullptr)
           .ok() ||
      bytes.size() != BlobLogHeader::kSize || !header.DecodeFrom(bytes).ok() ||
      header.column_family_id != column_family_id_) {
    return {};
  }
  open.compression = header.compression;
  std::lock_guard<std::mutex> lock(files_mu_);
  if (files_.size() >= kOpenBlobFiles) {
    files_.erase(files_.begin());  // any: reopening costs an open and a read
  }
  return files_.emplace(number, std::move(open)).first->second;
}

bool BlobCacheWarmer::AddGroupReads(AsyncReadBatch* batch, const IOOptions& io,
                                    const Blob* blobs, size_t count) {
  if (blob_cache_ == nullptr || io.rate_limiter_priority != Env::IO_TOTAL) {
    return false;
  }
  for (size_t i = 0; i < count; i++) {
    if (blobs[i].compression != kNoCompression) {
      return false;
    }
  }
  const OpenBlobFile file = OpenFile(blobs[0].file_number);
  if (file.reader == nullptr || file.compression != kNoCompression) {
    return false;  // WarmGroup's BlobSource reports what is wrong
  }
  const OffsetableCacheKey file_key(db_id_, db_session_id_,
                                    blobs[0].file_number);
  for (size_t i = 0; i < count; i++) {
    const Blob& blob = blobs[i];
    const CacheKey key = file_key.WithOffset(blob.offset);
    Cache::Handle* cached = blob_cache_->Lookup(key.AsSlice());
    if (cached != nullptr) {
      blob_cache_->Release(cached);
      continue;
    }
    // The whole record, as BlobFileReader reads it: header, key, value.
    const uint64_t adjustment =
        BlobLogRecord::CalculateAdjustmentForRecordHeader(blob.user_key.size());
    if (blob.offset < adjustment) {
      continue;  // a bad index: DBIter's own read reports it
    }
    batch->Add(file.reader.get(), fs_.get(), blob.offset - adjustment,
               static_cast<size_t>(blob.size + adjustment),
               [this, reader = file.reader, key, &blob](const IOStatus& s,
                                                        const Slice& record) {
                 if (s.ok()) {
                   InsertRecord(key, blob, record);
                 }
               });
  }
  return true;
}

void BlobCacheWarmer::InsertRecord(const CacheKey& key, const Blob& blob,
                                   const Slice& record) const {
  RecordTick(statistics_, BLOB_DB_BLOB_FILE_BYTES_READ, record.size());
  // BlobFileReader's checks; a blob that fails them is not cached, and
  // DBIter's own read reports it.
  BlobLogRecord parsed;
  if (record.size() < BlobLogRecord::kHeaderSize ||
      !parsed.DecodeHeaderFrom(Slice(record.data(), BlobLogRecord::kHeaderSize))
           .ok() ||
      parsed.key_size != blob.user_key.size() ||
      parsed.value_size != blob.size || record.size() != parsed.record_size()) {
    return;
  }
  parsed.key =
      Slice(record.data() + BlobLogRecord::kHeaderSize, parsed.key_size);
  parsed.value = Slice(parsed.key.data() + parsed.key_size, blob.size);
  if (parsed.key != Slice(blob.user_key) || !parsed.CheckBlobCRC().ok()) {
    return;
  }
  // Exactly BlobSource::PutBlobIntoCache: its key, its typed cache (the
  // same item helper), BOTTOM priority, its cache tier.
  Cache* cache = blob_cache_.get();
  FullTypedCacheInterface<BlobContents, BlobContentsCreator> typed(cache);
  std::unique_ptr<BlobContents> contents;
  size_t charge = 0;
  BlobContentsCreator::Create(&contents, &charge, parsed.value, kNoCompression,
                              cache->memory_allocator());
  if (typed
          .InsertFull(key.AsSlice(), contents.get(), charge,
                      /*handle=*/nullptr, Cache::Priority::BOTTOM,
                      lowest_used_cache_tier_)
          .ok()) {
    contents.release();
    RecordTick(statistics_, BLOB_DB_CACHE_ADD);
    RecordTick(statistics_, BLOB_DB_CACHE_BYTES_WRITE, parsed.value.size());
  } else {
    RecordTick(statistics_, BLOB_DB_CACHE_ADD_FAILURES);
  }
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
