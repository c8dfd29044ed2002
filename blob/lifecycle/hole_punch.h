// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// Frees byte ranges of a medium file in place: fallocate(FALLOC_FL_PUNCH_HOLE
// | FALLOC_FL_KEEP_SIZE). The file keeps its size and layout, so pointers into
// the rest of it stay valid; punched ranges read back as zeros. Only ranges no
// live SST points into are passed here, and only space depends on it: a
// punch lost in a crash is made again at the next open.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "plugin/hybridkv/blob/format/medium_runs.h"
#include "rocksdb/file_system.h"
#include "rocksdb/io_status.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

// True when HybridKV can punch holes in files of `fs`: only RocksDB's own
// POSIX file system, unwrapped. A wrapper may map offsets (encryption adds a
// prefix) or keep its own view of the data (fault injection), so punching
// beneath it could free the wrong bytes.
bool CanPunchHoles(const FileSystem& fs);

// Punches `ranges` (sorted, disjoint) of the file at `path`, clipped to
// [keep_head, file size - keep_tail), which keeps a format's header and footer
// whatever the ranges say, and shrunk to whole blocks (a partial block would
// be zeroed: a write). Sets `*bytes_freed`. Busy, punching nothing, when the
// file has another hard link (a checkpoint's SSTs may point into the ranges;
// `*shared` says so), or when another process holds it (HoldForReading: a
// secondary's older Version may). NotSupported when `fs` cannot punch.
IOStatus PunchHoles(const std::string& path, const MediumRuns& ranges,
                    uint64_t keep_head, uint64_t keep_tail,
                    uint64_t* bytes_freed, bool* shared = nullptr);

// Holds the medium file at `path` for reading until ReleaseHold: a POSIX read
// lock (fcntl F_SETLK, F_RDLCK), which PunchHoles in any other process sees.
// POSIX locks are per process, so this process's own punches are not held
// back (MediumFileCache tells its DB sessions apart). Returns the descriptor
// that holds it, or -1 when the lock cannot be had (nothing is held back).
int HoldForReading(const std::string& path);
void ReleaseHold(int fd);

// The bytes the file at `path` occupies on disk (st_blocks), which punching
// reduces; its size where that cannot be had.
uint64_t AllocatedBytes(FileSystem* fs, const std::string& path);

// Replaces fallocate, for tests: called with (fd, offset, length), returns 0
// or an errno value. nullptr restores the real call.
void SetPunchHoleForTesting(std::function<int(int, uint64_t, uint64_t)> punch);

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
