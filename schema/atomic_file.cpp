#include "schema/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>

namespace sb {
namespace {

[[noreturn]] void throw_io(const std::filesystem::path& path, const std::string& what) {
  throw std::runtime_error("cannot write " + path.string() + ": " + what + ": " +
                           std::strerror(errno));
}

// fsync by path: the stream has closed its own descriptor. Linux syncs a file's data through any
// descriptor of it, a read-only one included.
void sync_file(const std::string& file, const std::filesystem::path& path) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw_io(path, "cannot reopen the temporary file");
  const int rc = ::fsync(fd);
  const int err = errno;
  ::close(fd);
  errno = err;
  if (rc != 0) throw_io(path, "fsync failed");
}

}  // namespace

void write_stream_atomic(const std::filesystem::path& path,
                         const std::function<void(std::ostream&)>& write) {
  const std::filesystem::path dir =
      path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  std::string tmp = (dir / (path.filename().string() + ".tmp.XXXXXX")).string();
  const int fd = ::mkstemp(tmp.data());  // a unique name, even for two writers of one path
  if (fd < 0) throw_io(path, "cannot create a temporary file in " + dir.string());
  ::fchmod(fd, 0644);  // mkstemp's 0600 would make results unreadable to others
  ::close(fd);
  try {
    {
      std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
      if (!out) throw_io(path, "cannot open the temporary file");
      write(out);
      out.close();
      if (!out) throw_io(path, "write failed (disk full?)");
    }
    sync_file(tmp, path);
    if (::rename(tmp.c_str(), path.c_str()) != 0) throw_io(path, "rename failed");
  } catch (...) {
    ::unlink(tmp.c_str());
    throw;
  }
  // Make the rename itself durable; failing here loses nothing already written.
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

void write_text_atomic(const std::filesystem::path& path, std::string_view text) {
  write_stream_atomic(path, [&](std::ostream& out) {
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
  });
}

}  // namespace sb
