// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include <cinttypes>
#include <cstdio>
#include <map>
#include <set>

#include "plugin/hybridkv/blob/lifecycle/db_state.h"
#include "plugin/hybridkv/blob/lifecycle/hole_punch.h"
#include "plugin/hybridkv/blob/lifecycle/medium_lifecycle.h"
#include "plugin/hybridkv/blob/medium/medium_file.h"
#include "plugin/hybridkv/include/hybridkv/hybridkv.h"
#include "plugin/hybridkv/plugin/live_files.h"
#include "rocksdb/file_system.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

Status GetStatistics(DB* db, HybridStatistics* stats) {
  std::map<uint64_t, MediumRefs> live_refs;
  std::vector<std::string> homes;
  Status status = ReadLiveSstRefs(db, &homes, &live_refs);
  if (!status.ok()) {
    return status;
  }
  HybridStatistics s;
  const std::shared_ptr<FileSystem>& fs = db->GetEnv()->GetFileSystem();
  std::map<uint64_t, uint64_t> allocated;  // medium number -> bytes on disk
  for (const std::string& home : homes) {
    DbState* state = DbStateFor(home);
    const DbCounters& c = state->counters;
#define HYBRIDKV_ADD_COUNTER(name) s.name += c.name.load();
    HYBRIDKV_COUNTERS(HYBRIDKV_ADD_COUNTER)
#undef HYBRIDKV_ADD_COUNTER
    const MediumFileTracker::Punches punches = state->tracker().GetPunches();
    s.medium_bytes_punched += punches.bytes;
    s.medium_punch_failures += punches.failures;
    std::vector<std::string> children;
    IOStatus io = fs->GetChildren(home, IOOptions(), &children, nullptr);
    if (!io.ok()) {
      return io;
    }
    for (const std::string& name : children) {
      if (const uint64_t number = MediumNumberOf(name)) {
        allocated[number] = AllocatedBytes(fs.get(), home + "/" + name);
        s.live_medium_files++;
        s.live_medium_bytes += allocated[number];
      }
    }
  }
  std::set<uint64_t> referenced;
  for (const auto& [sst, refs] : live_refs) {
    for (const auto& [number, ref] : refs) {
      s.medium_pointers += ref.pointers;
      s.referenced_medium_live_bytes += ref.record_bytes;
      referenced.insert(number);
    }
  }
  for (uint64_t number : referenced) {
    auto bytes = allocated.find(number);
    if (bytes != allocated.end())
      s.referenced_medium_file_bytes += bytes->second;
  }
  *stats = s;
  return Status::OK();
}

double HybridStatistics::medium_space_amplification() const {
  return referenced_medium_live_bytes == 0
             ? 1.0
             : static_cast<double>(referenced_medium_file_bytes) /
                   static_cast<double>(referenced_medium_live_bytes);
}

std::string HybridStatistics::ToString() const {
  char buf[1280];
  snprintf(
      buf, sizeof(buf),
      "small: %" PRIu64 " values, %" PRIu64
      " bytes flushed inline\nmedium: %" PRIu64 " values, %" PRIu64
      " bytes extracted to %" PRIu64 " files; %" PRIu64
      " pointers kept by compactions\nmedium: %" PRIu64 " values, %" PRIu64
      " bytes inlined at the merge level (%" PRIu64 " bytes read in %" PRIu64
      " reads)\nmedium: %" PRIu64 " values, %" PRIu64
      " bytes resolved by reads (%" PRIu64 " bytes read in %" PRIu64
      " reads)\nscan prefetch: %" PRIu64 " medium values read ahead, %" PRIu64
      " of them used, in %" PRIu64
      " table seeks\n"
      "medium: %" PRIu64 " files, %" PRIu64 " bytes on disk; %" PRIu64
      " of %" PRIu64
      " referenced bytes live (space amplification %.2f); %" PRIu64
      " bytes freed in place (%" PRIu64 " punch failures)\nmedium: %" PRIu64
      " pointers in live SSTs\nlarge: %" PRIu64 " values left to BlobDB\n",
      small_values_flushed, small_bytes_flushed, medium_values_extracted,
      medium_bytes_extracted, medium_files_created, pointers_kept,
      medium_values_inlined, medium_bytes_inlined, merge_bytes_read,
      merge_reads, medium_values_resolved, medium_bytes_resolved,
      resolve_bytes_read, resolve_reads, scan_values_prefetched,
      scan_values_used, scan_table_seeks, live_medium_files, live_medium_bytes,
      referenced_medium_live_bytes, referenced_medium_file_bytes,
      medium_space_amplification(), medium_bytes_punched, medium_punch_failures,
      medium_pointers, large_values_flushed);
  return buf;
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
