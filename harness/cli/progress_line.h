#pragma once
// A one-line progress display on stderr for long runs: stage i of n, samples, ETA.
#include <chrono>
#include <string>

#include "harness/runner.h"

namespace sb::cli {

class ProgressLine {
 public:
  explicit ProgressLine(std::string label, bool enabled);
  ~ProgressLine();
  void update(const Progress& p);
  void finish();

 private:
  std::string label_;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_{};
};

}  // namespace sb::cli
