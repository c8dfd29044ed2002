// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// Frees medium file ranges in place (fallocate(FALLOC_FL_PUNCH_HOLE |
// FALLOC_FL_KEEP_SIZE)): size and layout stay, so other pointers stay valid;
// holes read as zeros. Only ranges no live SST points into are passed, and only
// space depends on it: a punch lost in a crash is redone at the next open.
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

// True only for RocksDB's POSIX file system, unwrapped: a wrapper may map
// offsets (encryption) or keep its own view of data (fault injection), so
// punching beneath it could free the wrong bytes.
bool CanPunchHoles(const FileSystem& fs);

// Punches `ranges` (sorted, disjoint) of `path`, clipped to [keep_head, size -
// keep_tail) (header, footer) and shrunk to whole blocks (zeroing part of one
// is a write). Busy, punching nothing, if the file has another link (a
// checkpoint's SSTs may point in; sets `*shared`) or another process holds it
// (HoldForReading: a secondary's older Version). NotSupported if unsupported.
IOStatus PunchHoles(const std::string& path, const MediumRuns& ranges,
                    uint64_t keep_head, uint64_t keep_tail,
                    uint64_t* bytes_freed, bool* shared = nullptr);

// Holds `path` until ReleaseHold with a POSIX read lock (fcntl F_SETLK,
// F_RDLCK) that other processes' PunchHoles see (locks are per process;
// MediumFileCache separates sessions). Returns the fd, or -1 (no hold).
int HoldForReading(const std::string& path);
void ReleaseHold(int fd);

// Bytes `path` occupies on disk (st_blocks), or its size if unknown.
uint64_t AllocatedBytes(FileSystem* fs, const std::string& path);

// Test hook for fallocate: (fd, offset, length) -> 0 or errno; nullptr resets.
void SetPunchHoleForTesting(std::function<int(int, uint64_t, uint64_t)> punch);

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
