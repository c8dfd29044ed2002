// Copyright (c) HybridKV authors. Licensed under the Apache License 2.0.
#include "plugin/hybridkv/blob/lifecycle/hole_punch.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>

#if defined(__linux__)
#include <linux/falloc.h>
#endif

namespace ROCKSDB_NAMESPACE {
namespace hybridkv {
namespace {

std::mutex test_hook_mu;
std::function<int(int, uint64_t, uint64_t)>* test_hook = nullptr;

int Punch(int fd, uint64_t offset, uint64_t length) {
  {
    std::lock_guard<std::mutex> lock(test_hook_mu);
    if (test_hook != nullptr) return (*test_hook)(fd, offset, length);
  }
#if defined(__linux__) && defined(FALLOC_FL_PUNCH_HOLE)
  if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                static_cast<off_t>(offset), static_cast<off_t>(length)) == 0) {
    return 0;
  }
  return errno;
#else
  (void)fd;
  (void)offset;
  (void)length;
  return EOPNOTSUPP;
#endif
}

IOStatus Errno(const std::string& what, const std::string& path, int err) {
  if (err == EOPNOTSUPP || err == ENOSYS) {
    return IOStatus::NotSupported(
        "HybridKV: the file system of " + path +
        " cannot punch holes; medium files are kept whole until unreferenced");
  }
  return IOStatus::IOError("HybridKV: " + what + " " + path + ": " +
                           std::strerror(err));
}

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) close(fd_);
  }
  int get() const { return fd_; }

 private:
  const int fd_;
};

}  // namespace

bool CanPunchHoles(const FileSystem& fs) {
#if defined(__linux__) && defined(FALLOC_FL_PUNCH_HOLE)
  return fs.IsInstanceOf("PosixFileSystem");
#else
  (void)fs;
  return false;
#endif
}

IOStatus PunchHoles(const std::string& path, const MediumRuns& ranges,
                    uint64_t keep_head, uint64_t keep_tail,
                    uint64_t* bytes_freed, bool* shared) {
  *bytes_freed = 0;
  if (shared != nullptr) *shared = false;
  Fd fd(open(path.c_str(), O_WRONLY | O_CLOEXEC));
  if (fd.get() < 0) {
    if (errno == ENOENT) return IOStatus::OK();  // deleted meanwhile
    return Errno("cannot open", path, errno);
  }
  struct stat st;
  if (fstat(fd.get(), &st) != 0) {
    return Errno("cannot stat", path, errno);
  }
  if (st.st_nlink > 1) {
    if (shared != nullptr) *shared = true;
    return IOStatus::Busy("HybridKV: " + path + " is shared with " +
                          std::to_string(st.st_nlink - 1) +
                          " hard link(s), such as a checkpoint's");
  }
  struct flock probe = {};
  probe.l_type = F_WRLCK;
  probe.l_whence = SEEK_SET;  // the whole file
  if (fcntl(fd.get(), F_GETLK, &probe) == 0 && probe.l_type != F_UNLCK) {
    return IOStatus::Busy("HybridKV: " + path +
                          " is held by a reader in process " +
                          std::to_string(probe.l_pid));
  }
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  if (size <= keep_head + keep_tail) {
    return IOStatus::OK();
  }
  const uint64_t block = st.st_blksize > 0 ? st.st_blksize : kPunchBlockSize;
  for (const MediumRun& range : ranges) {
    const uint64_t from = std::max(range.begin, keep_head);
    const uint64_t to = std::min(range.end, size - keep_tail);
    const uint64_t begin = (from + block - 1) / block * block;
    const uint64_t end = to / block * block;
    if (begin >= end) continue;
    const int err = Punch(fd.get(), begin, end - begin);
    if (err != 0) {
      return Errno("cannot punch a hole in", path, err);
    }
    *bytes_freed += end - begin;
  }
  return IOStatus::OK();
}

int HoldForReading(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  struct flock lock = {};
  lock.l_type = F_RDLCK;
  lock.l_whence = SEEK_SET;  // the whole file
  if (fcntl(fd, F_SETLK, &lock) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

void ReleaseHold(int fd) {
  if (fd >= 0) close(fd);
}

uint64_t AllocatedBytes(FileSystem* fs, const std::string& path) {
  if (CanPunchHoles(*fs)) {
    struct stat st;
    if (stat(path.c_str(), &st) == 0) {
      return static_cast<uint64_t>(st.st_blocks) * 512;
    }
  }
  uint64_t size = 0;
  fs->GetFileSize(path, IOOptions(), &size, nullptr).PermitUncheckedError();
  return size;
}

void SetPunchHoleForTesting(std::function<int(int, uint64_t, uint64_t)> punch) {
  std::lock_guard<std::mutex> lock(test_hook_mu);
  delete test_hook;
  test_hook =
      punch ? new std::function<int(int, uint64_t, uint64_t)>(std::move(punch))
            : nullptr;
}

}  // namespace hybridkv
}  // namespace ROCKSDB_NAMESPACE
