// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// The medium value file format and the medium pointer (blob/), on a real file
// system.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cinttypes>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "plugin/hybridkv/blob/medium/medium_file.h"
#include "plugin/hybridkv/blob/medium/medium_pointer.h"
#include "plugin/hybridkv/blob/medium/medium_readahead.h"
#include "plugin/hybridkv/blob/medium/record_crc.h"
#include "plugin/hybridkv/blob/medium/siphash.h"
#include "plugin/hybridkv/table/compaction_scope.h"
#include "test_util.h"
#include "util/coding.h"
#include "util/crc32c.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

const SipKey kPaperKey{0x0706050403020100ull, 0x0f0e0d0c0b0a0908ull};

TEST(SipHashTest, ReferenceVectors) {
  // From the SipHash paper (Appendix A) and its reference vectors.
  SipHash24 empty(kPaperKey);
  EXPECT_EQ(empty.Final(), 0x726fdb47dd0e0e31ull);
  unsigned char msg[15];
  for (int i = 0; i < 15; ++i) msg[i] = static_cast<unsigned char>(i);
  SipHash24 whole(kPaperKey);
  whole.Update(msg, sizeof(msg));
  EXPECT_EQ(whole.Final(), 0xa129ca6149be45e5ull);
  SipHash24 pieces(kPaperKey);  // incremental updates give the same tag
  pieces.Update(msg, 3);
  pieces.Update(msg + 3, 9);
  pieces.Update(msg + 12, 3);
  EXPECT_EQ(pieces.Final(), 0xa129ca6149be45e5ull);
}

// Medium records written by either implementation read back with the other:
// RecordCrc is crc32c, whichever instruction computes it.
TEST(RecordCrcTest, EqualsRocksDBCrc32c) {
  std::mt19937_64 rng(7);
  std::string data(600, '\0');
  for (char& c : data) c = static_cast<char>(rng());
  for (size_t offset = 0; offset < 8; offset++) {  // every alignment
    for (size_t n = 0; n + offset <= data.size(); n += 1 + n / 16) {
      ASSERT_EQ(RecordCrc(data.data() + offset, n),
                crc32c::Value(data.data() + offset, n))
          << "offset " << offset << " length " << n;
    }
  }
  // crc32c's check value for "123456789".
  EXPECT_EQ(RecordCrc("123456789", 9), 0xe3069283u);
  // Extending covers the concatenation, as a record's crc covers its key.
  for (size_t split = 0; split <= 300; split += 13) {
    ASSERT_EQ(RecordCrcExtend(RecordCrc(data.data(), split),
                              data.data() + split, 300 - split),
              crc32c::Value(data.data(), 300))
        << "split " << split;
  }
}

TEST(MediumPointerTest, RoundTripAndSize) {
  SipKey secret{0x1234, 0x5678};
  MediumPointer p;
  p.file_number = 1234;
  p.handle.offset = 5'000'000;
  p.handle.size = 140;
  std::string encoded;
  EncodeMediumPointer(secret, p, "user-key-000001", &encoded);
  // tag 1 + file 2 + offset 4 + size 2 + mac 8
  EXPECT_EQ(encoded.size(), 17u);
  MediumPointer out;
  ASSERT_TRUE(DecodeMediumPointer(secret, encoded, "user-key-000001", &out));
  EXPECT_EQ(out.file_number, 1234u);
  EXPECT_EQ(out.handle.offset, 5'000'000u);
  EXPECT_EQ(out.handle.size, 140u);
}

// The table a compaction's output builder consults instead of a second MAC
// finds only the exact (user key, pointer) bytes that were noted, and hands
// back the pointer decoded. A pointer whose slot another one took, or whose
// key is too long to note, is not found: the builder then checks its MAC.
TEST(CompactionScopeTest, FindsOnlyTheExactPointerNoted) {
  const SipKey secret{0x1234, 0x5678};
  auto pointer_at = [&](uint64_t offset, const std::string& key,
                        std::string* encoded) {
    MediumPointer p;
    p.file_number = 7;
    p.handle.offset = offset;
    p.handle.size = 50;
    encoded->clear();
    EncodeMediumPointer(secret, p, key, encoded);
    return p;
  };
  CompactionScope scope;
  std::string a;
  const MediumPointer pa = pointer_at(100, "key-a", &a);
  scope.NoteVerified("key-a", a, pa);
  MediumPointer out;
  ASSERT_TRUE(scope.WasVerified("key-a", a, &out));
  EXPECT_EQ(out.file_number, 7u);
  EXPECT_EQ(out.handle.offset, 100u);
  EXPECT_EQ(out.handle.size, 50u);
  EXPECT_FALSE(scope.WasVerified("key-b", a, &out));  // another key's value
  std::string damaged = a;
  damaged[2] ^= 1;
  EXPECT_FALSE(scope.WasVerified("key-a", damaged, &out));

  // Some other pointer takes a's slot; from then on only it is found.
  bool evicted = false;
  for (uint64_t offset = 200;
       offset < 200 + 100 * CompactionScope::kSlots && !evicted; ++offset) {
    std::string c;
    const MediumPointer pc = pointer_at(offset, "key-c", &c);
    scope.NoteVerified("key-c", c, pc);
    if (!scope.WasVerified("key-a", a, &out)) {
      evicted = true;
      ASSERT_TRUE(scope.WasVerified("key-c", c, &out));
      EXPECT_EQ(out.handle.offset, offset);
    }
  }
  EXPECT_TRUE(evicted);

  const std::string long_key(65, 'k');
  std::string l;
  const MediumPointer pl = pointer_at(300, long_key, &l);
  scope.NoteVerified(long_key, l, pl);
  EXPECT_FALSE(scope.WasVerified(long_key, l, &out));
}

TEST(MediumPointerTest, RejectsForgeriesAndDamage) {
  SipKey secret{0xdeadbeef, 0xfeedface};
  MediumPointer p;
  p.file_number = 7;
  p.handle.offset = 16;
  p.handle.size = 120;
  std::string good;
  EncodeMediumPointer(secret, p, "k", &good);
  MediumPointer out;
  EXPECT_FALSE(DecodeMediumPointer(secret, good, "other-key",
                                   &out));  // moved to another key
  EXPECT_FALSE(DecodeMediumPointer(SipKey{1, 2}, good, "k",
                                   &out));    // another DB's secret
  for (size_t i = 0; i < good.size(); ++i) {  // any flipped byte
    std::string bad = good;
    bad[i] ^= 0x01;
    EXPECT_FALSE(DecodeMediumPointer(secret, bad, "k", &out)) << "byte " << i;
  }
  EXPECT_FALSE(
      DecodeMediumPointer(secret, good + "x", "k", &out));  // trailing bytes
  EXPECT_FALSE(
      DecodeMediumPointer(secret, good.substr(0, good.size() - 1), "k", &out));
  // A value that imitates the layout with a guessed MAC.
  std::string forged = good;
  EncodeFixed64(&forged[forged.size() - 8], 0x0123456789abcdefull);
  EXPECT_FALSE(DecodeMediumPointer(secret, forged, "k", &out));
  EXPECT_FALSE(DecodeMediumPointer(secret, "", "k", &out));
}

class MediumFileTest : public testing::Test {
 protected:
  test::ScratchDir dir_{"medium"};
  std::shared_ptr<FileSystem> fs_ = FileSystem::Default();

  // Writes `n` records and returns their handles.
  std::vector<MediumRecordHandle> Write(const std::string& path, int n) {
    std::unique_ptr<MediumFileWriter> w;
    EXPECT_OK(MediumFileWriter::Create(fs_, path, FileOptions(), &w));
    std::vector<MediumRecordHandle> handles(n);
    for (int i = 0; i < n; ++i) {
      EXPECT_OK(w->Add(Key(i), Value(i), &handles[i]));
    }
    EXPECT_OK(w->Finish());
    return handles;
  }
  static std::string Key(int i) { return "key" + std::to_string(100000 + i); }
  static std::string Value(int i) {
    return std::string(100 + i % 300, 'a' + i % 26);
  }
};

// MediumReadahead: reads many files in turn under a buffer budget far below
// their total, as a merge of a randomly loaded DB does, with and without run
// hints. Every value reads back; the reads stay few and bounded.
class MediumReadaheadTest : public MediumFileTest,
                            public testing::WithParamInterface<bool> {};

TEST_P(MediumReadaheadTest, ManyFilesUnderATightBudget) {
  const bool hinted = GetParam();
  constexpr int kFiles = 40, kRecords = 200;
  const size_t kBudget = 512 << 10;
  std::map<uint64_t, std::vector<MediumRecordHandle>> handles;
  std::map<uint64_t, uint64_t> run_end;
  for (int f = 1; f <= kFiles; ++f) {
    handles[f] = Write(MediumFileName(dir_.path(), f), kRecords);
    run_end[f] = handles[f].back().offset + handles[f].back().size;
  }
  struct WholeFiles : MediumReadahead::Plan {
    std::map<uint64_t, uint64_t>* run_end;
    uint64_t RunEnd(uint64_t number, uint64_t) const override {
      return (*run_end)[number];
    }
    size_t FileCount() const override { return run_end->size(); }
  } plan;
  plan.run_end = &run_end;
  MediumReadahead readahead(
      [&](const IOOptions& io, uint64_t number,
          std::shared_ptr<MediumFileReader>* out) -> Status {
        std::unique_ptr<MediumFileReader> r;
        IOStatus s = MediumFileReader::Open(
            fs_, MediumFileName(dir_.path(), number), FileOptions(), &r, io);
        if (s.ok()) *out = std::move(r);
        return s;
      },
      4 << 10, 1 << 20, /*buffer_budget=*/kBudget, hinted ? &plan : nullptr);
  // Round robin over the files, each in key order.
  for (int i = 0; i < kRecords; ++i) {
    for (int f = 1; f <= kFiles; ++f) {
      MediumPointer p;
      p.file_number = f;
      p.handle = handles[f][i];
      std::string v;
      ASSERT_OK(readahead.Read(IOOptions(), p, Key(i), &v));
      ASSERT_EQ(v, Value(i));
    }
  }
  uint64_t data = 0;
  for (const auto& [f, end] : run_end)
    data += end - MediumFileHeader::kEncodedLength;
  std::printf("%s: %" PRIu64 " bytes read in %" PRIu64 " reads for %" PRIu64
              " bytes of records\n",
              hinted ? "hinted" : "unhinted", readahead.bytes_read(),
              readahead.reads_issued(), data);
  // Chunks are at least 4 KiB and fit the budget together: no byte is read
  // twice, and with a plan each file's share is read in one request.
  EXPECT_LT(readahead.bytes_read(), data * 11 / 10);
  EXPECT_LT(readahead.reads_issued(), uint64_t{kFiles} * kRecords / 10);
  if (hinted) {
    const uint64_t share = kBudget / 4 * 3 / kFiles;
    EXPECT_LE(readahead.reads_issued(), data / share + 2 * kFiles);
  }
}

INSTANTIATE_TEST_SUITE_P(RunHints, MediumReadaheadTest, testing::Bool(),
                         [](const testing::TestParamInfo<bool>& hinted) {
                           return hinted.param ? "Hinted" : "Unhinted";
                         });

TEST_F(MediumFileTest, WriteReadVerify) {
  const std::string path = MediumFileName(dir_.path(), 42);
  EXPECT_EQ(path, dir_.path() + "/42.medium");
  auto handles = Write(path, 1000);
  std::unique_ptr<MediumFileReader> r;
  ASSERT_OK(MediumFileReader::Open(fs_, path, FileOptions(), &r));
  EXPECT_EQ(r->num_records(), 1000u);
  for (int i = 0; i < 1000; i += 37) {
    std::string v;
    ASSERT_OK(r->Read(IOOptions(), handles[i], Key(i), &v));
    EXPECT_EQ(v, Value(i));
  }
  // The wrong key at a valid record is caught.
  std::string v;
  Status s = r->Read(IOOptions(), handles[5], Key(6), &v);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find(path), std::string::npos) << s.ToString();
}

TEST_F(MediumFileTest, FlippedByteIsCorruptionNamingTheFile) {
  const std::string path = MediumFileName(dir_.path(), 9);
  auto handles = Write(path, 100);
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(
        static_cast<std::streamoff>(handles[50].offset + handles[50].size - 3));
    f.put('\xff');
  }
  std::unique_ptr<MediumFileReader> r;
  ASSERT_OK(MediumFileReader::Open(fs_, path, FileOptions(), &r));
  std::string v;
  Status s = r->Read(IOOptions(), handles[50], Key(50), &v);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find("9.medium"), std::string::npos) << s.ToString();
  EXPECT_OK(
      r->Read(IOOptions(), handles[49], Key(49), &v));  // neighbours still read
  EXPECT_EQ(v, Value(49));
}

TEST_F(MediumFileTest, TruncatedFileFailsToOpen) {
  const std::string path = MediumFileName(dir_.path(), 10);
  Write(path, 100);
  uint64_t size = 0;
  ASSERT_OK(fs_->GetFileSize(path, IOOptions(), &size, nullptr));
  ASSERT_EQ(truncate(path.c_str(), static_cast<off_t>(size - 10)), 0);
  std::unique_ptr<MediumFileReader> r;
  Status s = MediumFileReader::Open(fs_, path, FileOptions(), &r);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find("10.medium"), std::string::npos) << s.ToString();
}

// Version 2 records do not store their key; the crc covers it instead.
TEST_F(MediumFileTest, RecordsElideTheirKeys) {
  const std::string path = MediumFileName(dir_.path(), 12);
  auto handles = Write(path, 50);
  for (int i = 0; i < 50; i++) {
    // crc, key_size 0, value_size (2 bytes from 128 on), value.
    const size_t varint = Value(i).size() < 128 ? 1 : 2;
    EXPECT_EQ(handles[i].size, 4 + 1 + varint + Value(i).size()) << i;
  }
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)),
                          std::istreambuf_iterator<char>());
  EXPECT_EQ(bytes.find(Key(7)), std::string::npos);
  std::unique_ptr<MediumFileReader> r;
  ASSERT_OK(MediumFileReader::Open(fs_, path, FileOptions(), &r));
  std::string v;
  ASSERT_OK(r->Read(IOOptions(), handles[7], Key(7), &v));
  EXPECT_EQ(v, Value(7));
  Status s = r->Read(IOOptions(), handles[7], Key(8), &v);  // misdirected
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find("12.medium"), std::string::npos) << s.ToString();
}

// Files of format version 1, which stored each record's key, still read:
// including a record of the empty key, where both crc rules agree.
TEST_F(MediumFileTest, Version1FilesStillRead) {
  const std::string path = MediumFileName(dir_.path(), 13);
  const std::vector<std::pair<std::string, std::string>> records = {
      {"", "value of the empty key"}, {"apple", "red"}, {"pear", "green"}};
  std::string file;
  MediumFileHeader header;
  header.version = 1;
  file.resize(MediumFileHeader::kEncodedLength);
  header.EncodeTo(&file[0]);
  std::vector<MediumRecordHandle> handles;
  for (const auto& kv : records) {
    const size_t start = file.size();
    file.append(4, '\0');
    PutVarint32(&file, static_cast<uint32_t>(kv.first.size()));
    PutVarint32(&file, static_cast<uint32_t>(kv.second.size()));
    file += kv.first + kv.second;
    EncodeFixed32(
        &file[start],
        crc32c::Mask(crc32c::Value(&file[start + 4], file.size() - start - 4)));
    handles.push_back({start, static_cast<uint32_t>(file.size() - start)});
  }
  MediumFileFooter footer;
  footer.record_count = records.size();
  footer.data_end = file.size();
  file.resize(file.size() + MediumFileFooter::kEncodedLength);
  footer.EncodeTo(&file[footer.data_end]);
  EncodeFixed32(&file[footer.data_end + 20], 1);  // the footer's version
  std::ofstream(path, std::ios::binary) << file;

  std::unique_ptr<MediumFileReader> r;
  ASSERT_OK(MediumFileReader::Open(fs_, path, FileOptions(), &r));
  for (size_t i = 0; i < records.size(); i++) {
    std::string v;
    ASSERT_OK(r->Read(IOOptions(), handles[i], records[i].first, &v));
    EXPECT_EQ(v, records[i].second);
  }
  std::string v;
  Status s = r->Read(IOOptions(), handles[1], "pear", &v);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find("another key"), std::string::npos)
      << s.ToString();
}

// A version this build does not read fails to open with NotSupported, which
// names the versions it reads.
TEST_F(MediumFileTest, UnknownVersionIsNotSupported) {
  for (uint32_t version : {0u, kMediumFileVersion + 1}) {
    const std::string path = MediumFileName(dir_.path(), 14 + version);
    Write(path, 3);
    std::string head(MediumFileHeader::kEncodedLength, '\0');
    MediumFileHeader header;
    header.version = version;
    header.EncodeTo(&head[0]);
    {
      std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
      f.write(head.data(), static_cast<std::streamsize>(head.size()));
    }
    std::unique_ptr<MediumFileReader> r;
    Status s = MediumFileReader::Open(fs_, path, FileOptions(), &r);
    EXPECT_TRUE(s.IsNotSupported()) << version << ": " << s.ToString();
    EXPECT_NE(s.ToString().find("reads versions 1 to 2"), std::string::npos)
        << s.ToString();
  }
}

TEST_F(MediumFileTest, AbandonDeletesTheFile) {
  const std::string path = MediumFileName(dir_.path(), 11);
  std::unique_ptr<MediumFileWriter> w;
  ASSERT_OK(MediumFileWriter::Create(fs_, path, FileOptions(), &w));
  MediumRecordHandle h;
  ASSERT_OK(w->Add("k", "v", &h));
  w->Abandon();
  EXPECT_TRUE(fs_->FileExists(path, IOOptions(), nullptr).IsNotFound());
}

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
