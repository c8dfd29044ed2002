// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// The files a copy of a HybridKV DB needs beyond RocksDB's own: the medium
// files the copied SSTs point into, and the DB secret. RocksDB's tools copy
// what DB::GetLiveFilesStorageInfo lists; every route that copies or lists a
// DB adds HybridKV's files to that list here (docs/deployability.md).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "plugin/hybridkv/blob/medium/medium_refs.h"
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

// Finds them for the SSTs `sst_numbers` of the column families homed in
// `dir` (the first of their cf_paths; the SSTs are in any of them). Call it
// between
// DisableFileDeletions and EnableFileDeletions, as Checkpoint and BackupEngine
// do: HybridKV frees medium data only when RocksDB reports an SST physically
// deleted, and never punches a hard-linked file.
Status FindHybridKVFiles(DB* db, const std::string& dir,
                         const std::vector<uint64_t>& sst_numbers,
                         HybridKVFiles* found);
// The same for the SSTs of RocksDB's list `rocksdb_files`, from
// GetLiveFilesStorageInfo of `db`: one entry per home (the default column
// family's when no SST is listed).
Status FindHybridKVFiles(DB* db,
                         const std::vector<LiveFileStorageInfo>& rocksdb_files,
                         std::vector<HybridKVFiles>* found);

// The medium references of each SST of `db`'s current Version, by SST number,
// and the homes of their column families `*homes` (the default column
// family's when there is no SST): the trackers' where it knows the DB as it is
// now, else each SST's refs property, so they are right in any process that
// has the DB open (a secondary, or a primary whose tracker has not seeded). An
// SST deleted since the listing is skipped, and one without the property
// (built by stock RocksDB) counts as none; with `read_unknown`, as deciding
// that no pointer is left needs, such an SST's entries are read, and a
// deleted one is an error.
Status ReadLiveSstRefs(DB* db, std::vector<std::string>* homes,
                       std::map<uint64_t, MediumRefs>* refs,
                       bool read_unknown = false);

// The home of `db`'s default column family.
std::string DefaultHome(DB* db);
// The home of the column family whose SSTs live in `sst_dir`.
std::string HomeOf(const std::string& sst_dir);

// An entry of RocksDB's list for medium file `number` of `dir`, under the name
// `relative_filename`, as kBlobFile: an immutable data file to a copy tool.
// With `include_checksum_info` the checksum is unknown, as RocksDB lists files
// it has no checksum of; without, those fields stay empty, as Checkpoint's
// copy path requires.
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
