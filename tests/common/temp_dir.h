#pragma once
// A fresh directory under the system temp dir, removed with everything in it when the test ends.
#include <filesystem>
#include <random>
#include <string>

namespace sb::testing {

class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "sb_test_")
      : path_(std::filesystem::temp_directory_path() /
              (prefix + std::to_string(std::random_device{}()))) {
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace sb::testing
