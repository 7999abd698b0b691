#include "models/io/atomic_write.h"

#include <unistd.h>

#include <atomic>
#include <fstream>
#include <stdexcept>
#include <string>

namespace sb {
namespace {

std::filesystem::path temporary_beside(const std::filesystem::path& path) {
  static std::atomic<unsigned> counter{0};
  return path.string() + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
}

}  // namespace

void write_file_atomically(const std::filesystem::path& path,
                           const std::function<void(std::ostream&)>& write) {
  const std::filesystem::path temporary = temporary_beside(path);
  try {
    {
      std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
      if (!out)
        throw std::runtime_error("cannot write '" + path.string() + "': cannot create '" +
                                 temporary.string() + "'");
      write(out);
      out.close();
      if (!out) throw std::runtime_error("writing '" + path.string() + "' failed (disk full?)");
    }
    std::error_code error;
    std::filesystem::rename(temporary, path, error);
    if (error) {
      throw std::runtime_error("cannot move '" + temporary.string() + "' to '" + path.string() +
                               "': " + error.message());
    }
  } catch (...) {
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
    throw;
  }
}

}  // namespace sb
