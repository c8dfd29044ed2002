// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// Frees byte ranges of a medium file in place, without rewriting it:
// fallocate(FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE). The file keeps its
// size and layout, so every pointer into the rest of it stays valid; the
// punched ranges read back as zeros and no longer occupy disk blocks.
//
// Only ranges that no live SST points into are ever passed here (see
// MediumFileTracker). Punching is an optimisation of space, never needed for
// correctness: a punch lost in a crash leaves dead bytes that the next open
// punches again.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "plugin/hybridkv/blob/medium/medium_runs.h"
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
// [keep_head, file size - keep_tail) and shrunk to whole blocks of the file
// system (a partial block would have to be zeroed, which is a write). The
// clipping keeps a format's header and footer whatever the ranges say, so a
// caller may pass runs that reach past the file (WholeMediumFile). Sets
// `*bytes_freed` to the bytes punched. Busy, punching nothing, when the file
// has more than one hard link (a checkpoint made by hybridkv::CreateCheckpoint
// shares it, and its SSTs may still point into these ranges; `*shared`, when
// given, says so), or when a process other than this one holds the file for
// reading (HoldForReading: a secondary instance whose older Version may still
// point into these ranges). NotSupported when the file system cannot punch
// holes.
IOStatus PunchHoles(const std::string& path, const MediumRuns& ranges,
                    uint64_t keep_head, uint64_t keep_tail,
                    uint64_t* bytes_freed, bool* shared = nullptr);

// Holds the medium file at `path` for reading until ReleaseHold: a POSIX read
// lock (fcntl F_SETLK, F_RDLCK), which PunchHoles in any other process sees.
// POSIX locks are per process, so this process's own punches are not held
// back (MediumFileCache tells this process's DB sessions apart). Returns the
// descriptor that holds it, or -1 when the lock cannot be had (then nothing
// is held back).
int HoldForReading(const std::string& path);
void ReleaseHold(int fd);

// The bytes the file at `path` occupies on disk (st_blocks), which punching
// reduces; its size where that cannot be had.
uint64_t AllocatedBytes(FileSystem* fs, const std::string& path);

// Replaces the fallocate call, for tests that inject failures: called with
// the file descriptor, offset and length; returns 0 or an errno value.
// nullptr restores the real call.
void SetPunchHoleForTesting(std::function<int(int, uint64_t, uint64_t)> punch);

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
