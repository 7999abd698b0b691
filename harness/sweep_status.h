#pragma once
// Where a sweep on Slurm stands (`stagebench sweep --status FOLDER`, docs/sweeps.md): per shard,
// its jobs complete, partial and failed from the shard's journal, and its array task's state
// from squeue (queued, running) or sacct (how it ended) where those answer.
#include <cstddef>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/slurm_commands.h"
#include "harness/slurm_script.h"

namespace sb {

// FOLDER/slurm.json: what the folder's sweep is and what was submitted for it.
struct SlurmSubmission {
  std::string date;
  std::vector<size_t> shards;  // the array's tasks
  std::string array_job;       // empty when every shard was complete (merge only)
  std::string merge_job;
};
struct SlurmState {
  size_t shards = 1;
  std::vector<std::string> jobs;  // the sweep's job keys, in order: a re-submission must match
  std::vector<SlurmSubmission> submissions;
};
nlohmann::json to_json(const SlurmState& s);
// Throws std::invalid_argument naming the file when it is missing or malformed.
SlurmState read_slurm_state(const std::filesystem::path& path);

// The job keys of each of `shards` shards (job j in shard j mod N).
std::vector<std::vector<std::string>> shard_keys(const std::vector<std::string>& keys,
                                                 size_t shards);

struct ShardStatus {
  size_t index = 0;
  size_t jobs = 0, complete = 0, partial = 0, failed = 0;
  std::vector<std::string> unfinished;  // "KEY (partial|failed|not started)"
  std::string task;                     // "123_4" of the last submission that ran it
  std::optional<SchedulerState> scheduler;
  std::string state;  // done, queued, running, failed, not submitted
};

struct SweepStatus {
  std::vector<ShardStatus> shards;
  std::string merge_job;
  std::optional<SchedulerState> merge_state;
  std::vector<std::string> notes;  // what could not be asked (squeue not on PATH, ...)
  bool complete() const;
};

// Pure but for reading the shards' journals: `queue` is squeue's answer (jobs still in the
// queue), `accounting` sacct's (how jobs ended); either may be empty.
SweepStatus sweep_status(const SlurmLayout& layout, const SlurmState& state,
                         const SchedulerStates& queue, const SchedulerStates& accounting);

// Whether a scheduler state is one of a job still queued or running.
bool scheduler_active(const std::string& state);

// Asks squeue and sacct (when on PATH) about the state's jobs; notes say what was not answered.
void ask_scheduler(const SlurmState& state, SchedulerStates& queue, SchedulerStates& accounting,
                   std::vector<std::string>& notes);

void print_status(std::ostream& o, const std::string& folder, const SweepStatus& s);

}  // namespace sb
