#include "harness/slurm_submit.h"

#include <unistd.h>

#include <chrono>
#include <ctime>
#include <fstream>
#include <stdexcept>

#include "harness/slurm_commands.h"
#include "harness/slurm_script.h"
#include "harness/sweep_config.h"
#include "harness/sweep_status.h"
#include "schema/document.h"
#include "schema/user_file.h"

namespace sb {
namespace {

// Text written whole or not at all: a script half-written by a full disk must not be submitted.
void write_text(const std::filesystem::path& path, const std::string& text, bool executable) {
  const std::filesystem::path tmp = path.string() + ".tmp" + std::to_string(getpid());
  {
    std::ofstream o(tmp, std::ios::binary | std::ios::trunc);
    o << text;
    o.flush();
    if (!o) throw std::runtime_error(tmp.string() + ": cannot write");
  }
  if (executable)
    std::filesystem::permissions(
        tmp, std::filesystem::perms::owner_exec | std::filesystem::perms::group_exec,
        std::filesystem::perm_options::add);
  std::filesystem::rename(tmp, path);
}

std::string now_utc() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

// #SBATCH lines cannot quote: a path with blanks or quotes would be cut or misread there.
void check_path(const std::filesystem::path& p, const std::string& what) {
  for (const char c : p.string())
    if (std::isspace(static_cast<unsigned char>(c)) || c == '"' || c == '\'' || c == '\\' ||
        c == '%')
      throw std::invalid_argument(what + " '" + p.string() +
                                  "': sbatch cannot take a path with blanks, quotes, '\\' or '%'");
}

// The sweep file's name, or the file's stem, as a job name (letters, digits, '_', '.', '-').
std::string job_name(const std::filesystem::path& config) {
  std::string name = config.stem().string();
  // read_sweep_file has refused a malformed file already; this reads it again the same way.
  const nlohmann::json doc = read_json_file(config);
  if (doc.is_object() && doc.contains("name") && doc["name"].is_string())
    name = doc["name"].get<std::string>();
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '-') c = '_';
  return name.substr(0, 64);
}

SlurmResources with_overrides(SlurmResources r, const SlurmResources& o) {
  check_slurm_resources(o, "--");
  if (!o.partition.empty()) r.partition = o.partition;
  if (!o.time.empty()) r.time = o.time;
  if (o.gpus_per_job > 0) r.gpus_per_job = o.gpus_per_job;
  if (o.cpus_per_job > 0) r.cpus_per_job = o.cpus_per_job;
  if (!o.mem.empty()) r.mem = o.mem;
  if (o.shards > 0) r.shards = o.shards;
  for (const auto& e : o.extra) r.extra.push_back(e);
  return r;
}

// Refuses to submit while a job of an earlier submission is queued or running: two tasks of one
// shard would append to one journal.
void check_nothing_queued(const SlurmState& state) {
  if (state.submissions.empty() || !find_on_path("squeue")) return;
  SchedulerStates queue, accounting;
  std::vector<std::string> notes;
  SlurmState last = state;
  last.submissions = {state.submissions.back()};
  ask_scheduler(last, queue, accounting, notes);
  const SlurmSubmission& sub = state.submissions.back();
  std::vector<std::string> ids;
  for (const size_t i : sub.shards) ids.push_back(sub.array_job + "_" + std::to_string(i));
  ids.push_back(sub.merge_job);
  std::string busy;
  for (const auto& id : ids)
    if (queue.count(id) && scheduler_active(queue.at(id).state))
      busy += (busy.empty() ? "" : ", ") + id + " " + queue.at(id).state;
  if (!busy.empty())
    throw std::invalid_argument("jobs of the last submission are still in the queue (" + busy +
                                "): wait for them, or scancel them, then submit again");
}

std::string submit(const std::vector<std::string>& argv) {
  const CommandOutput r = run_command(argv, std::chrono::seconds(120));
  if (r.status != 0) {
    std::string cmd;
    for (const auto& a : argv) cmd += (cmd.empty() ? "" : " ") + a;
    throw std::runtime_error(cmd + " failed" + (r.timed_out ? " (no answer in 120 s)" : "") + ": " +
                             r.err + r.out);
  }
  return parse_sbatch_id(r.out);
}

}  // namespace

int slurm_sweep(const SlurmSweepRequest& req, std::ostream& out) {
  const std::vector<SweepJob> jobs = read_sweep_file(req.config, req.model_options);
  SlurmResources res = with_overrides(read_slurm_file(req.config), req.overrides);
  const size_t shards = res.shards > 0 ? static_cast<size_t>(res.shards) : jobs.size();
  if (shards > jobs.size())
    throw std::invalid_argument("--shards " + std::to_string(shards) + ": the sweep has only " +
                                std::to_string(jobs.size()) + " jobs");

  SlurmScriptSpec spec;
  spec.layout.folder = std::filesystem::weakly_canonical(std::filesystem::absolute(req.folder));
  spec.workdir = std::filesystem::current_path();
  spec.stagebench = std::filesystem::absolute(req.stagebench);
  spec.name = job_name(req.config);
  spec.shards = shards;
  spec.resources = res;
  check_path(spec.layout.folder, "the folder");
  check_path(spec.workdir, "the working directory");
  const SlurmLayout& layout = spec.layout;

  std::vector<std::string> keys;
  for (const auto& j : jobs) keys.push_back(job_key(j));
  SlurmState state;
  std::error_code ec;
  if (std::filesystem::exists(layout.state(), ec)) {
    state = read_slurm_state(layout.state());
    if (state.jobs != keys)
      throw std::invalid_argument(layout.folder.string() +
                                  " holds another sweep (its jobs differ from " +
                                  req.config.string() + "'s): give a new folder");
    if (state.shards != shards)
      throw std::invalid_argument(layout.folder.string() + " was split into " +
                                  std::to_string(state.shards) + " shards, not " +
                                  std::to_string(shards) + ": its journals are those shards'");
  }
  state.shards = shards;
  state.jobs = keys;
  if (req.submit) {
    require_on_path("sbatch");
    check_nothing_queued(state);
  }

  // Only the shards whose journals lack a complete job go into the array.
  const SweepStatus now = sweep_status(layout, state, {}, {});
  for (const auto& s : now.shards)
    if (s.state != "done") spec.array.push_back(s.index);

  std::filesystem::create_directories(layout.logs());
  if (!std::filesystem::equivalent(req.config, layout.config(), ec))
    std::filesystem::copy_file(req.config, layout.config(),
                               std::filesystem::copy_options::overwrite_existing);
  if (!spec.array.empty()) write_text(layout.array_script(), array_script(spec), true);
  write_text(layout.merge_script(), merge_script(spec), true);
  write_json_atomic(layout.state(), to_json(state));

  const size_t missing_jobs = [&] {
    size_t n = 0;
    for (const auto& s : now.shards) n += s.jobs - s.complete;
    return n;
  }();
  out << "sweep " << req.config.string() << ": " << jobs.size() << " jobs in " << shards
      << " shards; "
      << (spec.array.empty() ? std::string("every shard is complete")
                             : std::to_string(spec.array.size()) + " shards to run (" +
                                   std::to_string(missing_jobs) + " jobs)")
      << '\n'
      << "wrote " << layout.folder.string() << "/{" << (spec.array.empty() ? "" : "shards.sbatch,")
      << "merge.sbatch,sweep.json,slurm.json}\n";
  if (!req.submit) {
    out << "submit with --submit (which records the job ids for --status), or by hand:\n";
    if (!spec.array.empty())
      out << "  id=$(sbatch --parsable " << layout.array_script().string() << ")\n"
          << "  sbatch --dependency=afterany:$id " << layout.merge_script().string() << '\n';
    else
      out << "  sbatch " << layout.merge_script().string() << '\n';
    return 0;
  }

  SlurmSubmission sub;
  sub.date = now_utc();
  sub.shards = spec.array;
  if (!spec.array.empty())
    sub.array_job = submit({"sbatch", "--parsable", layout.array_script().string()});
  // Recorded before the merge is submitted: a failing second sbatch must not lose the array's id.
  state.submissions.push_back(sub);
  write_json_atomic(layout.state(), to_json(state));
  std::vector<std::string> merge = {"sbatch", "--parsable"};
  if (!sub.array_job.empty()) merge.push_back("--dependency=afterany:" + sub.array_job);
  merge.push_back(layout.merge_script().string());
  state.submissions.back().merge_job = submit(merge);
  write_json_atomic(layout.state(), to_json(state));
  if (!sub.array_job.empty())
    out << "submitted array job " << sub.array_job << " (tasks " << array_ranges(spec.array)
        << ")\n";
  out << "submitted merge job " << state.submissions.back().merge_job
      << (sub.array_job.empty() ? "" : " (after the array)") << '\n'
      << "follow it with: stagebench sweep --status " << layout.folder.string() << '\n';
  return 0;
}

int slurm_status(const std::filesystem::path& folder, std::ostream& out) {
  const SlurmLayout layout{std::filesystem::absolute(folder)};
  const SlurmState state = read_slurm_state(layout.state());
  SchedulerStates queue, accounting;
  std::vector<std::string> notes;
  ask_scheduler(state, queue, accounting, notes);
  SweepStatus s = sweep_status(layout, state, queue, accounting);
  s.notes = notes;
  print_status(out, folder.string(), s);
  return s.complete() ? 0 : 1;
}

}  // namespace sb
