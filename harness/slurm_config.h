#pragma once
// The sweep file's optional "slurm" block (docs/sweeps.md, "On a Slurm cluster"): what each
// array task asks the scheduler for. The command line's --partition, --gpus-per-job, --time and
// --shards override it. None of it is part of a job's key: the same measurement may be scheduled
// anywhere.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace sb {

struct SlurmResources {
  std::string partition;           // empty: the cluster's default partition
  std::string time;                // Slurm's time syntax ("90", "01:30:00", "1-00"); empty: default
  int64_t gpus_per_job = 0;        // GPUs per array task (--gres=gpu:G); 0: none asked for
  int64_t cpus_per_job = 0;        // --cpus-per-task; 0: Slurm's default
  std::string mem;                 // --mem ("32G"); empty: default
  int64_t shards = 0;              // array tasks; 0: one per job of the sweep
  std::vector<std::string> extra;  // further sbatch options, each "--name=value" (--account=...)
};

// The "slurm" object of a sweep document, or defaults when it has none. Errors are
// std::invalid_argument "SOURCE: slurm.FIELD: problem", like the rest of the sweep file's.
SlurmResources read_slurm_section(const nlohmann::json& sweep, const std::string& source);

// Reads the sweep file's "slurm" block (the file is otherwise read by read_sweep_file).
SlurmResources read_slurm_file(const std::filesystem::path& path);

// Checks values that go into #SBATCH lines: sbatch cannot quote there, so spaces, quotes and
// newlines are refused (they would also let a value add lines to the script). `where` prefixes
// the message ("--partition", "sweep.json: slurm.partition"). Throws std::invalid_argument.
void check_slurm_resources(const SlurmResources& r, const std::string& where);

}  // namespace sb
