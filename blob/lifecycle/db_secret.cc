// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "plugin/hybridkv/blob/lifecycle/db_secret.h"

#include <map>
#include <mutex>
#include <random>

#include "plugin/hybridkv/blob/lifecycle/db_state.h"
#include "plugin/hybridkv/blob/medium/medium_file.h"
#include "rocksdb/env.h"
#include "util/coding.h"
#include "util/crc32c.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

constexpr uint64_t kSecretMagic =
    0x3174657263657368ull;  // "hsecret1", little-endian
constexpr uint32_t kSecretVersion = 2;

using Secrets = std::map<std::string, SipKey>;  // by DB id

std::string Encode(const Secrets& secrets) {
  std::string out;
  PutFixed64(&out, kSecretMagic);
  PutFixed32(&out, kSecretVersion);
  PutVarint32(&out, static_cast<uint32_t>(secrets.size()));
  for (const auto& [db_id, key] : secrets) {
    PutFixed64(&out, key.k0);
    PutFixed64(&out, key.k1);
    PutLengthPrefixedSlice(&out, db_id);
  }
  PutFixed32(&out, crc32c::Mask(crc32c::Value(out.data(), out.size())));
  return out;
}

Status Decode(const std::string& path, const Slice& data, Secrets* secrets) {
  auto bad = [&](const std::string& what) {
    return Status::Corruption(
        "HybridKV secret file " + path + ": " + what +
        ". Restore it from the DB's backup; without it medium values cannot be "
        "told from plain values.");
  };
  if (data.size() < 8 + 4 + 1 + 4 ||
      DecodeFixed64(data.data()) != kSecretMagic) {
    return bad("not a secret file or truncated");
  }
  const size_t body = data.size() - 4;
  if (crc32c::Unmask(DecodeFixed32(data.data() + body)) !=
      crc32c::Value(data.data(), body)) {
    return bad("checksum mismatch");
  }
  const uint32_t version = DecodeFixed32(data.data() + 8);
  if (version != 1 && version != kSecretVersion) {
    return Status::NotSupported(
        "HybridKV secret file " + path + " has an unknown version " +
        std::to_string(version) + "; open the DB with a newer HybridKV.");
  }
  Slice rest(data.data() + 12, body - 12);
  uint32_t count = 1;  // version 1 holds one key
  if (version >= 2 && !GetVarint32(&rest, &count)) {
    return bad("bad key count");
  }
  for (uint32_t i = 0; i < count; ++i) {
    SipKey key;
    Slice db_id;
    if (rest.size() < 16) return bad("truncated key");
    key.k0 = DecodeFixed64(rest.data());
    key.k1 = DecodeFixed64(rest.data() + 8);
    rest.remove_prefix(16);
    if (!GetLengthPrefixedSlice(&rest, &db_id)) return bad("bad DB id field");
    (*secrets)[db_id.ToString()] = key;
  }
  if (!rest.empty()) return bad("trailing bytes");
  return Status::OK();
}

}  // namespace

Status WriteSecretFile(const std::shared_ptr<FileSystem>& fs,
                       const std::string& dir, const std::string& contents) {
  const std::string path = dir + "/" + kSecretFileName;
  IOStatus s = WriteStringToFile(fs.get(), contents, path + ".tmp",
                                 /*should_sync=*/true);
  if (s.ok()) s = fs->RenameFile(path + ".tmp", path, IOOptions(), nullptr);
  if (s.ok()) s = SyncDirectory(fs, dir, IOOptions(), DirFsyncOptions(path));
  return s;
}

namespace {

// Adds a new random key for `db_id` to `secrets` and writes them all.
Status WriteWithNewKey(const std::shared_ptr<FileSystem>& fs,
                       const std::string& dir, const std::string& db_id,
                       Secrets* secrets, SipKey* key) {
  std::random_device rd;
  key->k0 = (static_cast<uint64_t>(rd()) << 32) ^ rd();
  key->k1 = (static_cast<uint64_t>(rd()) << 32) ^ rd();
  (*secrets)[db_id] = *key;
  return WriteSecretFile(fs, dir, Encode(*secrets));
}

}  // namespace

Status GetDbSecret(const std::shared_ptr<FileSystem>& fs,
                   const std::string& dir, const std::string& db_id,
                   bool create, SipKey* secret) {
  DbState* state = DbStateFor(dir);
  // Held across the file's read or creation: one creator per DB.
  std::lock_guard<std::mutex> lock(state->secrets_mu);
  auto& cache = state->secrets;
  auto it = cache.find(db_id);
  if (it != cache.end()) {
    *secret = it->second;
    return Status::OK();
  }
  if (db_id.empty()) {
    return Status::InvalidArgument(
        "HybridKV needs the DB id to find its secret, got none");
  }
  const std::string path = dir + "/" + kSecretFileName;
  std::string data;
  Secrets secrets;
  IOStatus io = ReadFileToString(fs.get(), path, &data);
  Status result;
  if (io.ok()) {
    result = Decode(path, data, &secrets);
  } else if (!fs->FileExists(path, IOOptions(), nullptr).IsNotFound()) {
    result = io;
  }
  if (!result.ok()) {
    return result;
  }
  auto known = secrets.find(db_id);
  if (known != secrets.end()) {
    *secret = known->second;
  } else if (create) {
    // Other ids' keys stay (DestroyDB leaves the file): SSTs keep their DB id.
    result = WriteWithNewKey(fs, dir, db_id, &secrets, secret);
  } else {
    return Status::NotFound(
        "HybridKV secret file " + path +
        (io.ok() ? " holds no key for DB id " + db_id : " is missing"));
  }
  if (result.ok()) {
    cache[db_id] = *secret;
  }
  return result;
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
