// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// Model-based randomized test: one HybridKV DB and a std::map model receive the
// same random operations, and every read is compared.
//
// - Writes: Put across the small, medium and large classes (and values that
//   change class, values that imitate medium pointers, and a key's own stored
//   pointer bytes as a TablePropertiesCollector sees them), Delete,
//   SingleDelete, DeleteRange, Merge (string append, through the wrapped merge
//   operator), atomic WriteBatches.
// - Reads: Get, MultiGet, iterators forward and backward with bounds and
//   direction changes, all of them also at snapshots.
// - Structure: Flush, CompactRange, CompactFiles, reopen, and a full check
//   (scan, VerifyChecksum, no orphaned or missing medium file) at the end.
//
// Reproducible: a failure prints the seed and the last operations.
//   HYBRIDKV_SEED=<n>        run every configuration with seed n
//   HYBRIDKV_MODEL_OPS=<n>   operations per run (default 3000)
//   HYBRIDKV_LONG=1          keep drawing new seeds for HYBRIDKV_LONG_SECONDS
//                            (default 600) split over the configurations
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "hybridkv/hybridkv.h"
#include "plugin/hybridkv/blob/format/medium_pointer.h"
#include "plugin/hybridkv/blob/format/medium_refs.h"
#include "plugin/hybridkv/blob/io/rocksdb_compat.h"
#include "rocksdb/cache.h"
#include "rocksdb/db.h"
#include "rocksdb/merge_operator.h"
#include "rocksdb/metadata.h"
#include "rocksdb/slice_transform.h"
#include "rocksdb/table_properties.h"
#include "rocksdb/write_batch.h"
#include "test_util.h"
#include "utilities/merge_operators.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

using Model = std::map<std::string, std::string>;

struct ModelConfig {
  const char* name;
  int merge_level;
  ClassifyBy classify_by;
  // BlobDB GC: off, on by garbage (HybridKV's policy, which switches it during
  // the run), or always on (stock: relocates in every compaction).
  enum Gc { kNoGc, kGcByGarbage, kGcAlways } blob_gc;
  // Scan prefetch: 0 off, else scan_prefetch_max. With a blob cache, BlobDB's
  // values are prefetched too (medium values go to the block cache).
  uint32_t scan_prefetch_max = 16;
  bool blob_cache = true;
  // A 10-byte prefix extractor (10 main keys per prefix), and scans with
  // prefix_same_as_start.
  bool prefix = false;
  // max_bytes_for_level_base. merge_level=auto turns from -1 to -2 once the
  // last level holds about four times this: the auto configuration lowers it
  // so that its switch happens within the run.
  uint64_t level_base = 64 << 10;
  // Two db_paths: flushes and medium files in a small first one, larger
  // levels' SSTs in the second.
  bool two_paths = false;
};

std::ostream& operator<<(std::ostream& os, const ModelConfig& c) {
  return os << c.name;
}

using test::EnvU64;

// Every key of the model has 11 bytes, so that classify_by=ratio (key/(key +
// value) > 0.2 small, <= 0.02 large) sorts values of < 44 bytes as small and
// of >= 539 bytes as large.
std::string MainKey(uint64_t i) {
  char buf[16];
  snprintf(buf, sizeof(buf), "key%08llu", static_cast<unsigned long long>(i));
  return buf;
}
// Keys used only with the Put-then-SingleDelete cycle SingleDelete requires.
// They sort after every main key, so DeleteRange over main keys never covers
// them.
std::string SdKey(uint64_t i) {
  char buf[16];
  snprintf(buf, sizeof(buf), "sdk%08llu", static_cast<unsigned long long>(i));
  return buf;
}

// Records the stored pointer bytes (kTypeBlobIndex with the pointer tag) of
// every key the DB's flushes and compactions write, as any user's collector
// may: the model then Puts a key's own stored pointer as its value.
class StoredPointers {
 public:
  void Note(const Slice& key, const Slice& value) {
    std::lock_guard<std::mutex> lock(mu_);
    seen_[key.ToString()] = value.ToString();
  }
  bool Find(const std::string& key, std::string* stored) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = seen_.find(key);
    if (it == seen_.end()) return false;
    *stored = it->second;
    return true;
  }

 private:
  std::mutex mu_;
  std::map<std::string, std::string> seen_;
};

class StoredPointerCollectorFactory : public TablePropertiesCollectorFactory {
 public:
  explicit StoredPointerCollectorFactory(std::shared_ptr<StoredPointers> seen)
      : seen_(std::move(seen)) {}
  const char* Name() const override { return "StoredPointerCollector"; }
  TablePropertiesCollector* CreateTablePropertiesCollector(
      TablePropertiesCollectorFactory::Context /*context*/) override {
    return new Collector(seen_);
  }

 private:
  class Collector : public TablePropertiesCollector {
   public:
    explicit Collector(std::shared_ptr<StoredPointers> seen)
        : seen_(std::move(seen)) {}
    const char* Name() const override { return "StoredPointerCollector"; }
    Status AddUserKey(const Slice& key, const Slice& value, EntryType type,
                      SequenceNumber /*seq*/, uint64_t /*file_size*/) override {
      if (type == kEntryBlobIndex && MayBeMediumPointer(value)) {
        seen_->Note(key, value);
      }
      return Status::OK();
    }
    Status Finish(UserCollectedProperties* /*properties*/) override {
      return Status::OK();
    }
    UserCollectedProperties GetReadableProperties() const override {
      return {};
    }

   private:
    std::shared_ptr<StoredPointers> seen_;
  };
  std::shared_ptr<StoredPointers> seen_;
};

class ModelRun {
 public:
  ModelRun(const ModelConfig& config, uint64_t seed, const std::string& path)
      : config_(config),
        seed_(seed),
        rng_(seed),
        path_(path),
        medium_dir_(config.two_paths ? path + "/first" : path) {}

  ~ModelRun() { CloseDb(); }

  // Runs `ops` operations; returns an empty string, or what failed with the
  // seed and the last operations.
  std::string Run(uint64_t ops) {
    Status s = OpenDb(/*create=*/true);
    if (!s.ok()) return Report("open: " + s.ToString());
    for (op_ = 0; op_ < ops && failure_.empty(); ++op_) {
      Step();
      if (failure_.empty() && op_ % 500 == 499) CheckScan(nullptr, model_);
    }
    if (failure_.empty()) FinalCheck();
    if (failure_.empty()) CheckAutoMergeLevelMoved();
    return failure_.empty() ? "" : Report(failure_);
  }

 private:
  Options MakeOptions() {
    Options options;
    options.create_if_missing = true;
    options.merge_operator = MergeOperators::CreateStringAppendOperator(',');
    HybridOptions hybrid;
    hybrid.table.merge_level = config_.merge_level;
    hybrid.table.classify_by = config_.classify_by;
    hybrid.enable_blob_garbage_collection =
        config_.blob_gc != ModelConfig::kNoGc;
    hybrid.blob_garbage_collection_min_garbage_ratio =
        config_.blob_gc == ModelConfig::kGcAlways ? 0 : 0.2;
    hybrid.blob_garbage_collection_age_cutoff = 0.5;
    hybrid.table.scan_prefetch = config_.scan_prefetch_max > 0;
    hybrid.table.scan_prefetch_max =
        std::max<uint32_t>(config_.scan_prefetch_max, 1);
    Status s = ConfigureOptions(&options, hybrid);
    if (!s.ok()) Fail("ConfigureOptions: " + s.ToString());
    // A small, busy LSM: frequent flushes and several populated levels.
    options.num_levels = kNumLevels;
    options.write_buffer_size = 48 << 10;
    options.target_file_size_base = 32 << 10;
    options.max_bytes_for_level_base = config_.level_base;
    options.max_bytes_for_level_multiplier = 2;
    options.level0_file_num_compaction_trigger = 2;
    options.blob_file_size = 64 << 10;
    options.max_background_jobs = 2;
    // Static level sizing for the ratio configurations: L1..L3 then hold
    // files too, and pointers travel through them.
    options.level_compaction_dynamic_level_bytes =
        config_.classify_by == ClassifyBy::kSize;
    if (config_.blob_cache) {
      // Small, so that prefetched values are also evicted before use.
      options.blob_cache = NewLRUCache(256 << 10);
    }
    if (config_.prefix) {
      options.prefix_extractor.reset(NewFixedPrefixTransform(10));
    }
    options.table_properties_collector_factories.push_back(
        std::make_shared<StoredPointerCollectorFactory>(stored_pointers_));
    if (config_.two_paths) {
      options.db_paths = {DbPath(medium_dir_, config_.level_base / 2),
                          DbPath(path_ + "/second", uint64_t{1} << 40)};
    }
    return options;
  }

  Status OpenDb(bool create) {
    Options options = MakeOptions();
    options.create_if_missing = create;
    DB* raw = nullptr;
    Status s = hybridkv::OpenDB(options, path_, &raw);
    db_.reset(raw);
    return s;
  }

  void CloseDb() {
    if (db_ == nullptr) return;
    for (auto& snap : snapshots_) db_->ReleaseSnapshot(snap.first);
    snapshots_.clear();
    Status s = db_->Close();
    if (!s.ok()) Fail("Close: " + s.ToString());
    db_.reset();
  }

  void Fail(const std::string& what) {
    if (failure_.empty()) failure_ = what;
  }

  void Note(const std::string& what) {
    history_.push_back("#" + std::to_string(op_) + " " + what);
    if (history_.size() > 40) history_.pop_front();
  }

  std::string Report(const std::string& what) const {
    std::ostringstream os;
    os << "config=" << config_.name << " seed=" << seed_ << " op=" << op_
       << "\n  " << what << "\n  reproduce: HYBRIDKV_SEED=" << seed_
       << " hybridkv_tests --gtest_filter='*ModelTest*'\n  last operations:";
    for (const auto& h : history_) os << "\n    " << h;
    return os.str();
  }

  uint64_t Uniform(uint64_t n) { return rng_() % n; }

  std::string PickMainKey() { return MainKey(Uniform(kMainKeys)); }

  // A value of a random class, unique to this write. Some imitate a medium
  // pointer: the right tag and shape, a MAC under a guessed secret; others
  // are the key's own stored pointer, as a collector saw it, which must read
  // back as those bytes.
  std::string NewValue(const std::string& key) {
    const uint64_t pick = Uniform(100);
    std::string stored;
    if (pick < 2 && stored_pointers_->Find(key, &stored)) {
      return stored;
    }
    if (pick < 3) {
      MediumPointer p;
      p.file_number = 1 + Uniform(64);
      p.handle.offset = 16 + Uniform(1 << 16);
      p.handle.size = static_cast<uint32_t>(100 + Uniform(400));
      std::string forged;
      EncodeMediumPointer(SipKey{rng_(), rng_()}, p, key, &forged);
      return forged;
    }
    size_t size;
    if (pick < 30) {
      size = 1 + Uniform(40);  // small
    } else if (pick < 75) {
      size = 100 + Uniform(420);  // medium under both rules
    } else if (pick < 85) {
      static const size_t kEdges[] = {43, 44, 95, 96, 538, 539, 999, 1000};
      size = kEdges[Uniform(8)];  // class boundaries
    } else {
      size = 1000 + Uniform(2500);  // large: BlobDB
    }
    std::string v = "v" + std::to_string(++writes_) + ":";
    while (v.size() < size) v.push_back(static_cast<char>('a' + Uniform(26)));
    v.resize(size);
    return v;
  }

  void Step() {
    const uint64_t r = Uniform(1000);
    if (r < 300) {
      DoPut();
    } else if (r < 360) {
      const std::string k = PickMainKey();
      Note("Delete " + k);
      Check(db_->Delete(WriteOptions(), k), "Delete");
      model_.erase(k);
    } else if (r < 420) {
      DoSingleDeleteCycle();
    } else if (r < 440) {
      DoDeleteRange();
    } else if (r < 540) {
      DoMerge();
    } else if (r < 570) {
      DoWriteBatch();
    } else if (r < 680) {
      DoGet(nullptr, model_);
    } else if (r < 730) {
      DoMultiGet(nullptr, model_);
    } else if (r < 800) {
      DoIterate(nullptr, model_);
    } else if (r < 830) {
      if (snapshots_.size() < 4) {
        Note("GetSnapshot");
        snapshots_.emplace_back(db_->GetSnapshot(), model_);
      }
    } else if (r < 845) {
      if (!snapshots_.empty()) {
        const size_t i = Uniform(snapshots_.size());
        Note("ReleaseSnapshot " + std::to_string(i));
        db_->ReleaseSnapshot(snapshots_[i].first);
        snapshots_.erase(snapshots_.begin() + i);
      }
    } else if (r < 920) {
      if (!snapshots_.empty()) {
        const auto& snap = snapshots_[Uniform(snapshots_.size())];
        switch (Uniform(3)) {
          case 0:
            DoGet(snap.first, snap.second);
            break;
          case 1:
            DoMultiGet(snap.first, snap.second);
            break;
          default:
            DoIterate(snap.first, snap.second);
        }
      }
    } else if (r < 960) {
      Note("Flush");
      Check(db_->Flush(FlushOptions()), "Flush");
    } else if (r < 975) {
      DoCompactRange();
    } else if (r < 992) {
      DoCompactFiles();
    } else {
      Note("Reopen");
      CloseDb();
      Status s = OpenDb(/*create=*/false);
      if (!s.ok()) Fail("reopen: " + s.ToString());
    }
  }

  void Check(const Status& s, const char* what) {
    if (!s.ok()) Fail(std::string(what) + ": " + s.ToString());
  }

  void DoPut() {
    const std::string k = PickMainKey();
    std::string v = NewValue(k);
    Note("Put " + k + " size=" + std::to_string(v.size()));
    Check(db_->Put(WriteOptions(), k, v), "Put");
    model_[k] = std::move(v);
  }

  void DoSingleDeleteCycle() {
    const uint64_t i = Uniform(kSdKeys);
    const std::string k = SdKey(i);
    if (model_.count(k) == 0) {
      std::string v = NewValue(k);
      Note("Put(sd) " + k + " size=" + std::to_string(v.size()));
      Check(db_->Put(WriteOptions(), k, v), "Put");
      model_[k] = std::move(v);
    } else {
      Note("SingleDelete " + k);
      Check(db_->SingleDelete(WriteOptions(), k), "SingleDelete");
      model_.erase(k);
    }
  }

  void DoDeleteRange() {
    uint64_t a = Uniform(kMainKeys), b = a + 1 + Uniform(40);
    const std::string lo = MainKey(a), hi = MainKey(b);
    Note("DeleteRange [" + lo + ", " + hi + ")");
    Check(db_->DeleteRange(WriteOptions(), db_->DefaultColumnFamily(), lo, hi),
          "DeleteRange");
    model_.erase(model_.lower_bound(lo), model_.lower_bound(hi));
  }

  void DoMerge() {
    const std::string k = PickMainKey();
    // Operands of every class, so that merge results grow across classes.
    std::string operand = NewValue(k);
    if (operand.size() > 600) operand.resize(600);
    Note("Merge " + k + " size=" + std::to_string(operand.size()));
    Check(db_->Merge(WriteOptions(), k, operand), "Merge");
    auto it = model_.find(k);
    if (it == model_.end()) {
      model_[k] = operand;
    } else {
      it->second += "," + operand;
      // Keep merge chains bounded: overwrite long results.
      if (it->second.size() > 8000) {
        std::string v = NewValue(k);
        Note("Put(cap) " + k + " size=" + std::to_string(v.size()));
        Check(db_->Put(WriteOptions(), k, v), "Put");
        it->second = std::move(v);
      }
    }
  }

  void DoWriteBatch() {
    WriteBatch batch;
    Model next = model_;
    const uint64_t n = 2 + Uniform(8);
    std::string desc = "WriteBatch";
    for (uint64_t j = 0; j < n; ++j) {
      const std::string k = PickMainKey();
      if (Uniform(4) == 0) {
        Check(batch.Delete(k), "batch.Delete");
        next.erase(k);
        desc += " D:" + k;
      } else {
        std::string v = NewValue(k);
        Check(batch.Put(k, v), "batch.Put");
        desc += " P:" + k + "/" + std::to_string(v.size());
        next[k] = std::move(v);
      }
    }
    Note(desc);
    Check(db_->Write(WriteOptions(), &batch), "Write");
    model_.swap(next);
  }

  static ReadOptions At(const Snapshot* snap) {
    ReadOptions ro;
    ro.snapshot = snap;
    return ro;
  }

  std::string Where(const Snapshot* snap) const {
    return snap == nullptr ? "" : " @snapshot";
  }

  void DoGet(const Snapshot* snap, const Model& model) {
    const std::string k =
        Uniform(6) == 0 ? SdKey(Uniform(kSdKeys)) : PickMainKey();
    Note("Get " + k + Where(snap));
    std::string v;
    Status s = db_->Get(At(snap), k, &v);
    auto it = model.find(k);
    if (it == model.end()) {
      if (!s.IsNotFound()) {
        Fail("Get " + k + Where(snap) + ": expected NotFound, got " +
             s.ToString() +
             (s.ok() ? " value size " + std::to_string(v.size()) : ""));
      }
    } else if (!s.ok()) {
      Fail("Get " + k + Where(snap) + ": " + s.ToString());
    } else if (v != it->second) {
      Fail("Get " + k + Where(snap) + ": wrong value (size " +
           std::to_string(v.size()) + ", expected " +
           std::to_string(it->second.size()) + ")");
    }
  }

  void DoMultiGet(const Snapshot* snap, const Model& model) {
    const size_t n = 1 + Uniform(16);
    std::vector<std::string> keys;
    for (size_t j = 0; j < n; ++j) keys.push_back(PickMainKey());
    if (Uniform(2) == 0) std::sort(keys.begin(), keys.end());
    Note("MultiGet " + std::to_string(n) + " keys" + Where(snap));
    std::vector<Slice> slices(keys.begin(), keys.end());
    std::vector<PinnableSlice> values(n);
    std::vector<Status> statuses(n);
    db_->MultiGet(At(snap), db_->DefaultColumnFamily(), n, slices.data(),
                  values.data(), statuses.data());
    for (size_t j = 0; j < n; ++j) {
      auto it = model.find(keys[j]);
      if (it == model.end()) {
        if (!statuses[j].IsNotFound()) {
          Fail("MultiGet " + keys[j] + Where(snap) + ": expected NotFound, " +
               statuses[j].ToString());
        }
      } else if (!statuses[j].ok()) {
        Fail("MultiGet " + keys[j] + Where(snap) + ": " +
             statuses[j].ToString());
      } else if (values[j].ToString() != it->second) {
        Fail("MultiGet " + keys[j] + Where(snap) + ": wrong value");
      }
    }
  }

  // Random bounds, a random start, then a walk with direction changes,
  // mirrored on the model.
  void DoIterate(const Snapshot* snap, const Model& model) {
    if (config_.prefix && Uniform(2) == 0) {
      DoPrefixScan(snap, model);
      return;
    }
    ReadOptions ro = At(snap);
    std::string lo, hi;
    Slice lo_slice, hi_slice;
    if (Uniform(2) == 0) {
      lo = MainKey(Uniform(kMainKeys));
      lo_slice = lo;
      ro.iterate_lower_bound = &lo_slice;
    }
    if (Uniform(2) == 0) {
      hi = Uniform(4) == 0 ? SdKey(Uniform(kSdKeys))
                           : MainKey(Uniform(kMainKeys));
      if (!lo.empty() && hi < lo) std::swap(lo, hi), lo_slice = lo;
      hi_slice = hi;
      ro.iterate_upper_bound = &hi_slice;
    }
    ro.allow_unprepared_value = Uniform(2) == 0;
    auto in_bounds_begin = [&] {
      return lo.empty() ? model.begin() : model.lower_bound(lo);
    };
    auto in_bounds_end = [&] {
      return hi.empty() ? model.end() : model.lower_bound(hi);
    };
    std::unique_ptr<Iterator> it(db_->NewIterator(ro));
    Model::const_iterator m;
    const uint64_t start = Uniform(4);
    std::string desc = "Iterate [" + lo + ", " + hi + ")" + Where(snap);
    std::string target = PickMainKey();
    switch (start) {
      case 0:
        it->SeekToFirst();
        m = in_bounds_begin();
        if (m == in_bounds_end()) m = model.end();
        desc += " SeekToFirst";
        break;
      case 1:
        it->SeekToLast();
        m = in_bounds_end();
        m = (m == in_bounds_begin()) ? model.end() : std::prev(m);
        desc += " SeekToLast";
        break;
      case 2: {
        it->Seek(target);
        m = model.lower_bound(std::max(target, lo));
        if (m != model.end() && !hi.empty() && m->first >= hi) m = model.end();
        desc += " Seek " + target;
        break;
      }
      default: {
        it->SeekForPrev(target);
        if (!hi.empty() && target >= hi) {
          m = in_bounds_end();
        } else {
          m = model.upper_bound(target);
        }
        if (!lo.empty() && target < lo) {
          m = model.end();
        } else {
          m = (m == in_bounds_begin()) ? model.end() : std::prev(m);
        }
        desc += " SeekForPrev " + target;
      }
    }
    const uint64_t steps = Uniform(60);
    desc += " steps=" + std::to_string(steps);
    Note(desc);
    const auto begin = in_bounds_begin();
    const auto end = in_bounds_end();
    for (uint64_t step = 0;; ++step) {
      const bool model_valid = m != model.end();
      if (it->Valid() != model_valid) {
        Fail(desc + ": step " + std::to_string(step) +
             " Valid()=" + std::to_string(it->Valid()) + ", model " +
             (model_valid ? "at " + m->first : "exhausted") + ", status " +
             it->status().ToString());
        return;
      }
      if (!model_valid) break;
      if (it->key().ToString() != m->first) {
        Fail(desc + ": step " + std::to_string(step) + " key " +
             it->key().ToString() + ", expected " + m->first);
        return;
      }
      if (ro.allow_unprepared_value && !it->PrepareValue()) {
        Fail(desc + ": PrepareValue: " + it->status().ToString());
        return;
      }
      if (it->value().ToString() != m->second) {
        Fail(desc + ": step " + std::to_string(step) + " wrong value of " +
             m->first);
        return;
      }
      if (step >= steps) break;
      if (Uniform(5) == 0) {
        it->Prev();
        m = (m == begin) ? model.end() : std::prev(m);
      } else {
        it->Next();
        ++m;
        if (m == end) m = model.end();
      }
    }
    if (!it->status().ok()) Fail(desc + ": status " + it->status().ToString());
  }

  void DoCompactRange() {
    CompactRangeOptions cro;
    if (Uniform(3) == 0) {
      cro.bottommost_level_compaction = BottommostLevelCompaction::kForce;
    }
    if (Uniform(2) == 0) {
      Note("CompactRange all");
      Check(db_->CompactRange(cro, nullptr, nullptr), "CompactRange");
    } else {
      uint64_t a = Uniform(kMainKeys), b = a + Uniform(300);
      std::string lo = MainKey(a), hi = MainKey(b);
      Slice l(lo), h(hi);
      Note("CompactRange [" + lo + ", " + hi + "]");
      Check(db_->CompactRange(cro, &l, &h), "CompactRange");
    }
  }

  void DoCompactFiles() {
    ColumnFamilyMetaData meta;
    db_->GetColumnFamilyMetaData(&meta);
    std::vector<const LevelMetaData*> levels;
    for (const auto& level : meta.levels) {
      if (!level.files.empty()) levels.push_back(&level);
    }
    if (levels.empty()) return;
    const LevelMetaData& level = *levels[Uniform(levels.size())];
    std::vector<std::string> names;
    const size_t n = 1 + Uniform(std::min<size_t>(3, level.files.size()));
    for (size_t j = 0; j < n; ++j) {
      names.push_back(level.files[Uniform(level.files.size())].name);
    }
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    const int output = std::min(level.level + static_cast<int>(Uniform(2)),
                                static_cast<int>(meta.levels.size()) - 1);
    Note("CompactFiles " + std::to_string(names.size()) + " files L" +
         std::to_string(level.level) + " -> L" + std::to_string(output));
    Status s = db_->CompactFiles(CompactionOptions(), names, output);
    // A file that a background compaction took meanwhile, or an input set
    // RocksDB refuses, is not a failure; data errors are.
    if (s.IsCorruption() || s.IsIOError())
      Fail("CompactFiles: " + s.ToString());
  }

  void CheckScan(const Snapshot* snap, const Model& model) {
    Note("Scan" + Where(snap));
    auto scanned = test::ScanAll(db_.get(), nullptr, snap);
    std::vector<std::pair<std::string, std::string>> expected(model.begin(),
                                                              model.end());
    if (scanned == expected) return;
    size_t j = 0;
    while (j < scanned.size() && j < expected.size() &&
           scanned[j] == expected[j]) {
      ++j;
    }
    Fail("full scan" + Where(snap) + " differs at entry " + std::to_string(j) +
         ": db " +
         (j < scanned.size() ? scanned[j].first : std::string("<end>")) +
         ", model " +
         (j < expected.size() ? expected[j].first : std::string("<end>")));
  }

  // The medium files the live SSTs reference.
  std::set<uint64_t> ReferencedMediumFiles() {
    TablePropertiesCollection props;
    Check(db_->GetPropertiesOfAllTables(&props), "GetPropertiesOfAllTables");
    std::set<uint64_t> out;
    for (const auto& [file, p] : props) {
      MediumRefs refs;
      bool known = false;
      Check(GetMediumRefs(*p, &refs, &known), "GetMediumRefs");
      for (const auto& ref : refs) out.insert(ref.first);
    }
    return out;
  }

  void FinalCheck() {
    for (const auto& snap : snapshots_) {
      CheckScan(snap.first, snap.second);
    }
    CheckScan(nullptr, model_);
    Note("VerifyChecksum");
    Check(db_->VerifyChecksum(), "VerifyChecksum");
    HybridStatistics stats;
    Check(GetStatistics(db_.get(), &stats), "GetStatistics");
    ColumnFamilyMetaData meta;
    db_->GetColumnFamilyMetaData(&meta);
    std::string shape;
    for (const auto& level : meta.levels) {
      shape += " L" + std::to_string(level.level) + "=" +
               std::to_string(level.files.size());
    }
    std::cout << "[ModelTest] " << config_.name << " seed=" << seed_
              << " ops=" << op_
              << " extracted=" << stats.medium_values_extracted
              << " kept=" << stats.pointers_kept
              << " inlined=" << stats.medium_values_inlined
              << " resolved=" << stats.medium_values_resolved
              << " large=" << stats.large_values_flushed << " files:" << shape
              << "\n";
    // Reopen, then a full compaction: every value written back inline, every
    // medium file deleted, and the same contents.
    Note("Reopen + full compaction");
    CloseDb();
    Check(OpenDb(/*create=*/false), "reopen");
    if (!failure_.empty()) return;
    CheckScan(nullptr, model_);
    // Files referenced by live SSTs exist, before and after the compaction.
    // Background work is paused while the two are read: a compaction the
    // reopen scheduled could otherwise drop the last SST that references a
    // file, and rightly delete it, between the two reads.
    Check(db_->PauseBackgroundWork(), "PauseBackgroundWork");
    auto referenced = ReferencedMediumFiles();
    auto on_disk = test::MediumFileNumbers(medium_dir_);
    Check(db_->ContinueBackgroundWork(), "ContinueBackgroundWork");
    for (uint64_t m : referenced) {
      if (on_disk.count(m) == 0) {
        Fail("medium file " + std::to_string(m) + " is referenced but missing");
      }
    }
    CompactRangeOptions cro;
    cro.bottommost_level_compaction = BottommostLevelCompaction::kForce;
    // RocksDB's compactions write below L0 in the second path (the first is
    // smaller than L1); a manual one where it is told.
    cro.target_path_id = config_.two_paths ? 1 : 0;
    Check(db_->CompactRange(cro, nullptr, nullptr), "CompactRange");
    if (config_.two_paths &&
        test::FilesWithSuffix(path_ + "/second", ".sst").empty()) {
      Fail("no SST in the second path after a full compaction: the run "
           "tested one path");
    }
    CheckScan(nullptr, model_);
    Check(db_->VerifyChecksum(), "VerifyChecksum after compaction");
    // No medium file is orphaned: once nothing references them, they go.
    std::set<uint64_t> orphans;
    for (int tries = 0; tries < 100; ++tries) {
      referenced = ReferencedMediumFiles();
      orphans.clear();
      for (uint64_t m : test::MediumFileNumbers(medium_dir_)) {
        if (referenced.count(m) == 0) orphans.insert(m);
      }
      if (orphans.empty()) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    if (!orphans.empty()) {
      Fail(std::to_string(orphans.size()) +
           " medium files left that no live SST references, e.g. " +
           std::to_string(*orphans.begin()));
    }
  }

  // With merge_level=auto, the run must have seen both of its levels (the
  // builder logs each change): else the configuration tested only one fixed
  // level, which others test already.
  void CheckAutoMergeLevelMoved() {
    if (config_.merge_level != kAutoMergeLevel) return;
    const std::set<std::string> levels = test::AutoMergeLevelsLogged(path_);
    const int deepest = kNumLevels - 1;
    for (int level : {deepest, deepest - 1}) {
      const std::string name = "L" + std::to_string(level);
      if (levels.count(name) == 0) {
        Fail("merge_level=auto never resolved to " + name + " (the LOG names " +
             std::to_string(levels.size()) +
             " level(s)): grow the run or lower its level_base");
      }
    }
  }

  static constexpr int kNumLevels = 5;
  static constexpr uint64_t kMainKeys = 600;
  static constexpr uint64_t kSdKeys = 60;

  const ModelConfig config_;
  const uint64_t seed_;
  std::mt19937_64 rng_;
  const std::string path_;
  const std::string medium_dir_;  // the first path: flushes and medium files
  std::unique_ptr<DB> db_;
  Model model_;
  std::vector<std::pair<const Snapshot*, Model>> snapshots_;
  const std::shared_ptr<StoredPointers> stored_pointers_ =
      std::make_shared<StoredPointers>();
  // Seek with prefix_same_as_start, then Next to the end of the prefix.
  void DoPrefixScan(const Snapshot* snap, const Model& model) {
    ReadOptions ro = At(snap);
    ro.prefix_same_as_start = true;
    ro.allow_unprepared_value = Uniform(2) == 0;
    const std::string target = PickMainKey();
    const std::string prefix = target.substr(0, 10);
    const std::string desc = "PrefixScan " + target + Where(snap);
    Note(desc);
    std::unique_ptr<Iterator> it(db_->NewIterator(ro));
    auto m = model.lower_bound(target);
    size_t step = 0;
    for (it->Seek(target);; it->Next(), ++m, ++step) {
      const bool model_valid =
          m != model.end() && m->first.compare(0, 10, prefix) == 0;
      if (it->Valid() != model_valid) {
        Fail(desc + ": step " + std::to_string(step) +
             " Valid()=" + std::to_string(it->Valid()) + ", status " +
             it->status().ToString());
        return;
      }
      if (!model_valid) break;
      if (it->key().ToString() != m->first ||
          (ro.allow_unprepared_value && !it->PrepareValue()) ||
          it->value().ToString() != m->second) {
        Fail(desc + ": step " + std::to_string(step) + " wrong entry " +
             it->key().ToString() + ", expected " + m->first);
        return;
      }
    }
    if (!it->status().ok()) Fail(desc + ": status " + it->status().ToString());
  }

  std::deque<std::string> history_;
  std::string failure_;
  uint64_t op_ = 0;
  uint64_t writes_ = 0;
};

class ModelTest : public testing::TestWithParam<ModelConfig> {};

TEST_P(ModelTest, RandomOperationsMatchTheModel) {
  const ModelConfig& config = GetParam();
  const uint64_t ops = EnvU64("HYBRIDKV_MODEL_OPS", 3000);
  const bool long_mode = EnvU64("HYBRIDKV_LONG", 0) != 0;
  // A fixed seed per configuration unless one is given: CI runs are
  // reproducible.
  uint64_t seed = EnvU64("HYBRIDKV_SEED", 0);
  if (seed == 0) {
    seed = 1000003;
    for (const char* c = config.name; *c != '\0'; ++c) seed = seed * 31 + *c;
  }
  const auto deadline =
      std::chrono::steady_clock::now() +
      std::chrono::seconds(EnvU64("HYBRIDKV_LONG_SECONDS", 600) / 12);
  uint64_t runs = 0;
  do {
    test::ScratchDir dir(std::string("model-") + config.name);
    std::string failure;
    {
      ModelRun run(config, seed, dir.path());
      failure = run.Run(long_mode ? 20000 : ops);
    }
    ASSERT_TRUE(failure.empty()) << failure;
    ++runs;
    seed = std::random_device()() * 4294967296ull + std::random_device()();
  } while (long_mode && std::chrono::steady_clock::now() < deadline);
  std::cout << "[ModelTest] " << config.name << ": " << runs
            << " run(s) passed\n";
}

INSTANTIATE_TEST_SUITE_P(
    Configs, ModelTest,
    testing::Values(
        ModelConfig{"ml1_size_gcalways", 1, ClassifyBy::kSize,
                    ModelConfig::kGcAlways},
        ModelConfig{"ml1_ratio_nogc", 1, ClassifyBy::kRatio,
                    ModelConfig::kNoGc},
        ModelConfig{"mlm1_size_nogc", -1, ClassifyBy::kSize,
                    ModelConfig::kNoGc},
        ModelConfig{"mlm1_ratio_gc", -1, ClassifyBy::kRatio,
                    ModelConfig::kGcByGarbage},
        ModelConfig{"mlm2_size_gc", -2, ClassifyBy::kSize,
                    ModelConfig::kGcByGarbage},
        ModelConfig{"mlm2_size_nogc", -2, ClassifyBy::kSize,
                    ModelConfig::kNoGc},
        ModelConfig{"mlm2_ratio_gcalways", -2, ClassifyBy::kRatio,
                    ModelConfig::kGcAlways},
        ModelConfig{"mlm2_ratio_nogc", -2, ClassifyBy::kRatio,
                    ModelConfig::kNoGc},
        // Scan prefetch: off; windows of 1 and 4 entries; no
        // blob cache (medium values only); prefix scans.
        ModelConfig{"mlm1_size_gc_noprefetch", -1, ClassifyBy::kSize,
                    ModelConfig::kGcByGarbage, 0},
        ModelConfig{"mlm1_size_gc_window1", -1, ClassifyBy::kSize,
                    ModelConfig::kGcByGarbage, 1},
        ModelConfig{"mlm2_size_gc_window4_noblobcache", -2, ClassifyBy::kSize,
                    ModelConfig::kGcByGarbage, 4, false},
        ModelConfig{"mlm1_size_gcalways_prefix", -1, ClassifyBy::kSize,
                    ModelConfig::kGcAlways, 16, true, true},
        // The default, merge_level=auto: it moves from -1 to -2 as the LSM
        // deepens during the run.
        ModelConfig{"auto_size_gc", kAutoMergeLevel, ClassifyBy::kSize,
                    ModelConfig::kGcByGarbage, 16, true, false, 16 << 10},
        ModelConfig{"mlm1_size_gc_two_paths", -1, ClassifyBy::kSize,
                    ModelConfig::kGcByGarbage, 16, true, false, 64 << 10,
                    true}),
    [](const testing::TestParamInfo<ModelConfig>& p) {
      return std::string(p.param.name);
    });

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
