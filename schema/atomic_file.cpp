#include "schema/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace sb {
namespace {

[[noreturn]] void throw_io(const std::filesystem::path& path, const std::string& what) {
  throw std::runtime_error("cannot write " + path.string() + ": " + what + ": " +
                           std::strerror(errno));
}

void write_all(int fd, std::string_view text, const std::filesystem::path& path) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw_io(path, "write failed");
    }
    done += static_cast<size_t>(n);
  }
}

}  // namespace

void write_text_atomic(const std::filesystem::path& path, std::string_view text) {
  const std::filesystem::path dir =
      path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  std::string tmpl = (dir / (path.filename().string() + ".tmp.XXXXXX")).string();
  int fd = ::mkstemp(tmpl.data());
  if (fd < 0) throw_io(path, "cannot create a temporary file in " + dir.string());
  ::fchmod(fd, 0644);  // mkstemp's 0600 would make results unreadable to others
  const std::string tmp = tmpl;
  try {
    write_all(fd, text, path);
    if (::fsync(fd) != 0) throw_io(path, "fsync failed");
    if (::close(fd) != 0) {
      fd = -1;
      throw_io(path, "close failed");
    }
    fd = -1;
    if (::rename(tmp.c_str(), path.c_str()) != 0) throw_io(path, "rename failed");
  } catch (...) {
    if (fd >= 0) ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  // Make the rename itself durable; failing here loses nothing already written.
  int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

}  // namespace sb
