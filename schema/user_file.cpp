#include "schema/user_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "schema/json_text.h"

namespace sb {
namespace {

const char* kind_of(mode_t mode) {
  if (S_ISFIFO(mode)) return "a named pipe (FIFO)";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  return "not a regular file";
}

}  // namespace

std::string read_user_file(const std::filesystem::path& path) {
  // O_NONBLOCK: opening a FIFO without it waits for a writer before fstat can say what it is.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    throw std::invalid_argument("cannot open " + path.string() + ": " + std::strerror(errno));
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    const bool stat_failed = info.st_mode == 0;
    ::close(fd);
    throw std::invalid_argument(path.string() + ": " +
                                (stat_failed ? std::string("cannot stat: ") + std::strerror(errno)
                                             : std::string("is ") + kind_of(info.st_mode) +
                                                   "; only regular files are read"));
  }
  std::string text;
  text.reserve(static_cast<size_t>(info.st_size));
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      throw std::runtime_error("cannot read " + path.string() + ": " + std::strerror(err));
    }
    text.append(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
  return text;
}

bool same_file(const std::filesystem::path& a, const std::filesystem::path& b) {
  std::error_code ec;
  if (std::filesystem::exists(a, ec) && std::filesystem::exists(b, ec))
    return std::filesystem::equivalent(a, b, ec);
  const auto full = [](const std::filesystem::path& p) {
    std::error_code e;
    std::filesystem::path abs = std::filesystem::absolute(p, e);
    if (e) abs = p;
    std::filesystem::path canonical = std::filesystem::weakly_canonical(abs, e);
    return e ? abs.lexically_normal() : canonical;
  };
  return full(a) == full(b);
}

nlohmann::json read_json_file(const std::filesystem::path& path) {
  return parse_json_text(read_user_file(path), path.string());
}

}  // namespace sb
