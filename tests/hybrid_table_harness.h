// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// HybridTable SSTs built and opened without a DB, through the factory, as
// RocksDB's flush, compaction and table cache call it: for the unit tests of
// the builder, the reader, the iterator and the factory
// (hybrid_table_*_test.cc, hybrid_iterator_test.cc).
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "db/dbformat.h"
#include "file/random_access_file_reader.h"
#include "file/writable_file_writer.h"
#include "options/cf_options.h"
#include "plugin/hybridkv/blob/format/medium_pointer.h"
#include "plugin/hybridkv/blob/format/medium_refs.h"
#include "plugin/hybridkv/blob/io/rocksdb_compat.h"
#include "plugin/hybridkv/blob/lifecycle/db_secret.h"
#include "plugin/hybridkv/blob/lifecycle/db_state.h"
#include "plugin/hybridkv/blob/lifecycle/medium_lifecycle.h"
#include "plugin/hybridkv/blob/lifecycle/sst_refs.h"
#include "plugin/hybridkv/table/compaction_pointer.h"
#include "plugin/hybridkv/table/medium_values.h"
#include "rocksdb/comparator.h"
#include "rocksdb/table.h"
#include "table/table_builder.h"
#include "table/table_reader.h"
#include "test_util.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace test {

// The keys and medium values the table-level tests write: "key<1000 + i>",
// and 200 + i bytes of one letter (medium under the default options).
inline std::string Key(int i) { return "key" + std::to_string(1000 + i); }
inline std::string Medium(int i) {
  return std::string(200 + i, static_cast<char>('a' + i % 26));
}

// One column family's options for HybridTable SSTs in `dir`: ConfigureOptions
// with `hybrid`, 7 levels with dynamic level sizing, cf_paths = {dir} as a DB
// sanitizes them. `adjust` may change the options before they are frozen into
// ImmutableOptions and MutableCFOptions.
class HybridTableHarness {
 public:
  static constexpr const char* kDbId = "hybrid-table-harness-db";
  static constexpr const char* kSession = "HARNESSSESSION000001";

  explicit HybridTableHarness(
      const std::string& dir, const HybridOptions& hybrid = HybridOptions(),
      const std::function<void(Options*)>& adjust = nullptr)
      : dir_(dir) {
    options_.num_levels = 7;
    options_.level_compaction_dynamic_level_bytes = true;
    EXPECT_OK(ConfigureOptions(&options_, hybrid));
    options_.cf_paths = {DbPath(dir, 0)};
    if (adjust) adjust(&options_);
    ioptions_.reset(new ImmutableOptions(options_));
    moptions_.reset(new MutableCFOptions(ColumnFamilyOptions(options_)));
  }

  const std::string& dir() const { return dir_; }
  const Options& options() const { return options_; }
  const ImmutableOptions& ioptions() const { return *ioptions_; }
  TableFactory* factory() const { return options_.table_factory.get(); }
  DbState* state() const { return DbStateFor(dir_); }
  std::string SstPath(uint64_t number) const {
    char name[32];
    snprintf(name, sizeof(name), "/%06llu.sst",
             static_cast<unsigned long long>(number));
    return dir_ + name;
  }

  // One SST being built.
  struct Build {
    std::string path;
    std::unique_ptr<TableBuilderOptions> tbo;
    std::unique_ptr<WritableFileWriter> file;
    std::unique_ptr<TableBuilder> builder;

    void Add(const std::string& user_key, SequenceNumber seq, ValueType type,
             const Slice& value) {
      builder->Add(InternalKey(user_key, seq, type).Encode(), value);
    }
    // Finishes the table and closes its file; the builder's status.
    Status Finish() {
      Status s = builder->Finish();
      if (s.ok()) s = file->Sync(IOOptions(), /*use_fsync=*/false);
      Status c = file->Close(IOOptions());
      return s.ok() ? c : s;
    }
  };

  // Starts SST `number` for `reason` at `level` (-1: unknown), as the DB
  // session `session` would, with `with` (default: the options' factory).
  // `target_file_size`: the compaction's output limit (0: none).
  std::unique_ptr<Build> NewBuild(uint64_t number,
                                  TableFileCreationReason reason, int level,
                                  uint64_t target_file_size = 0,
                                  const std::string& session = kSession,
                                  const TableFactory* with = nullptr) const {
    auto build = std::make_unique<Build>();
    build->path = SstPath(number);
    build->tbo.reset(new TableBuilderOptions(
        *ioptions_, *moptions_, read_options_, write_options_, icmp_,
        &collectors_, kNoCompression, compression_opts_, /*cf_id=*/0, cf_name_,
        level, /*newest_key_time=*/0, /*is_bottommost=*/false, reason,
        /*oldest_key_time=*/0, /*file_creation_time=*/0, kDbId, session,
        target_file_size, number));
    EXPECT_OK(WritableFileWriter::Create(ioptions_->fs, build->path,
                                         FileOptions(), &build->file, nullptr));
    build->builder.reset((with != nullptr ? with : factory())
                             ->NewTableBuilder(*build->tbo, build->file.get()));
    return build;
  }

  // Opens the SST at `path` through the factory, as the table cache of DB
  // session `session` opens one at `level`.
  Status Open(const std::string& path, std::unique_ptr<TableReader>* reader,
              int level = 1, const std::string& session = kSession) const {
    uint64_t size = 0;
    Status s = ioptions_->fs->GetFileSize(path, IOOptions(), &size, nullptr);
    std::unique_ptr<RandomAccessFileReader> file;
    if (s.ok()) {
      s = RandomAccessFileReader::Create(ioptions_->fs, path, FileOptions(),
                                         &file, nullptr);
    }
    if (!s.ok()) return s;
    TableReaderOptions tro = StandaloneTableReaderOptions(
        *ioptions_, no_prefix_, env_options_, icmp_);
    tro.level = level;
    tro.cur_db_session_id = session;
    return factory()->NewTableReader(tro, std::move(file), size, reader);
  }

  // The DB secret the harness's flushes MAC their pointers with.
  SipKey Secret() const {
    SipKey secret;
    EXPECT_OK(
        GetDbSecret(ioptions_->fs, dir_, kDbId, /*create=*/true, &secret));
    return secret;
  }

  const InternalKeyComparator& icmp() const { return icmp_; }

 private:
  const std::string dir_;
  Options options_;
  std::unique_ptr<ImmutableOptions> ioptions_;
  std::unique_ptr<MutableCFOptions> moptions_;
  const InternalKeyComparator icmp_{BytewiseComparator()};
  const ReadOptions read_options_;
  const WriteOptions write_options_;
  const CompressionOptions compression_opts_;
  const InternalTblPropCollFactories collectors_;
  const std::string cf_name_ = "default";
  const std::shared_ptr<const SliceTransform> no_prefix_;
  const EnvOptions env_options_;
};

// A raw entry of an SST, as a stock reader sees it.
struct RawEntry {
  std::string user_key;
  SequenceNumber seq = 0;
  ValueType type = kTypeValue;
  std::string value;
};

inline std::vector<RawEntry> RawEntries(const std::string& sst_path) {
  std::vector<RawEntry> entries;
  EXPECT_OK(ForEachRawEntry(
      FileSystem::Default(), sst_path,
      [&](const Slice& key, const Slice& value) {
        ParsedInternalKey parsed;
        EXPECT_OK(ParseInternalKey(key, &parsed, /*log_err_key=*/false));
        entries.push_back({parsed.user_key.ToString(), parsed.sequence,
                           parsed.type, value.ToString()});
      }));
  return entries;
}

// The refs property of the SST at `sst_path`; `*known` as GetMediumRefs
// sets it.
inline MediumRefs RefsOf(const std::string& sst_path, bool* known) {
  MediumRefs refs;
  *known = false;
  std::unique_ptr<TableProperties> props;
  Status s = ReadSstProperties(FileSystem::Default(), sst_path, &props);
  EXPECT_OK(s);
  if (s.ok()) {
    EXPECT_OK(GetMediumRefs(*props, &refs, known));
  }
  return refs;
}

}  // namespace test
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
