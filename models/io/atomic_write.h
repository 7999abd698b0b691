#pragma once

#include <filesystem>
#include <functional>
#include <ostream>

namespace sb {

// Runs `write` on a temporary file beside `path`, then renames it over `path`, so readers never
// see a half-written file. The temporary is removed when `write` throws or the I/O fails;
// failures throw std::runtime_error naming the file.
void write_file_atomically(const std::filesystem::path& path,
                           const std::function<void(std::ostream&)>& write);

}  // namespace sb
