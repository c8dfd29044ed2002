// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// The files a copy of a HybridKV DB needs beyond RocksDB's own: the medium
// files that the copied SSTs point into, and the DB secret. RocksDB's tools
// copy what DB::GetLiveFilesStorageInfo lists; this is the one place that adds
// HybridKV's files to that list, for every route that copies or lists a DB
// (the HybridDB handle, and so Checkpoint and file-level replication;
// hybridkv::CreateNewBackup; hybridkv::CreateCheckpoint). docs/deployability.md
// says why the set comes from the listed SSTs' references.
//
// Depends on blob/ (the per-DB state and medium file names) and RocksDB.
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

// HybridKV's files that a copy of the listed SSTs needs.
struct HybridKVFiles {
  std::string dir;                    // where they are: the SSTs' directory
  std::set<uint64_t> medium_numbers;  // "<n>.medium"
  bool has_secret = false;            // HYBRIDKV-SECRET
};

// Finds them. Call it between DisableFileDeletions and EnableFileDeletions,
// as Checkpoint and BackupEngine do around their listing: the medium data
// listed SSTs point to is then neither deleted nor punched until
// EnableFileDeletions (HybridKV frees it only when RocksDB reports an SST
// physically deleted), and a hard-linked medium file is never punched while
// shared.
// `dir` is the directory of the SSTs numbered `sst_numbers`.
Status FindHybridKVFiles(DB* db, const std::string& dir,
                         const std::vector<uint64_t>& sst_numbers,
                         HybridKVFiles* found);
// The same for the SSTs of RocksDB's list `rocksdb_files`, from
// GetLiveFilesStorageInfo of `db`.
Status FindHybridKVFiles(DB* db,
                         const std::vector<LiveFileStorageInfo>& rocksdb_files,
                         HybridKVFiles* found);

// The medium references of each SST of `db`'s current Version, by SST number,
// and the SSTs' directory `*dir`: the medium-file tracker's where it knows the
// DB as it is now, else read from the SST's own refs property. So they are
// right in any process that has the DB open: a secondary, a read-only
// instance, or a primary before its first flush or compaction, whose tracker
// has not read the DB's SSTs yet. An SST deleted since the listing is
// skipped. One without the property (built by stock RocksDB, which may have
// copied pointers) counts as none. With `read_unknown`, as deciding that no
// pointer is left needs, all the entries of such an SST are read
// (ReadSstMediumRefs), and an SST deleted since the listing is an error.
Status ReadLiveSstRefs(DB* db, std::string* dir,
                       std::map<uint64_t, MediumRefs>* refs,
                       bool read_unknown = false);

// An entry of RocksDB's list for medium file `number` of `dir`, under the name
// `relative_filename`. Medium files are listed as kBlobFile: immutable data
// files, as blob files are to a copy tool. The size is read now. With
// `include_checksum_info`, the checksum is unknown, as RocksDB lists files it
// has no checksum of; without, those fields stay empty, as Checkpoint's copy
// path requires.
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
