// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// The DB secret and its file (blob/lifecycle/db_secret.h), without a DB: a key
// created once and read back from the file, keys of several DB ids side by
// side, and every damaged, truncated or unknown file refused rather than
// overwritten.
//
// GetDbSecret caches keys per (directory, DB id) for the process: each test
// reads files in fresh directories, or asks for DB ids not asked before.
#include "plugin/hybridkv/blob/lifecycle/db_secret.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "test_util.h"
#include "util/coding.h"
#include "util/crc32c.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

constexpr uint64_t kMagic = 0x3174657263657368ull;  // "hsecret1"

// A secret file as db_secret.h documents it: `body` after the magic, then
// the masked crc32c of everything before it.
std::string SecretFile(uint32_t version, const std::string& entries) {
  std::string out;
  PutFixed64(&out, kMagic);
  PutFixed32(&out, version);
  out += entries;
  PutFixed32(&out, crc32c::Mask(crc32c::Value(out.data(), out.size())));
  return out;
}

std::string Entry(uint64_t k0, uint64_t k1, const std::string& db_id) {
  std::string out;
  PutFixed64(&out, k0);
  PutFixed64(&out, k1);
  PutLengthPrefixedSlice(&out, db_id);
  return out;
}

std::string Counted(uint32_t count, const std::string& entries) {
  std::string out;
  PutVarint32(&out, count);
  return out + entries;
}

class DbSecretTest : public testing::Test {
 protected:
  std::shared_ptr<FileSystem> fs_ = FileSystem::Default();

  Status Get(const test::ScratchDir& dir, const std::string& db_id, bool create,
             SipKey* key) {
    return GetDbSecret(fs_, dir.path(), db_id, create, key);
  }
  std::string SecretPath(const test::ScratchDir& dir) {
    return dir.Sub(kSecretFileName);
  }
};

TEST_F(DbSecretTest, CreatedKeyIsReadBackFromTheFile) {
  test::ScratchDir dir("secret");
  SipKey created;
  ASSERT_OK(Get(dir, "db-a", /*create=*/true, &created));
  EXPECT_FALSE(created.k0 == 0 && created.k1 == 0);
  const std::string file = test::ReadWholeFile(SecretPath(dir));
  ASSERT_FALSE(file.empty());
  EXPECT_EQ(DecodeFixed64(file.data()), kMagic);
  EXPECT_EQ(DecodeFixed32(file.data() + 8), 2u);
  EXPECT_EQ(file,
            SecretFile(2, Counted(1, Entry(created.k0, created.k1, "db-a"))));
  EXPECT_TRUE(fs_->FileExists(SecretPath(dir) + ".tmp", IOOptions(), nullptr)
                  .IsNotFound());

  SipKey again;
  ASSERT_OK(Get(dir, "db-a", /*create=*/true, &again));  // cached
  EXPECT_EQ(again.k0, created.k0);
  EXPECT_EQ(again.k1, created.k1);

  // A copy of the file in another directory: read, not cached.
  test::ScratchDir copy("secret-copy");
  test::WriteWholeFile(SecretPath(copy), file);
  SipKey read;
  ASSERT_OK(Get(copy, "db-a", /*create=*/false, &read));
  EXPECT_EQ(read.k0, created.k0);
  EXPECT_EQ(read.k1, created.k1);
  EXPECT_EQ(test::ReadWholeFile(SecretPath(copy)), file);  // not rewritten
}

TEST_F(DbSecretTest, EachDbIdGetsItsOwnKeyBesideTheOthers) {
  test::ScratchDir dir("secret");
  SipKey a, b;
  ASSERT_OK(Get(dir, "db-a", true, &a));
  ASSERT_OK(Get(dir, "db-b", true, &b));
  EXPECT_FALSE(a.k0 == b.k0 && a.k1 == b.k1);

  // Both keys are in the file, in DB id order.
  const std::string file = test::ReadWholeFile(SecretPath(dir));
  EXPECT_EQ(file, SecretFile(2, Counted(2, Entry(a.k0, a.k1, "db-a") +
                                               Entry(b.k0, b.k1, "db-b"))));
  test::ScratchDir copy("secret-copy");
  test::WriteWholeFile(SecretPath(copy), file);
  SipKey read_a, read_b;
  ASSERT_OK(Get(copy, "db-b", false, &read_b));
  ASSERT_OK(Get(copy, "db-a", false, &read_a));
  EXPECT_EQ(read_a.k0, a.k0);
  EXPECT_EQ(read_a.k1, a.k1);
  EXPECT_EQ(read_b.k0, b.k0);
  EXPECT_EQ(read_b.k1, b.k1);
}

TEST_F(DbSecretTest, MissingKeyIsNotFoundWithoutCreate) {
  test::ScratchDir dir("secret");
  SipKey key;
  Status s = Get(dir, "db-a", /*create=*/false, &key);
  EXPECT_TRUE(s.IsNotFound()) << s.ToString();
  EXPECT_NE(s.ToString().find("is missing"), std::string::npos) << s.ToString();
  EXPECT_TRUE(
      fs_->FileExists(SecretPath(dir), IOOptions(), nullptr).IsNotFound());

  ASSERT_OK(Get(dir, "db-a", true, &key));
  s = Get(dir, "db-other", /*create=*/false, &key);
  EXPECT_TRUE(s.IsNotFound()) << s.ToString();
  EXPECT_NE(s.ToString().find("holds no key for DB id db-other"),
            std::string::npos)
      << s.ToString();

  s = Get(dir, "", /*create=*/true, &key);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
}

// The documented format, written by hand, reads back exactly: version 2 with
// several entries, and version 1 (no count, one entry).
TEST_F(DbSecretTest, ReadsHandWrittenFilesOfBothVersions) {
  test::ScratchDir v2("secret-v2");
  test::WriteWholeFile(
      SecretPath(v2),
      SecretFile(
          2, Counted(2, Entry(1, 2, "first") + Entry(0xFEDCBA9876543210ull, 7,
                                                     std::string(300, 'i')))));
  SipKey key;
  ASSERT_OK(Get(v2, "first", false, &key));
  EXPECT_EQ(key.k0, 1u);
  EXPECT_EQ(key.k1, 2u);
  ASSERT_OK(Get(v2, std::string(300, 'i'), false, &key));
  EXPECT_EQ(key.k0, 0xFEDCBA9876543210ull);
  EXPECT_EQ(key.k1, 7u);

  test::ScratchDir v1("secret-v1");
  test::WriteWholeFile(SecretPath(v1), SecretFile(1, Entry(11, 12, "old")));
  ASSERT_OK(Get(v1, "old", false, &key));
  EXPECT_EQ(key.k0, 11u);
  EXPECT_EQ(key.k1, 12u);
  // A new DB id in a version 1 file's directory: written as version 2, the
  // old key kept.
  SipKey added;
  ASSERT_OK(Get(v1, "new", true, &added));
  EXPECT_EQ(test::ReadWholeFile(SecretPath(v1)),
            SecretFile(2, Counted(2, Entry(added.k0, added.k1, "new") +
                                         Entry(11, 12, "old"))));
}

// Every proper prefix of a secret file, and every single flipped bit, is
// Corruption naming the file, and is never replaced, even with `create`.
TEST_F(DbSecretTest, DamagedOrTruncatedFilesAreRefused) {
  const std::string good =
      SecretFile(2, Counted(2, Entry(1, 2, "db-a") + Entry(3, 4, "db-b")));
  test::ScratchDir dir("secret");
  const std::string path = SecretPath(dir);
  int probe = 0;
  auto expect_refused = [&](const std::string& data, const std::string& what) {
    test::WriteWholeFile(path, data);
    SipKey key;
    // A DB id never asked in this directory: not cached, so the file is read.
    Status s =
        Get(dir, "probe" + std::to_string(probe++), /*create=*/true, &key);
    EXPECT_TRUE(s.IsCorruption()) << what << ": " << s.ToString();
    EXPECT_NE(s.ToString().find(path), std::string::npos) << s.ToString();
    EXPECT_NE(s.ToString().find("Restore it"), std::string::npos)
        << s.ToString();
    EXPECT_EQ(test::ReadWholeFile(path), data) << what << ": rewritten";
  };
  for (size_t len = 0; len < good.size(); ++len) {
    expect_refused(good.substr(0, len), "prefix of " + std::to_string(len));
  }
  for (size_t byte = 0; byte < good.size(); ++byte) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string bad = good;
      bad[byte] ^= static_cast<char>(1 << bit);
      expect_refused(bad, "bit " + std::to_string(bit) + " of byte " +
                              std::to_string(byte));
    }
  }
}

// Damage that the checksum does not catch, because the file was written so:
// each is refused with what is wrong.
TEST_F(DbSecretTest, MalformedBodiesWithValidChecksumsAreRefused) {
  struct Case {
    std::string data;
    std::string error;
  };
  const std::vector<Case> cases = {
      {SecretFile(2, Counted(1, Entry(1, 2, "db-a") + "x")), "trailing bytes"},
      {SecretFile(2, Counted(2, Entry(1, 2, "db-a"))), "truncated key"},
      {SecretFile(2, Counted(1, Entry(1, 2, "db-a").substr(0, 17))),
       "bad DB id field"},
      {SecretFile(2, std::string("\xff", 1)), "bad key count"},
      {SecretFile(1, Entry(1, 2, "db-a") + Entry(3, 4, "db-b")),
       "trailing bytes"},
  };
  int i = 0;
  for (const Case& c : cases) {
    test::ScratchDir dir("secret");
    test::WriteWholeFile(SecretPath(dir), c.data);
    SipKey key;
    Status s = Get(dir, "db-a", true, &key);
    EXPECT_TRUE(s.IsCorruption()) << i << ": " << s.ToString();
    EXPECT_NE(s.ToString().find(c.error), std::string::npos)
        << i << ": " << s.ToString();
    EXPECT_EQ(test::ReadWholeFile(SecretPath(dir)), c.data) << i;
    i++;
  }
}

TEST_F(DbSecretTest, UnknownVersionIsNotSupported) {
  test::ScratchDir dir("secret");
  const std::string data = SecretFile(3, Counted(1, Entry(1, 2, "db-a")));
  test::WriteWholeFile(SecretPath(dir), data);
  SipKey key;
  Status s = Get(dir, "db-a", true, &key);
  EXPECT_TRUE(s.IsNotSupported()) << s.ToString();
  EXPECT_NE(s.ToString().find("unknown version 3"), std::string::npos)
      << s.ToString();
  EXPECT_EQ(test::ReadWholeFile(SecretPath(dir)), data);
}

// Threads asking for one DB's new key at once all get the same one: one
// creates it, the rest read it.
TEST_F(DbSecretTest, ConcurrentCreatorsAgreeOnOneKey) {
  test::ScratchDir dir("secret");
  constexpr int kThreads = 8;
  std::vector<SipKey> keys(kThreads);
  std::vector<Status> statuses(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back(
        [&, t] { statuses[t] = Get(dir, "db-a", true, &keys[t]); });
  }
  for (auto& t : threads) t.join();
  for (int t = 0; t < kThreads; ++t) {
    ASSERT_OK(statuses[t]);
    EXPECT_EQ(keys[t].k0, keys[0].k0) << t;
    EXPECT_EQ(keys[t].k1, keys[0].k1) << t;
  }
  EXPECT_EQ(test::ReadWholeFile(SecretPath(dir)),
            SecretFile(2, Counted(1, Entry(keys[0].k0, keys[0].k1, "db-a"))));
}

}  // namespace
}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
