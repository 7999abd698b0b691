#pragma once
// One writer per output file. Two `stagebench run -o same.json` at once both used to finish with
// exit 0, the second silently replacing the first's results; now the second is refused before it
// measures anything. The lock is flock(2) on a sidecar "OUTPUT.lock": the kernel drops it when
// the process dies, so a killed run never leaves a stale lock behind.
#include <filesystem>

namespace sb::cli {

class OutputLock {
 public:
  // Takes the lock or throws std::invalid_argument naming the output (another stagebench holds
  // it); std::runtime_error when the lock file cannot be created.
  explicit OutputLock(const std::filesystem::path& output);
  ~OutputLock();
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;

 private:
  std::filesystem::path lock_path_;
  int fd_ = -1;
};

}  // namespace sb::cli
