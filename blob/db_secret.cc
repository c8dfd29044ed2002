// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "plugin/hybridkv/blob/db_secret.h"

#include <map>
#include <mutex>
#include <random>

#include "plugin/hybridkv/blob/db_state.h"
#include "rocksdb/env.h"
#include "util/coding.h"
#include "util/crc32c.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

constexpr uint64_t kSecretMagic =
    0x3174657263657368ull;  // "hsecret1", little-endian
constexpr uint32_t kSecretVersion = 1;

std::string Encode(const SipKey& key, const std::string& db_id) {
  std::string out;
  PutFixed64(&out, kSecretMagic);
  PutFixed32(&out, kSecretVersion);
  PutFixed64(&out, key.k0);
  PutFixed64(&out, key.k1);
  PutLengthPrefixedSlice(&out, db_id);
  PutFixed32(&out, crc32c::Mask(crc32c::Value(out.data(), out.size())));
  return out;
}

Status Decode(const std::string& path, const Slice& data,
              const std::string& db_id, SipKey* key) {
  auto bad = [&](const std::string& what) {
    return Status::Corruption(
        "HybridKV secret file " + path + ": " + what +
        ". Restore it from the DB's backup; without it medium values cannot be "
        "told from plain values.");
  };
  if (data.size() < 8 + 4 + 16 + 1 + 4 ||
      DecodeFixed64(data.data()) != kSecretMagic) {
    return bad("not a secret file or truncated");
  }
  const size_t body = data.size() - 4;
  if (crc32c::Unmask(DecodeFixed32(data.data() + body)) !=
      crc32c::Value(data.data(), body)) {
    return bad("checksum mismatch");
  }
  if (DecodeFixed32(data.data() + 8) != kSecretVersion) {
    return Status::NotSupported("HybridKV secret file " + path +
                                " has an unknown version " +
                                std::to_string(DecodeFixed32(data.data() + 8)));
  }
  key->k0 = DecodeFixed64(data.data() + 12);
  key->k1 = DecodeFixed64(data.data() + 20);
  Slice rest(data.data() + 28, body - 28);
  Slice stored_id;
  if (!GetLengthPrefixedSlice(&rest, &stored_id) || !rest.empty()) {
    return bad("bad DB id field");
  }
  if (stored_id != Slice(db_id)) {
    return bad("written for DB id '" + stored_id.ToString() +
               "', but this DB's id is '" + db_id + "'");
  }
  return Status::OK();
}

Status WriteNew(const std::shared_ptr<FileSystem>& fs, const std::string& dir,
                const std::string& path, const std::string& db_id,
                SipKey* key) {
  std::random_device rd;
  key->k0 = (static_cast<uint64_t>(rd()) << 32) ^ rd();
  key->k1 = (static_cast<uint64_t>(rd()) << 32) ^ rd();
  const std::string tmp = path + ".tmp";
  IOOptions io;
  IOStatus s = WriteStringToFile(fs.get(), Encode(*key, db_id), tmp,
                                 /*should_sync=*/true);
  if (s.ok()) s = fs->RenameFile(tmp, path, io, nullptr);
  if (s.ok()) {
    std::unique_ptr<FSDirectory> d;
    s = fs->NewDirectory(dir, io, &d, nullptr);
    if (s.ok()) s = d->FsyncWithDirOptions(io, nullptr, DirFsyncOptions(path));
    if (s.ok()) s = d->Close(io, nullptr);
  }
  return s;
}

}  // namespace

std::vector<KnownDbSecret> KnownDbSecrets() {
  std::vector<KnownDbSecret> out;
  ForEachDbState([&](const std::string& dir, DbState* state) {
    std::lock_guard<std::mutex> lock(state->secrets_mu);
    for (const auto& [db_id, secret] : state->secrets) {
      out.push_back({dir, db_id, secret});
    }
  });
  return out;
}

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
  IOStatus s = ReadFileToString(fs.get(), path, &data);
  Status result;
  if (s.ok()) {
    result = Decode(path, data, db_id, secret);
  } else if (fs->FileExists(path, IOOptions(), nullptr).IsNotFound()) {
    if (!create) {
      return Status::NotFound("HybridKV secret file " + path + " is missing");
    }
    result = WriteNew(fs, dir, path, db_id, secret);
  } else {
    result = s;
  }
  if (result.ok()) {
    cache[db_id] = *secret;
  }
  return result;
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
