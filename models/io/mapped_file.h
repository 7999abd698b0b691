#pragma once

#include <cstddef>
#include <filesystem>
#include <span>

namespace sb {

// A read-only memory map of a whole file. Weight files reach ~1 GB: mapping lets readers convert
// straight from the page cache instead of holding a second private copy of the bytes.
class MappedFile {
 public:
  // Throws std::invalid_argument naming the file when it cannot be opened, is not a regular file
  // (a FIFO is refused without waiting for a writer), or cannot be mapped: the user named a file
  // the command cannot use, which the CLI reports as bad input (exit 2).
  explicit MappedFile(const std::filesystem::path& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  std::span<const std::byte> bytes() const { return {data_, size_}; }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  const std::byte* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace sb
