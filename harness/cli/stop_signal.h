#pragma once
// SIGINT and SIGTERM while `run` measures: the first sets a flag that the runner checks between
// runs of a stage (RunnerOptions::stop), in the warm-up as in the rounds, so that the output is
// written with what was measured and the process exits within about one run; a second signal
// ends the process at once (the output written last stays whole: writes are atomic).
#include <sys/types.h>

#include <atomic>

namespace sb::cli {

inline constexpr int kExitStopped = 130;  // 128 + SIGINT, as shells report it

// Before a command can stop cleanly (parsing, loading weights, building kernels), SIGINT and
// SIGTERM end the process at once with kExitStopped and write nothing; a signal's default action
// would exit 143 or 130 depending on when it came. StopSignals restores this on destruction.
void exit_on_stop_signals();
// What a second signal does once a command is stopping: end the process at once, exit 130.
extern "C" void exit_now(int signal);

// A child process (run --repeat's, peer's script) that every stop signal is passed on to, or 0.
// A `kill` of this process alone (timeout(1), a scheduler) left the child running for as long
// as it liked, an orphan still measuring. run_child sets it for the child it waits on.
void forward_stop_signals_to(pid_t child);

class StopSignals {
 public:
  explicit StopSignals(const char* command);  // installs the handlers, clears the flag
  ~StopSignals();                             // back to exit_on_stop_signals()
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  const std::atomic<bool>* flag() const;
};

}  // namespace sb::cli
