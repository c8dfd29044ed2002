// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// The medium file's writer and reader (blob/medium/medium_file.h), on a real
// file system.
#include "plugin/hybridkv/blob/medium/medium_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "test_util.h"
#include "util/coding.h"
#include "util/crc32c.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

class MediumFileTest : public test::MediumFileFixture {};

TEST_F(MediumFileTest, WriteReadVerify) {
  const std::string path = MediumFileName(dir_.path(), 42);
  EXPECT_EQ(path, dir_.path() + "/42.medium");
  auto handles = Write(path, 1000);
  std::unique_ptr<MediumFileReader> r;
  ASSERT_OK(MediumFileReader::Open(fs_, path, FileOptions(), &r));
  EXPECT_EQ(r->num_records(), 1000u);
  for (int i = 0; i < 1000; i += 37) {
    std::string v;
    ASSERT_OK(test::ReadRecord(*r, handles[i], Key(i), &v));
    EXPECT_EQ(v, Value(i));
  }
  // The wrong key at a valid record is caught.
  std::string v;
  Status s = test::ReadRecord(*r, handles[5], Key(6), &v);
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
  Status s = test::ReadRecord(*r, handles[50], Key(50), &v);
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find("9.medium"), std::string::npos) << s.ToString();
  EXPECT_OK(
      test::ReadRecord(*r, handles[49], Key(49), &v));  // neighbours still read
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
  ASSERT_OK(test::ReadRecord(*r, handles[7], Key(7), &v));
  EXPECT_EQ(v, Value(7));
  Status s = test::ReadRecord(*r, handles[7], Key(8), &v);  // misdirected
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
    ASSERT_OK(test::ReadRecord(*r, handles[i], records[i].first, &v));
    EXPECT_EQ(v, records[i].second);
  }
  std::string v;
  Status s = test::ReadRecord(*r, handles[1], "pear", &v);
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
