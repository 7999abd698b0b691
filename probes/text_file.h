#pragma once
// Small helpers for reading /proc and /sys files, where a missing file is a normal answer.
#include <cstdint>
#include <string>

namespace sb::detail {

// The whole file, or "" when it cannot be read.
std::string read_text_file(const std::string& path);

std::string trim(const std::string& text);

// "48K", "2048K", "1M", "1G" or plain bytes as in /sys/.../cache/index*/size; 0 when unparsable.
uint64_t parse_size_with_suffix(const std::string& text);

}  // namespace sb::detail
