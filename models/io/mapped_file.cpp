#include "models/io/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace sb {
namespace {

std::invalid_argument file_error(const std::filesystem::path& path, const std::string& what) {
  return std::invalid_argument("cannot read '" + path.string() + "': " + what);
}

}  // namespace

MappedFile::MappedFile(const std::filesystem::path& path) : path_(path) {
  // O_NONBLOCK: opening a FIFO without it waits for a writer (forever, in a CI job) before fstat
  // can say it is not a regular file. It changes nothing for a regular file.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw file_error(path, std::strerror(errno));
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    const int err = errno;
    ::close(fd);
    throw file_error(path, std::strerror(err));
  }
  if (!S_ISREG(info.st_mode)) {
    ::close(fd);
    throw file_error(path,
                     "not a regular file (a FIFO, device or directory); only regular files "
                     "are read");
  }
  size_ = static_cast<size_t>(info.st_size);
  if (size_ > 0) {  // mmap rejects a zero length; an empty file simply has no bytes
    void* mapped = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (mapped == MAP_FAILED) {
      const int err = errno;
      ::close(fd);
      throw file_error(path, std::string("mmap failed: ") + std::strerror(err));
    }
    data_ = static_cast<const std::byte*>(mapped);
  }
  ::close(fd);  // the mapping keeps the file alive
}

MappedFile::~MappedFile() {
  if (data_ != nullptr) ::munmap(const_cast<std::byte*>(data_), size_);
}

}  // namespace sb
