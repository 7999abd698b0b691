#include "harness/cli/output_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace sb::cli {

OutputLock::OutputLock(const std::filesystem::path& output)
    : lock_path_(output.string() + ".lock") {
  // Retried because the holder unlinks the lock file as it releases it: the inode we locked may
  // no longer be the one at the path, and then a third writer could lock the new one.
  for (int attempt = 0; attempt < 8; ++attempt) {
    fd_ = ::open(lock_path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) {
      throw std::runtime_error("cannot create the lock file " + lock_path_.string() + ": " +
                               std::strerror(errno));
    }
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      ::close(fd_);
      fd_ = -1;
      if (err == EWOULDBLOCK) {
        throw std::invalid_argument(output.string() + " is being written by another stagebench (" +
                                    lock_path_.string() +
                                    " is locked); wait for it or choose another -o");
      }
      throw std::runtime_error("cannot lock " + lock_path_.string() + ": " + std::strerror(err));
    }
    struct stat held {
    }, at_path{};
    if (::fstat(fd_, &held) == 0 && ::stat(lock_path_.c_str(), &at_path) == 0 &&
        held.st_ino == at_path.st_ino && held.st_dev == at_path.st_dev)
      return;
    ::close(fd_);  // the file was unlinked under us: lock the current one
    fd_ = -1;
  }
  throw std::runtime_error("cannot lock " + lock_path_.string() + ": it keeps being replaced");
}

OutputLock::~OutputLock() {
  if (fd_ < 0) return;
  ::unlink(lock_path_.c_str());  // before closing, while still held (see the retry above)
  ::close(fd_);
}

}  // namespace sb::cli
