#pragma once
// The two batch scripts of a sweep on Slurm (docs/sweeps.md, "On a Slurm cluster"): an array
// job whose task i runs shard i of N with --resume, and a merge job, submitted with
// --dependency=afterany on the array, that names the shards that never finished, merges the
// shards' results and renders the report. Pure text: nothing here talks to Slurm.
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "harness/slurm_config.h"

namespace sb {

// Where everything of a Slurm sweep lives inside its folder.
struct SlurmLayout {
  std::filesystem::path folder;  // absolute: the jobs may start in another directory

  std::filesystem::path config() const { return folder / "sweep.json"; }  // the sweep's copy
  std::filesystem::path state() const { return folder / "slurm.json"; }   // shards, submissions
  std::filesystem::path array_script() const { return folder / "shards.sbatch"; }
  std::filesystem::path merge_script() const { return folder / "merge.sbatch"; }
  std::filesystem::path logs() const { return folder / "logs"; }
  std::filesystem::path shard_output(size_t i) const;   // shard-I.json
  std::filesystem::path shard_journal(size_t i) const;  // shard-I.journal.jsonl
  std::filesystem::path merged() const { return folder / "merged.json"; }
  std::filesystem::path report_md() const { return folder / "report.md"; }
  std::filesystem::path report_html() const { return folder / "report.html"; }
};

struct SlurmScriptSpec {
  SlurmLayout layout;
  std::string name;                  // the sweep's name, for the job names
  std::filesystem::path stagebench;  // absolute path of the binary the jobs run
  std::filesystem::path workdir;     // where relative paths of the sweep file resolve (--chdir)
  size_t shards = 1;                 // N
  std::vector<size_t> array;         // the shards this submission runs (all, or the unfinished)
  SlurmResources resources;
};

// "0-2", "1,3-4": sbatch's --array list of the given (sorted, distinct) shard indices.
std::string array_ranges(const std::vector<size_t>& shards);

// Single-quotes `s` for sh: 'it'\''s'.
std::string shell_quote(const std::string& s);

std::string array_script(const SlurmScriptSpec& spec);
std::string merge_script(const SlurmScriptSpec& spec);

}  // namespace sb
