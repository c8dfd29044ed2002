// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// The per-DB secret that keys medium-pointer MACs (medium_pointer.h).
//
// Secret file format, version 2: `<db dir>/HYBRIDKV-SECRET`, one key per DB id
// that has written medium values in the directory.
//
// clang-format off
//   file  := magic:fixed64 version:fixed32 count:varint32 entry{count}
//            crc:fixed32
//   entry := k0:fixed64 k1:fixed64 db_id_size:varint32 db_id
// clang-format on
//
// Version 1 (still read) had no count and one entry. crc is the masked crc32c
// of everything before it. A DB's key is added by its first flush that
// extracts a medium value, with a random key; the file is rewritten to a
// temporary file, synced, renamed into place, and the directory is synced.
// Keys of other DB ids stay: RocksDB's DestroyDB leaves the file, and a new DB
// in the directory adds its own key beside the old one. Every copy of the DB
// holds the file (docs/deployability.md); without it, pointers cannot be told
// from plain values and compactions refuse to proceed.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "plugin/hybridkv/blob/format/siphash.h"
#include "rocksdb/file_system.h"
#include "rocksdb/status.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

const char* const kSecretFileName = "HYBRIDKV-SECRET";

// Replaces `dir`'s secret file with `contents` (a secret file's bytes):
// written to a temporary file, synced, renamed into place, directory synced.
Status WriteSecretFile(const std::shared_ptr<FileSystem>& fs,
                       const std::string& dir, const std::string& contents);

// Returns the secret of DB `db_id` in `dir`, loading it, or creating it when
// `create` and the file holds no key for `db_id` yet; without `create` that is
// NotFound. A damaged file is Corruption, and never rewritten. Thread-safe;
// cached per (dir, db_id).
Status GetDbSecret(const std::shared_ptr<FileSystem>& fs,
                   const std::string& dir, const std::string& db_id,
                   bool create, SipKey* secret);

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
