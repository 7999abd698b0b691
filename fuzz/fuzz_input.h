#pragma once
// What every fuzz target shares: the input as a file (the parsers under test read users' files,
// and their path handling is part of what is fuzzed), one per process and target, rewritten per
// input, removed at exit.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace sb::fuzz {

inline std::filesystem::path input_file(const uint8_t* data, size_t size, const std::string& ext) {
  static const std::filesystem::path dir = [] {
    auto d = std::filesystem::temp_directory_path() / ("sb_fuzz_" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    std::atexit([] {
      std::error_code ignored;
      std::filesystem::remove_all(
          std::filesystem::temp_directory_path() / ("sb_fuzz_" + std::to_string(::getpid())),
          ignored);
    });
    return d;
  }();
  const auto path = dir / ("input" + ext);
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return path;
}

}  // namespace sb::fuzz
