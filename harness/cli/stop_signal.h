#pragma once
// SIGINT and SIGTERM while `run` measures: the first sets a flag that the runner checks between
// runs of a stage (RunnerOptions::stop), in the warm-up as in the rounds, so that the output is
// written with what was measured and the process exits within about one run; a second signal
// ends the process at once (the output written last stays whole: writes are atomic).
#include <atomic>

namespace sb::cli {

inline constexpr int kExitStopped = 130;  // 128 + SIGINT, as shells report it

class StopSignals {
 public:
  explicit StopSignals(const char* command);  // installs the handlers, clears the flag
  ~StopSignals();                             // restores the default actions
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  const std::atomic<bool>* flag() const;
};

}  // namespace sb::cli
