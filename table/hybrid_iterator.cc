// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "plugin/hybridkv/table/hybrid_iterator.h"

#include "db/dbformat.h"
#include "db/pinned_iterators_manager.h"
#include "plugin/hybridkv/blob/lifecycle/db_secret.h"
#include "plugin/hybridkv/table/compaction_pointer.h"
#include "plugin/hybridkv/table/compaction_scope.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

HybridIterator::HybridIterator(InternalIterator* inner, bool inner_in_arena,
                               Mode mode, TableMediumValues* table,
                               const MediumReadOptions& read,
                               bool allow_unprepared_value, bool scan,
                               std::unique_ptr<ScanPrefetcher> prefetcher)
    : inner_(inner),
      inner_in_arena_(inner_in_arena),
      mode_(mode),
      table_(table),
      allow_unprepared_value_(allow_unprepared_value),
      read_(read),
      prefetcher_(std::move(prefetcher)) {
  if (mode == Mode::kPointer) {
    scope_ = CompactionScope::Enter(table->medium_refs());
  }
  // Cache-only and cache-filling (e.g. prefetching) scans cache values too.
  if (scan && mode == Mode::kResolve && !read.block_cache_only() &&
      !(read.fill_cache() && table->context().block_cache != nullptr)) {
    MakeReadahead();
  }
}

HybridIterator::~HybridIterator() {
  ReleaseValue();
  ReleaseKey();
  if (inner_in_arena_) {
    inner_->~InternalIterator();
  } else {
    delete inner_;
  }
}

Slice HybridIterator::MacKey() const {
  const Slice user_key = inner_->user_key();
  return Slice(user_key.data(),
               user_key.size() - table_->context().timestamp_size);
}

void HybridIterator::ReleaseValue() {
  if (resolved_ && pinned_iters_mgr_ != nullptr &&
      pinned_iters_mgr_->PinningEnabled()) {
    pinned_iters_mgr_->PinPtr(
        value_.release(), [](void* p) { delete static_cast<std::string*>(p); });
  }
  resolved_ = false;
}

void HybridIterator::ReleaseKey() {
  // As ReleaseValue: a pinned key outlives the move while pinning lasts.
  if (pinned_key_ != nullptr && pinned_iters_mgr_ != nullptr &&
      pinned_iters_mgr_->PinningEnabled()) {
    pinned_iters_mgr_->PinPtr(pinned_key_.release(), [](void* p) {
      delete static_cast<std::string*>(p);
    });
  }
  pinned_key_.reset();
}

void HybridIterator::Update() {
  ReleaseValue();
  ReleaseKey();
  is_pointer_ = false;
  status_ = Status::OK();
  if (!inner_->Valid() || ExtractValueType(inner_->key()) != kTypeBlobIndex) {
    return;
  }
  // Only the value's tag tells our pointers from BlobDB's blob indexes.
  if (allow_unprepared_value_ && !inner_->PrepareValue()) {
    return;  // the inner iterator is now invalid, with its status set
  }
  const Slice value = inner_->value();
  if (!PeekMediumPointer(value, &pointer_)) {
    return;
  }
  is_pointer_ = true;
  const Slice key = inner_->key();
  // Under pin_data a pinned key must outlive the next move (IsKeyPinned).
  std::string* rewritten = &key_buffer_;
  if (pinned_iters_mgr_ != nullptr && pinned_iters_mgr_->PinningEnabled() &&
      inner_->IsKeyPinned()) {
    pinned_key_.reset(new std::string());
    rewritten = pinned_key_.get();
  }
  rewritten->assign(key.data(), key.size());
  UpdateInternalKey(rewritten, GetInternalKeySeqno(key), kTypeValue);
  if (mode_ == Mode::kPointer) {
    // A table's pointers all carry its DB's MAC unless the secret file was
    // replaced: check the first; block checksums guard the rest.
    const Slice mac_key = MacKey();
    if (!mac_checked_) {
      const MediumReadContext& context = table_->context();
      if (scope_->HandOffValues(context.state->CompactionsResolvePointers(
              context.column_family_id))) {
        ResolveFromNowOn();
        if (!allow_unprepared_value_) Resolve();
        return;
      }
      // Lazily: a stock DB's table names no references but has no pointers.
      SipKey secret;
      status_ = table_->GetSecret(&secret);
      if (!status_.ok()) return;
      mac_checked_ = DecodeMediumPointer(secret, value, mac_key, &pointer_);
    }
    if (!mac_checked_) {
      status_ = Status::Corruption(
          "HybridKV: a medium pointer for key '" + mac_key.ToString(true) +
          "' does not verify under this DB's secret: " +
          std::string(kSecretFileName) +
          " was replaced or the SST was copied from another DB. Restore the "
          "original secret file.");
      return;
    }
    if (value_ == nullptr) {
      value_.reset(new std::string());
    }
    value_->clear();
    EncodeCompactionPointer(table_, value, value_.get());
    resolved_ = true;
  } else if (!allow_unprepared_value_) {
    Resolve();
  }
}

void HybridIterator::ResolveFromNowOn() {
  mode_ = Mode::kResolve;
  MakeReadahead();
}

void HybridIterator::MakeReadahead() {
  // As RocksDB's own auto-readahead for scans: 8 KiB, growing to 256 KiB.
  readahead_.reset(new MediumReadahead(
      [table = table_](const IOOptions& io, uint64_t number,
                       std::shared_ptr<MediumFileReader>* file) {
        return table->GetMediumFile(io, number, file);
      },
      8 << 10, 256 << 10, /*buffer_budget=*/8 << 20));
}

bool HybridIterator::Resolve() {
  if (value_ == nullptr) {
    value_.reset(new std::string());
  }
  if (prefetcher_ != nullptr) {
    // Reads this value and the scan's next ones into the block cache.
    prefetcher_->WantValue(inner_->key());
  }
  if (readahead_ != nullptr) {
    IOOptions io;
    status_ = read_.PrepareIO(table_->context().clock, &io);
    const uint64_t bytes_before = readahead_->bytes_read();
    const uint64_t reads_before = readahead_->reads_issued();
    if (status_.ok()) {
      status_ = readahead_->Read(io, pointer_, MacKey(), value_.get());
    }
    if (status_.ok()) {
      table_->RecordResolved(value_->size(),
                             readahead_->bytes_read() - bytes_before,
                             readahead_->reads_issued() - reads_before);
    }
  } else {
    status_ = table_->ResolvePointer(read_, pointer_, MacKey(), value_.get());
  }
  resolved_ = status_.ok();
  return resolved_;
}

Slice HybridIterator::value() const {
  if (is_pointer_) {
    return resolved_ ? Slice(*value_) : Slice();
  }
  // DBIter wants a blob index's value only for entries it yields: read ahead.
  if (prefetcher_ != nullptr &&
      ExtractValueType(inner_->key()) == kTypeBlobIndex) {
    prefetcher_->WantValue(inner_->key());
  }
  return inner_->value();
}

bool HybridIterator::PrepareValue() {
  if (!is_pointer_) {
    return inner_->PrepareValue();
  }
  if (mode_ == Mode::kPointer || resolved_) {
    return status_.ok();
  }
  return Resolve();
}

bool HybridIterator::NextAndGetResult(IterateResult* result) {
  if (prefetcher_ != nullptr) prefetcher_->Next();
  const bool valid = inner_->NextAndGetResult(result);
  Update();
  if (!valid || !Valid()) {
    return false;
  }
  if (is_pointer_) {
    result->key = RewrittenKey();
    result->value_prepared = mode_ == Mode::kPointer || resolved_;
  }
  return true;
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
