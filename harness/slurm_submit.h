#pragma once
// `stagebench sweep CONFIG --slurm -o FOLDER [--submit]` and `stagebench sweep --status FOLDER`
// (docs/sweeps.md, "On a Slurm cluster"): the folder, its scripts, the submission through sbatch
// and the re-submission of what is missing.
#include <filesystem>
#include <ostream>
#include <vector>

#include "contract/model_options.h"
#include "harness/slurm_config.h"

namespace sb {

struct SlurmSweepRequest {
  std::filesystem::path config;      // the user's sweep file (already checked)
  std::filesystem::path folder;      // everything goes here
  std::filesystem::path stagebench;  // the binary the jobs run
  SlurmResources overrides;          // the command line's; empty or 0 where not given
  bool submit = false;
  std::vector<OptionSpec> model_options;  // what read_sweep_file takes beside its own keys
};

// Writes the folder and, with `submit`, submits the array (only the shards whose journals are
// not complete) and the merge job. Returns the exit status; throws std::invalid_argument on bad
// input (a folder holding another sweep, a job of it still queued, sbatch not on PATH).
int slurm_sweep(const SlurmSweepRequest& request, std::ostream& out);

// Prints the folder's status; 0 when every job of the sweep is complete, 1 otherwise.
int slurm_status(const std::filesystem::path& folder, std::ostream& out);

}  // namespace sb
