#include "harness/slurm_script.h"

#include <sstream>

namespace sb {
namespace {

// The #SBATCH lines both scripts share: where the job starts and what it asks for.
void resource_lines(std::ostream& o, const SlurmScriptSpec& s, bool gpus) {
  const SlurmResources& r = s.resources;
  o << "#SBATCH --chdir=" << s.workdir.string() << '\n';
  if (!r.partition.empty()) o << "#SBATCH --partition=" << r.partition << '\n';
  if (!r.time.empty()) o << "#SBATCH --time=" << r.time << '\n';
  if (gpus && r.gpus_per_job > 0) o << "#SBATCH --gres=gpu:" << r.gpus_per_job << '\n';
  if (r.cpus_per_job > 0) o << "#SBATCH --cpus-per-task=" << r.cpus_per_job << '\n';
  if (!r.mem.empty()) o << "#SBATCH --mem=" << r.mem << '\n';
  for (const auto& e : r.extra) o << "#SBATCH " << e << '\n';
}

}  // namespace

std::filesystem::path SlurmLayout::shard_output(size_t i) const {
  return folder / ("shard-" + std::to_string(i) + ".json");
}

std::filesystem::path SlurmLayout::shard_journal(size_t i) const {
  return folder / ("shard-" + std::to_string(i) + ".journal.jsonl");
}

std::string array_ranges(const std::vector<size_t>& shards) {
  std::string out;
  for (size_t k = 0; k < shards.size();) {
    size_t end = k;
    while (end + 1 < shards.size() && shards[end + 1] == shards[end] + 1) ++end;
    if (!out.empty()) out += ',';
    out += std::to_string(shards[k]);
    if (end > k) out += '-' + std::to_string(shards[end]);
    k = end + 1;
  }
  return out;
}

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (const char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string array_script(const SlurmScriptSpec& s) {
  const std::string n = std::to_string(s.shards);
  std::ostringstream o;
  o << "#!/bin/bash\n"
    << "# Written by `stagebench sweep --slurm` (docs/sweeps.md): array task i runs shard i of "
    << n << ".\n"
    << "# Each task resumes its shard's journal, so a re-submission (or a requeue) runs only the\n"
    << "# jobs that are not complete yet.\n"
    << "#SBATCH --job-name=stagebench-" << s.name << '\n'
    << "#SBATCH --array=" << array_ranges(s.array) << '\n'
    << "#SBATCH --output=" << s.layout.logs().string() << "/shard-%a-%A.out\n";
  resource_lines(o, s, true);
  o << "set -euo pipefail\n"
    << "# The ladders' threads use the CPUs Slurm gave the task, not every core of a shared node.\n"
    << "export OMP_NUM_THREADS=\"${SLURM_CPUS_PER_TASK:-${SLURM_CPUS_ON_NODE:-1}}\"\n"
    << "i=\"$SLURM_ARRAY_TASK_ID\"\n"
    << "dir=" << shell_quote(s.layout.folder.string()) << '\n'
    << "exec " << shell_quote(s.stagebench.string()) << " sweep \"$dir/sweep.json\" --shard \"$i/"
    << n << "\" --resume \\\n"
    << "  -o \"$dir/shard-$i.json\" --journal \"$dir/shard-$i.journal.jsonl\"\n";
  return o.str();
}

std::string merge_script(const SlurmScriptSpec& s) {
  std::ostringstream o;
  o << "#!/bin/bash\n"
    << "# Written by `stagebench sweep --slurm` (docs/sweeps.md): joins the " << s.shards
    << " shards. It runs after\n"
    << "# the array whatever became of it (afterany), so that the shards and jobs that never\n"
    << "# finished are named here (exit 1) instead of going missing without a word.\n"
    << "#SBATCH --job-name=stagebench-" << s.name << "-merge\n"
    << "#SBATCH --output=" << s.layout.logs().string() << "/merge-%j.out\n";
  SlurmScriptSpec one = s;  // one CPU and no GPU: merging and rendering are light
  one.resources.cpus_per_job = 0;
  one.resources.mem.clear();
  resource_lines(o, one, false);
  o << "set -uo pipefail\n"
    << "bin=" << shell_quote(s.stagebench.string()) << '\n'
    << "dir=" << shell_quote(s.layout.folder.string()) << '\n'
    << "\"$bin\" sweep --status \"$dir\"\n"
    << "status=$?\n"
    << "inputs=()\n"
    << "for i in $(seq 0 " << s.shards - 1 << "); do\n"
    << "  if [ -f \"$dir/shard-$i.json\" ]; then inputs+=(\"$dir/shard-$i.json\"); fi\n"
    << "done\n"
    << "if [ ${#inputs[@]} -eq 0 ]; then\n"
    << "  echo \"stagebench sweep: no shard of $dir wrote a result; nothing to merge\" >&2\n"
    << "  exit 1\n"
    << "fi\n"
    << "\"$bin\" merge \"${inputs[@]}\" --config \"$dir/sweep.json\" -o \"$dir/merged.json\" || "
       "status=1\n"
    << "\"$bin\" report \"$dir/merged.json\" -o \"$dir/report.md\" || exit 1\n"
    << "\"$bin\" report \"$dir/merged.json\" --format html -o \"$dir/report.html\" || exit 1\n"
    << "exit \"$status\"\n";
  return o.str();
}

}  // namespace sb
