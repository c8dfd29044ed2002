// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// The per-DB secret keying medium-pointer MACs (medium_pointer.h).
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
// of everything before it. A DB's first flush extracting a medium value adds a
// random key: temporary file written, synced, renamed into place, directory
// synced. Other DB ids' keys stay (DestroyDB leaves the file; a new DB adds its
// own). Every DB copy needs the file (docs/deployability.md): without it,
// pointers cannot be told from values and compactions refuse to run.
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

// Loads DB `db_id`'s secret in `dir`; if the file lacks one, creates it when
// `create`, else NotFound. A damaged file is Corruption, never rewritten.
// Thread-safe; cached per (dir, db_id).
Status GetDbSecret(const std::shared_ptr<FileSystem>& fs,
                   const std::string& dir, const std::string& db_id,
                   bool create, SipKey* secret);

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
