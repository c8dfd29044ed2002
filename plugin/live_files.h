// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// The files a DB copy needs beyond RocksDB's: the secret and the medium files
// the copied SSTs point into, added here to the GetLiveFilesStorageInfo list
// RocksDB's tools copy, on every route copying a DB (docs/deployability.md).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "plugin/hybridkv/blob/format/medium_refs.h"
#include "rocksdb/db.h"
#include "rocksdb/metadata.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

// HybridKV's files that a copy of the listed SSTs of one home needs.
struct HybridKVFiles {
  std::string dir;                    // where they are: the home
  std::set<uint64_t> medium_numbers;  // "<n>.medium"
  bool has_secret = false;            // HYBRIDKV-SECRET
};

// Finds them for SSTs `sst_numbers` of the column families homed in `dir`
// (their first cf_path; the SSTs may be in any). Call with file deletions
// disabled, as Checkpoint and BackupEngine do: medium data is freed only once
// RocksDB reports an SST physically deleted; linked files are never punched.
Status FindHybridKVFiles(DB* db, const std::string& dir,
                         const std::vector<uint64_t>& sst_numbers,
                         HybridKVFiles* found);
// The same for the SSTs of `db`'s GetLiveFilesStorageInfo list: one entry
// per home (the default column family's when no SST is listed).
Status FindHybridKVFiles(DB* db,
                         const std::vector<LiveFileStorageInfo>& rocksdb_files,
                         std::vector<HybridKVFiles>* found);

// The medium refs of each SST of `db`'s current Version by number, and their
// column families' homes (the default's if no SST). From the trackers where
// current, else the SSTs' refs properties, so right in any process. An SST
// deleted since listing is skipped; one without the property (stock RocksDB
// may copy pointers) has none unless `read_unknown` (to decide no pointer is
// left): then its entries are read, and a deleted SST is an error.
Status ReadLiveSstRefs(DB* db, std::vector<std::string>* homes,
                       std::map<uint64_t, MediumRefs>* refs,
                       bool read_unknown = false);

std::string DefaultHome(DB* db);

// The kBlobFile (immutable data to copy tools) list entry for medium file
// `number` of `dir`; checksum "unknown" with `include_checksum_info`, as
// RocksDB's for files without one, else empty, as Checkpoint's copy requires.
Status MediumFileEntry(DB* db, const std::string& dir, uint64_t number,
                       const std::string& relative_filename,
                       bool include_checksum_info, LiveFileStorageInfo* entry);

// `found` as entries of RocksDB's list under their own names; the secret is
// listed as kIdentityFile (small, written once, keys the DB).
Status AppendHybridKVFiles(DB* db, const HybridKVFiles& found,
                           bool include_checksum_info,
                           std::vector<LiveFileStorageInfo>* files);

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
