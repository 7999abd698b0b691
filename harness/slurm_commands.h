#pragma once
// Slurm's commands as a user runs them: sbatch, squeue, sacct, found on PATH and started as
// processes (nothing of Slurm is linked), and the parsers of their machine-readable output.
#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace sb {

// The executable `name` in a directory of PATH, or nullopt.
std::optional<std::string> find_on_path(const std::string& name);

struct CommandOutput {
  int status = -1;  // exit status; -1 when it did not exit normally (killed, timed out)
  bool timed_out = false;
  std::string out;
  std::string err;
};

// Runs argv (argv[0] looked up on PATH) without a shell, capturing stdout and stderr; a process
// still running after `limit` is killed (a controller that does not answer must not hang us).
// Throws std::runtime_error when it cannot be started.
CommandOutput run_command(const std::vector<std::string>& argv,
                          std::chrono::seconds limit = std::chrono::seconds(60));

// Fails with a message saying which command is missing and what to do: std::invalid_argument
// (exit 2), as for any input this machine cannot serve.
std::string require_on_path(const std::string& name);

// `sbatch --parsable` prints "ID" or "ID;CLUSTER"; the ID. Throws std::runtime_error.
std::string parse_sbatch_id(const std::string& out);

// A scheduler's word on one job or array task, keyed "123" or "123_4".
struct SchedulerState {
  std::string state;   // PENDING, RUNNING, COMPLETED, CANCELLED, FAILED, TIMEOUT, ...
  std::string reason;  // squeue's reason (Dependency, Resources) or sacct's exit code
};
using SchedulerStates = std::map<std::string, SchedulerState>;

// `squeue -h -r -o %i|%T|%r` lines: "123_4|RUNNING|None".
SchedulerStates parse_squeue(const std::string& out);

// `sacct -n -P -X -o JobID,State,ExitCode` lines: "123_4|CANCELLED by 0|0:15"; a pending
// array's "123_[1-3,5%2]" is expanded to its tasks. Later lines win (a requeued job).
SchedulerStates parse_sacct(const std::string& out);

}  // namespace sb
