// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
//
// The child of the crash test (crash_test.cc), and the primary the secondary
// test (secondary_test.cc) follows: opens the DB, runs the
// deterministic workload of crash_workload.h from operation `start`, and after
// each acknowledged operation stores the count of acknowledged operations in
// `progress_file` (8 bytes at offset 0). A second thread flushes and compacts
// ranges meanwhile, and a third one copies the DB, in turns a checkpoint
// (hybridkv::CreateCheckpoint into <copies>/ckpt-<start>-<n>) and a backup
// (hybridkv::CreateNewBackup into <copies>/backups). <copies>/copying names the
// copy in progress. It runs until the parent kills it with SIGKILL.
//
//   hybridkv_crash_child <db dir> <seed> <start> <progress file> <merge level>
//                        <copies dir>
//
// HYBRIDKV_CRASH_NO_BLOB=1 turns the large class off (RocksDB's BlobDB does
// not support secondary instances, which follow this child in
// SecondaryTest). HYBRIDKV_CRASH_PAUSE_MS adds that many milliseconds between
// the second and third threads' steps: a secondary replays every MANIFEST
// edit, and on 2 cores cannot keep up with a flush or compaction every
// 20-100 ms for minutes. HYBRIDKV_CRASH_SCALE=N multiplies the memtable, file
// and level sizes by N, for the same reason: RocksDB's secondary replays each
// edit at a cost that grows with the files it tracks, and falls ever further
// behind a primary that flushes every 64 KiB.
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <thread>

#include "crash_workload.h"
#include "plugin/hybridkv/blob/io/rocksdb_compat.h"
#include "rocksdb/db.h"
#include "rocksdb/utilities/backup_engine.h"
#include "rocksdb/write_batch.h"

using namespace ROCKSDB_NAMESPACE;
using namespace ROCKSDB_NAMESPACE::hybridkv;

int main(int argc, char** argv) {
  if (argc != 7) {
    fprintf(stderr,
            "usage: %s <db dir> <seed> <start> <progress file> <merge level> "
            "<copies dir>\n",
            argv[0]);
    return 2;
  }
  const std::string copies = argv[6];
  const std::string dir = argv[1];
  const uint64_t seed = std::strtoull(argv[2], nullptr, 10);
  const uint64_t start = std::strtoull(argv[3], nullptr, 10);
  int merge_level = 0;
  if (!hybridkv::ParseMergeLevel(argv[5], &merge_level).ok()) {
    fprintf(stderr, "bad merge level %s\n", argv[5]);
    return 2;
  }
  const int progress = open(argv[4], O_WRONLY | O_CREAT, 0644);
  if (progress < 0) {
    perror("open progress file");
    return 2;
  }
  auto report = [&](uint64_t n) {
    if (pwrite(progress, &n, sizeof(n), 0) != sizeof(n)) std::abort();
  };
  report(start);
  DB* raw = nullptr;
  Options options = crash::MakeOptions(merge_level);
  const char* no_blob = std::getenv("HYBRIDKV_CRASH_NO_BLOB");
  if (no_blob != nullptr && *no_blob == '1') options.enable_blob_files = false;
  const char* scale_env = std::getenv("HYBRIDKV_CRASH_SCALE");
  if (scale_env != nullptr && std::atoi(scale_env) > 1) {
    const int scale = std::atoi(scale_env);
    options.write_buffer_size *= scale;
    options.target_file_size_base *= scale;
    options.max_bytes_for_level_base *= scale;
    options.blob_file_size *= scale;
  }
  Status s = hybridkv::OpenDB(options, dir, &raw);
  if (!s.ok()) {
    fprintf(stderr, "open: %s\n", s.ToString().c_str());
    return 3;
  }
  std::unique_ptr<DB> db(raw);
  const char* pause_env = std::getenv("HYBRIDKV_CRASH_PAUSE_MS");
  const int pause_ms = pause_env != nullptr ? std::atoi(pause_env) : 0;
  std::atomic<bool> stop{false};
  std::thread background([&] {
    std::mt19937_64 rng(seed ^ start);
    while (!stop.load()) {
      std::this_thread::sleep_for(
          std::chrono::milliseconds(pause_ms + 20 + rng() % 80));
      if (rng() % 3 == 0) {
        db->Flush(FlushOptions()).PermitUncheckedError();
      } else {
        const uint64_t a = rng() % crash::kKeys;
        const std::string lo = crash::Key(a),
                          hi = crash::Key(a + 1 + rng() % 600);
        Slice l(lo), h(hi);
        CompactRangeOptions cro;
        cro.bottommost_level_compaction =
            rng() % 4 == 0 ? BottommostLevelCompaction::kForce
                           : BottommostLevelCompaction::kIfHaveCompactionFilter;
        db->CompactRange(cro, &l, &h).PermitUncheckedError();
      }
    }
  });
  std::thread copier([&] {
    BackupEngine* raw_engine = nullptr;
    if (!BackupEngine::Open(Env::Default(),
                            BackupEngineOptions(copies + "/backups"),
                            &raw_engine)
             .ok()) {
      std::abort();
    }
    std::unique_ptr<BackupEngine> engine(raw_engine);
    std::mt19937_64 rng(seed ^ (start << 1));
    for (int n = 0; !stop.load(); ++n) {
      std::this_thread::sleep_for(
          std::chrono::milliseconds(pause_ms + rng() % 100));
      const bool checkpoint = n % 2 == 0;
      const std::string marker = copies + "/copying";
      const int fd = open(marker.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (fd < 0 || write(fd, checkpoint ? "c" : "b", 1) != 1) std::abort();
      close(fd);
      const Status copied =
          checkpoint ? hybridkv::CreateCheckpoint(
                           db.get(), copies + "/ckpt-" + std::to_string(start) +
                                         "-" + std::to_string(n))
                     : hybridkv::CreateNewBackup(engine.get(), db.get());
      if (!copied.ok()) {
        fprintf(stderr, "copy %d: %s\n", n, copied.ToString().c_str());
        std::abort();
      }
      unlink(marker.c_str());
    }
  });
  for (uint64_t i = start;; ++i) {
    const crash::Op op = crash::MakeOp(seed, i);
    WriteOptions wo;
    wo.sync = op.sync;
    switch (op.kind) {
      case crash::Op::kPut:
        s = db->Put(wo, op.entries[0].first, op.entries[0].second);
        break;
      case crash::Op::kDelete:
        s = db->Delete(wo, op.entries[0].first);
        break;
      case crash::Op::kDeleteRange:
        s = db->DeleteRange(wo, db->DefaultColumnFamily(), op.entries[0].first,
                            op.entries[0].second);
        break;
      case crash::Op::kBatch: {
        WriteBatch batch;
        for (const auto& e : op.entries) {
          s = batch.Put(e.first, e.second);
          if (!s.ok()) break;
        }
        if (s.ok()) s = db->Write(wo, &batch);
        break;
      }
    }
    if (!s.ok()) {
      fprintf(stderr, "op %llu: %s\n", static_cast<unsigned long long>(i),
              s.ToString().c_str());
      stop = true;
      background.join();
      copier.join();
      return 4;
    }
    report(i + 1);
  }
}
