#pragma once
// An output that cannot be written is bad input, found before anything is measured. `run -o /tmp`
// used to measure a whole ladder and then fail on the rename with exit 1; `-o ''` and an output
// under a regular file did the same. Checked here: the name is not empty and not a folder, the
// nearest existing folder above it is a folder we may write in, and an existing file is writable.
#include <filesystem>
#include <string>

namespace sb::cli {

// Why `path` cannot be written as the output named by `option` ("-o", "--journal"), or "".
std::string unusable_output(const std::filesystem::path& path, const std::string& option);

// Throws std::invalid_argument (exit 2) with unusable_output's reason.
void check_output(const std::filesystem::path& path, const std::string& option);

}  // namespace sb::cli
