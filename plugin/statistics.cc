// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include <cinttypes>
#include <cstdio>

#include "plugin/hybridkv/blob/hole_punch.h"
#include "plugin/hybridkv/blob/medium_file.h"
#include "plugin/hybridkv/blob/medium_lifecycle.h"
#include "plugin/hybridkv/include/hybridkv/hybridkv.h"
#include "plugin/hybridkv/table/hybrid_stats.h"
#include "rocksdb/file_system.h"

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {

Status GetStatistics(DB* db, HybridStatistics* stats) {
  const std::string dir = db->GetName();
  const DbCounters& c = *CountersFor(dir);
  HybridStatistics s;
  s.small_values_flushed = c.small_values_flushed;
  s.small_bytes_flushed = c.small_bytes_flushed;
  s.medium_values_extracted = c.medium_values_extracted;
  s.medium_bytes_extracted = c.medium_bytes_extracted;
  s.medium_files_created = c.medium_files_created;
  s.large_values_flushed = c.large_values_flushed;
  s.pointers_kept = c.pointers_kept;
  s.medium_values_inlined = c.medium_values_inlined;
  s.medium_bytes_inlined = c.medium_bytes_inlined;
  s.merge_bytes_read = c.merge_bytes_read;
  s.merge_reads = c.merge_reads;
  s.medium_values_resolved = c.medium_values_resolved;
  s.medium_bytes_resolved = c.medium_bytes_resolved;
  s.resolve_bytes_read = c.resolve_bytes_read;
  const std::shared_ptr<FileSystem>& fs = db->GetEnv()->GetFileSystem();
  std::vector<std::string> children;
  IOStatus io = fs->GetChildren(dir, IOOptions(), &children, nullptr);
  if (!io.ok()) {
    return io;
  }
  for (const std::string& name : children) {
    const size_t n = name.size(),
                 m = std::char_traits<char>::length(kMediumFileSuffix);
    if (n > m && name.compare(n - m, m, kMediumFileSuffix) == 0) {
      s.live_medium_files++;
      s.live_medium_bytes += AllocatedBytes(fs.get(), dir + "/" + name);
    }
  }
  const MediumFileTracker::Space space = TrackerFor(dir)->GetSpace();
  s.referenced_medium_file_bytes = space.file_bytes;
  s.referenced_medium_live_bytes = space.live_bytes;
  s.medium_bytes_punched = space.punched_bytes;
  s.medium_punch_failures = space.punch_failures;
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
  char buf[1024];
  snprintf(buf, sizeof(buf),
           "small: %" PRIu64 " values, %" PRIu64
           " bytes flushed inline\n"
           "medium: %" PRIu64 " values, %" PRIu64 " bytes extracted to %" PRIu64
           " files; %" PRIu64
           " pointers kept by compactions\n"
           "medium: %" PRIu64 " values, %" PRIu64
           " bytes inlined at the merge level (%" PRIu64
           " bytes read in %" PRIu64
           " reads)\n"
           "medium: %" PRIu64 " values, %" PRIu64
           " bytes resolved by reads (%" PRIu64
           " bytes read)\n"
           "medium: %" PRIu64 " files, %" PRIu64 " bytes on disk; %" PRIu64
           " of %" PRIu64
           " referenced bytes live (space amplification %.2f); %" PRIu64
           " bytes freed in place (%" PRIu64
           " punch failures)\n"
           "large: %" PRIu64 " values left to BlobDB\n",
           small_values_flushed, small_bytes_flushed, medium_values_extracted,
           medium_bytes_extracted, medium_files_created, pointers_kept,
           medium_values_inlined, medium_bytes_inlined, merge_bytes_read,
           merge_reads, medium_values_resolved, medium_bytes_resolved,
           resolve_bytes_read, live_medium_files, live_medium_bytes,
           referenced_medium_live_bytes, referenced_medium_file_bytes,
           medium_space_amplification(), medium_bytes_punched,
           medium_punch_failures, large_values_flushed);
  return buf;
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
