// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// Corruption and hostile input, each with its exact expected behaviour:
//
// - a .medium file with a flipped byte, truncated, or deleted: Get, MultiGet
//   and iterators return Corruption naming the file for the keys it holds,
//   every other key still reads, VerifyChecksum reports the file, a compaction
//   that needs it fails, and no read ever returns wrong bytes;
// - a damaged pointer inside an SST (with valid block checksums): a damaged
//   location is Corruption, a damaged MAC still reads (the record verifies
//   itself) but stops compactions with Corruption;
// - values written through Put that imitate pointers (a guessed MAC, or a
//   genuine pointer of another key) read back verbatim through flushes and
//   compactions at every level;
// - a missing HYBRIDKV-SECRET: reads work, compactions refuse with a message
//   naming the file, and restoring the file restores compactions.
//
// Malformed OPTIONS files are options_file_test.cc's.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <ostream>
#include <random>
#include <string>
#include <vector>

#include "db/dbformat.h"
#include "hybridkv/hybridkv.h"
#include "plugin/hybridkv/blob/format/medium_pointer.h"
#include "plugin/hybridkv/blob/format/medium_refs.h"
#include "plugin/hybridkv/blob/io/rocksdb_compat.h"
#include "plugin/hybridkv/blob/lifecycle/db_secret.h"
#include "plugin/hybridkv/blob/lifecycle/sst_refs.h"
#include "rocksdb/db.h"
#include "rocksdb/metadata.h"
#include "rocksdb/table.h"
#include "test_util.h"
#include "util/coding.h"
#include "util/crc32c.h"
#include "utilities/merge_operators.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

using test::ReadWholeFile;
using test::WriteWholeFile;
using Model = std::map<std::string, std::string>;

std::string Key(uint64_t i) {
  char buf[24];
  snprintf(buf, sizeof(buf), "corrupt%08llu",
           static_cast<unsigned long long>(i));
  return buf;
}

// Medium for i % 3 == 0, small for 1, large for 2.
std::string Value(uint64_t i, char fill = 'v') {
  const size_t size = i % 3 == 0 ? 200 + i % 300 : (i % 3 == 1 ? 20 : 1500);
  std::string v = std::to_string(i) + ":";
  v.resize(size, fill);
  return v;
}

bool IsMedium(uint64_t i) { return i % 3 == 0; }

// Uncompressed blocks, crc32c and format_version 5 (no context checksums), so a
// test can find a pointer's bytes in an SST and re-seal its block.
Options MakeOptions(int merge_level = -2) {
  Options options;
  options.create_if_missing = true;
  // Wrapped by ConfigureOptions; also keeps ldb from installing its own.
  options.merge_operator = MergeOperators::CreateStringAppendOperator();
  HybridOptions hybrid;
  BlockBasedTableOptions bbto;
  bbto.format_version = 5;
  bbto.checksum = kCRC32c;
  hybrid.table.inner.reset(NewBlockBasedTableFactory(bbto));
  hybrid.table.merge_level = merge_level;
  EXPECT_OK(ConfigureOptions(&options, hybrid));
  options.compression = kNoCompression;
  options.disable_auto_compactions = true;
  options.num_levels = 4;
  return options;
}

std::unique_ptr<DB> Open(const Options& options, const std::string& path) {
  DB* raw = nullptr;
  EXPECT_OK(hybridkv::OpenDB(options, path, &raw));
  return std::unique_ptr<DB>(raw);
}

// Keys [first, first + n) in one flush, so in one SST and one medium file.
void LoadAndFlush(DB* db, Model* model, uint64_t first, uint64_t n) {
  for (uint64_t i = first; i < first + n; ++i) {
    ASSERT_OK(db->Put(WriteOptions(), Key(i), Value(i)));
    (*model)[Key(i)] = Value(i);
  }
  ASSERT_OK(db->Flush(FlushOptions()));
}

// The medium file of the first flush (the smallest number).
std::string FirstMediumFile(const std::string& dir) {
  auto files = test::FilesWithSuffix(dir, ".medium");
  EXPECT_FALSE(files.empty());
  std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) {
    return std::stoull(a) < std::stoull(b);
  });
  return files.empty() ? "" : files[0];
}

enum class Damage { kFlip, kTruncate, kDelete };

// For test listings.
void PrintTo(Damage d, std::ostream* os) {
  *os << (d == Damage::kFlip       ? "flip"
          : d == Damage::kTruncate ? "truncate"
                                   : "delete");
}

class MediumFileDamageTest : public testing::TestWithParam<Damage> {};

TEST_P(MediumFileDamageTest, AffectedKeysFailNamingTheFileOthersRead) {
  const Damage damage = GetParam();
  test::ScratchDir dir("damage");
  Options options = MakeOptions();
  Model model;
  auto db = Open(options, dir.path());
  LoadAndFlush(db.get(), &model, 0, 600);    // medium file A
  LoadAndFlush(db.get(), &model, 600, 600);  // medium file B
  ASSERT_OK(db->Close());
  db.reset();
  const std::string name = FirstMediumFile(dir.path());
  const std::string path = dir.Sub(name);
  std::string bytes = ReadWholeFile(path);
  switch (damage) {
    case Damage::kFlip:
      bytes[bytes.size() / 2] ^= 0x20;
      WriteWholeFile(path, bytes);
      break;
    case Damage::kTruncate:
      bytes.resize(bytes.size() / 2);
      WriteWholeFile(path, bytes);
      break;
    case Damage::kDelete:
      std::filesystem::remove(path);
      break;
  }
  db = Open(options, dir.path());
  ASSERT_NE(db, nullptr);
  // Get: affected keys are Corruption naming the file; no wrong bytes.
  int failed = 0;
  for (const auto& [k, v] : model) {
    std::string got;
    Status s = db->Get(ReadOptions(), k, &got);
    const uint64_t i = std::stoull(k.substr(7));
    if (s.ok()) {
      ASSERT_EQ(got, v) << k;
      continue;
    }
    ASSERT_TRUE(s.IsCorruption()) << k << ": " << s.ToString();
    EXPECT_NE(s.ToString().find(name), std::string::npos) << s.ToString();
    EXPECT_TRUE(IsMedium(i) && i < 600) << k << " should not be affected";
    ++failed;
  }
  if (damage == Damage::kFlip) {
    EXPECT_EQ(failed, 1);  // the one record the flipped byte belongs to
  } else {
    EXPECT_EQ(failed, 200);  // every medium key of the first flush
  }
  // MultiGet agrees with Get.
  {
    std::vector<std::string> keys;
    for (uint64_t i = 0; i < 1200; i += 7) keys.push_back(Key(i));
    std::vector<Slice> slices(keys.begin(), keys.end());
    std::vector<PinnableSlice> values(keys.size());
    std::vector<Status> statuses(keys.size());
    db->MultiGet(ReadOptions(), db->DefaultColumnFamily(), keys.size(),
                 slices.data(), values.data(), statuses.data());
    for (size_t j = 0; j < keys.size(); ++j) {
      std::string got;
      Status s = db->Get(ReadOptions(), keys[j], &got);
      EXPECT_EQ(statuses[j].code(), s.code()) << keys[j];
      if (s.ok()) {
        EXPECT_EQ(values[j].ToString(), model[keys[j]]);
      }
    }
  }
  // A scan returns correct entries up to the first affected key, then stops
  // with Corruption naming the file.
  {
    std::unique_ptr<Iterator> it(db->NewIterator(ReadOptions()));
    auto m = model.begin();
    for (it->SeekToFirst(); it->Valid(); it->Next(), ++m) {
      ASSERT_EQ(it->key().ToString(), m->first);
      ASSERT_EQ(it->value().ToString(), m->second);
    }
    EXPECT_TRUE(it->status().IsCorruption()) << it->status().ToString();
    EXPECT_NE(it->status().ToString().find(name), std::string::npos);
    // Keys after the damaged file's range still scan.
    it->Seek(Key(600));
    int n = 0;
    for (; it->Valid(); it->Next()) {
      ASSERT_EQ(it->value().ToString(), model[it->key().ToString()]);
      ++n;
    }
    ASSERT_OK(it->status());
    EXPECT_EQ(n, 600);
  }
  Status s = db->VerifyChecksum();
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find(name), std::string::npos) << s.ToString();
  // A merge-level compaction needs the file: it fails, and reads stay right.
  CompactRangeOptions cro;
  cro.bottommost_level_compaction = BottommostLevelCompaction::kForce;
  s = db->CompactRange(cro, nullptr, nullptr);
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  for (uint64_t i = 600; i < 1200; ++i) {
    std::string got;
    ASSERT_OK(db->Get(ReadOptions(), Key(i), &got));
    ASSERT_EQ(got, Value(i));
  }
}

INSTANTIATE_TEST_SUITE_P(Damages, MediumFileDamageTest,
                         testing::Values(Damage::kFlip, Damage::kTruncate,
                                         Damage::kDelete),
                         [](const testing::TestParamInfo<Damage>& p) {
                           switch (p.param) {
                             case Damage::kFlip:
                               return "Flip";
                             case Damage::kTruncate:
                               return "Truncate";
                             default:
                               return "Delete";
                           }
                         });

// The first pointer entry of `sst`: its user key and pointer bytes.
bool FirstPointer(const std::string& sst, std::string* user_key,
                  std::string* pointer) {
  bool found = false;
  EXPECT_OK(ForEachRawEntry(FileSystem::Default(), sst,
                            [&](const Slice& key, const Slice& value) {
                              if (found) return;
                              if (ExtractValueType(key) == kTypeBlobIndex &&
                                  MayBeMediumPointer(value)) {
                                *user_key = ExtractUserKey(key).ToString();
                                *pointer = value.ToString();
                                found = true;
                              }
                            }));
  return found;
}

// Replaces byte `offset` of the SST at `path` with `byte`, and re-seals the
// block holding it (crc32c, format_version < 6): block checksums pass, only
// the pointer is wrong.
void PatchSstByte(const std::string& path, size_t offset, char byte) {
  std::string file = ReadWholeFile(path);
  size_t start = 0;
  // Blocks follow each other from offset 0, each with a 5-byte trailer: type
  // and masked crc32c of contents + type. Find each block's end by its crc.
  while (true) {
    uint32_t crc = 0;
    size_t end = start;
    bool sealed = false;
    for (; end + 5 <= file.size(); ++end) {
      const uint32_t with_type = crc32c::Extend(crc, file.data() + end, 1);
      if (crc32c::Mask(with_type) == DecodeFixed32(file.data() + end + 1)) {
        sealed = true;
        break;
      }
      crc = crc32c::Extend(crc, file.data() + end, 1);
    }
    ASSERT_TRUE(sealed) << "no block boundary after " << start;
    if (offset < end) {
      ASSERT_GE(offset, start);
      file[offset] = byte;
      uint32_t c = crc32c::Value(file.data() + start, end - start);
      c = crc32c::Extend(c, file.data() + end, 1);
      EncodeFixed32(&file[end + 1], crc32c::Mask(c));
      WriteWholeFile(path, file);
      return;
    }
    start = end + 5;
  }
}

class PointerInSstTest : public testing::TestWithParam<bool> {};

// GetParam(): damage the MAC (true) or the record offset (false).
TEST_P(PointerInSstTest, DamagedPointerIsNeverWrongData) {
  const bool damage_mac = GetParam();
  test::ScratchDir dir("pointer-in-sst");
  Options options = MakeOptions();
  Model model;
  auto db = Open(options, dir.path());
  LoadAndFlush(db.get(), &model, 0, 300);
  ColumnFamilyMetaData meta;
  db->GetColumnFamilyMetaData(&meta);
  ASSERT_EQ(meta.levels[0].files.size(), 1u);
  const std::string sst =
      meta.levels[0].files[0].directory + "/" + meta.levels[0].files[0].name;
  ASSERT_OK(db->Close());
  db.reset();
  std::string user_key, pointer;
  ASSERT_TRUE(FirstPointer(sst, &user_key, &pointer));
  std::string file = ReadWholeFile(sst);
  const size_t at = file.find(pointer);
  ASSERT_NE(at, std::string::npos);
  ASSERT_EQ(file.find(pointer, at + 1), std::string::npos);
  // tag, file number (1 byte), offset varint...; the MAC is the last 8 bytes.
  const size_t victim = damage_mac ? at + pointer.size() - 3 : at + 2;
  PatchSstByte(sst, victim, static_cast<char>(file[victim] ^ 0x04));

  db = Open(options, dir.path());
  for (const auto& [k, v] : model) {
    std::string got;
    Status s = db->Get(ReadOptions(), k, &got);
    if (k != user_key) {
      ASSERT_OK(s) << k;
      ASSERT_EQ(got, v) << k;
    } else if (damage_mac) {
      // Reads locate the record by the pointer and check its crc, which covers
      // the key.
      ASSERT_OK(s);
      ASSERT_EQ(got, v);
    } else {
      ASSERT_TRUE(s.IsCorruption()) << s.ToString();
    }
  }
  CompactRangeOptions cro;
  cro.bottommost_level_compaction = BottommostLevelCompaction::kForce;
  Status s = db->CompactRange(cro, nullptr, nullptr);
  if (damage_mac) {
    // A compaction sees the pointer as a value; it must not take it for one.
    ASSERT_TRUE(s.IsCorruption()) << s.ToString();
    EXPECT_NE(s.ToString().find("does not verify"), std::string::npos)
        << s.ToString();
  } else {
    // The MAC covers the location: the damaged pointer no longer verifies.
    ASSERT_TRUE(s.IsCorruption()) << s.ToString();
  }
  for (const auto& [k, v] : model) {
    std::string got;
    Status g = db->Get(ReadOptions(), k, &got);
    if (g.ok()) {
      ASSERT_EQ(got, v) << k;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Fields, PointerInSstTest, testing::Bool(),
                         [](const testing::TestParamInfo<bool>& p) {
                           return p.param ? "Mac" : "Offset";
                         });

// Values that imitate pointers: a genuine pointer of another key, one of an
// earlier value of the same key whose MAC byte was changed, and a well-formed
// pointer with a guessed MAC. All read back verbatim at every stage, and
// compactions at every level succeed.
TEST(HostileValueTest, PointerLookalikesReadBackVerbatim) {
  for (int merge_level : {-1, -2, 1}) {
    SCOPED_TRACE("merge_level " + std::to_string(merge_level));
    test::ScratchDir dir("lookalike");
    Options options = MakeOptions(merge_level);
    options.disable_auto_compactions = false;
    options.level0_file_num_compaction_trigger = 2;
    Model model;
    auto db = Open(options, dir.path());
    LoadAndFlush(db.get(), &model, 0, 300);
    ColumnFamilyMetaData meta;
    db->GetColumnFamilyMetaData(&meta);
    std::string sst;
    for (const auto& level : meta.levels) {
      for (const auto& f : level.files) sst = f.directory + "/" + f.name;
    }
    std::string pointer_key, pointer;
    ASSERT_TRUE(FirstPointer(sst, &pointer_key, &pointer));
    std::mt19937_64 rng(5);
    for (int j = 0; j < 60; ++j) {
      const std::string k = Key(5000 + j);
      std::string v;
      switch (j % 3) {
        case 0:  // another key's genuine pointer
          v = pointer;
          break;
        case 1: {  // same shape, guessed MAC
          v = pointer;
          for (size_t b = v.size() - 8; b < v.size(); ++b) {
            v[b] = static_cast<char>(rng());
          }
          break;
        }
        default: {  // a pointer for this key under a guessed secret
          MediumPointer p;
          ASSERT_TRUE(PeekMediumPointer(pointer, &p));
          EncodeMediumPointer(SipKey{rng(), rng()}, p, k, &v);
        }
      }
      ASSERT_OK(db->Put(WriteOptions(), k, v));
      model[k] = v;
    }
    auto check = [&](const char* stage) {
      for (const auto& [k, v] : model) {
        std::string got;
        ASSERT_OK(db->Get(ReadOptions(), k, &got)) << stage << " " << k;
        ASSERT_EQ(got, v) << stage << " " << k;
      }
      using Pairs = std::vector<std::pair<std::string, std::string>>;
      ASSERT_TRUE(
          (test::ScanAll(db.get()) == Pairs(model.begin(), model.end())))
          << stage;
    };
    check("memtable");
    ASSERT_OK(db->Flush(FlushOptions()));
    check("flushed");
    LoadAndFlush(db.get(), &model, 300, 300);
    ASSERT_OK(db->WaitForCompact(WaitForCompactOptions()));
    check("compacted");
    CompactRangeOptions cro;
    cro.bottommost_level_compaction = BottommostLevelCompaction::kForce;
    ASSERT_OK(db->CompactRange(cro, nullptr, nullptr));
    check("full compaction");
    ASSERT_OK(db->VerifyChecksum());
  }
}

// Two flushes of medium values into `dir`, recorded in `*model`; the DB is
// closed again.
void WriteTwoFlushesAndClose(const test::ScratchDir& dir,
                             const Options& options, Model* model) {
  auto db = Open(options, dir.path());
  LoadAndFlush(db.get(), model, 0, 300);
  LoadAndFlush(db.get(), model, 300, 300);
  ASSERT_OK(db->Close());
}

TEST(MissingSecretTest, ReadsWorkCompactionsRefuseRestoringHeals) {
  test::ScratchDir dir("nosecret");
  Options options = MakeOptions();
  Model model;
  WriteTwoFlushesAndClose(dir, options, &model);
  std::unique_ptr<DB> db;
  const std::string secret = dir.Sub(kSecretFileName);
  const std::string saved = ReadWholeFile(secret);
  ASSERT_FALSE(saved.empty());
  std::filesystem::remove(secret);
  // A fresh process, as the secret is cached by the process that loaded it:
  // ldb, with the DB's own OPTIONS file. Reads work...
  std::string out;
  const std::string ldb = std::string(HYBRIDKV_LDB) + " --db=" + dir.path() +
                          " --try_load_options ";
  ASSERT_EQ(test::RunCommand(ldb + "get " + Key(3), &out), 0) << out;
  // (stdout holds the value; stderr, merged in, may hold tool warnings and,
  // under sanitizers, reports)
  const size_t found = out.find(Value(3) + "\n");
  EXPECT_TRUE(found != std::string::npos &&
              (found == 0 || out[found - 1] == '\n'))
      << out;
  // ... and a compaction, which must tell pointers from values, refuses,
  // naming the file.
  EXPECT_NE(test::RunCommand(ldb + "compact", &out), 0) << out;
  EXPECT_NE(out.find(kSecretFileName), std::string::npos) << out;
  // Nothing was lost meanwhile.
  ASSERT_EQ(test::RunCommand(ldb + "scan", &out), 0) << out;
  size_t lines = 0;
  for (size_t pos = out.find(" ==> "); pos != std::string::npos;
       pos = out.find(" ==> ", pos + 1)) {
    lines++;
  }
  EXPECT_EQ(lines, model.size());
  CompactRangeOptions cro;
  cro.bottommost_level_compaction = BottommostLevelCompaction::kForce;
  WriteWholeFile(secret, saved);
  ASSERT_EQ(test::RunCommand(ldb + "compact", &out), 0) << out;
  db = Open(options, dir.path());
  ASSERT_OK(db->CompactRange(cro, nullptr, nullptr));
  using Pairs = std::vector<std::pair<std::string, std::string>>;
  ASSERT_TRUE((test::ScanAll(db.get()) == Pairs(model.begin(), model.end())));
  ASSERT_OK(db->VerifyChecksum());
}

// A secret file replaced by another valid one for the same DB (a different
// key): compactions check the first pointer of every input table, so they
// refuse, naming the file, instead of taking pointers for plain values.
TEST(MissingSecretTest, ReplacedSecretStopsCompactions) {
  test::ScratchDir dir("replacedsecret");
  Options options = MakeOptions();
  Model model;
  WriteTwoFlushesAndClose(dir, options, &model);
  const std::string secret = dir.Sub(kSecretFileName);
  const std::string saved = ReadWholeFile(secret);
  ASSERT_GT(saved.size(), 32u);
  std::string other = saved;
  other[12] ^= 0x5a;  // k0: another key
  EncodeFixed32(&other[other.size() - 4],
                crc32c::Mask(crc32c::Value(other.data(), other.size() - 4)));
  WriteWholeFile(secret, other);
  std::string out;
  const std::string ldb = std::string(HYBRIDKV_LDB) + " --db=" + dir.path() +
                          " --try_load_options ";
  EXPECT_NE(test::RunCommand(ldb + "compact", &out), 0) << out;
  EXPECT_NE(out.find(kSecretFileName), std::string::npos) << out;
  WriteWholeFile(secret, saved);
  ASSERT_EQ(test::RunCommand(ldb + "compact", &out), 0) << out;
  auto db = Open(options, dir.path());
  using Pairs = std::vector<std::pair<std::string, std::string>>;
  ASSERT_TRUE((test::ScanAll(db.get()) == Pairs(model.begin(), model.end())));
}

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
