// `stagebench sweep CONFIG`: runs a sweep file's jobs with a journal, resumable, shardable;
// with --slurm, writes (and submits) the shards as a Slurm array job (docs/sweeps.md).
#include <unistd.h>
#include <atomic>
#include <csignal>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <set>

#include "collectors/collectors.h"
#include "harness/cli/commands.h"
#include "harness/cli/job.h"
#include "harness/cli/option_checks.h"
#include "harness/cli/output_lock.h"
#include "harness/cli/output_path.h"
#include "harness/cli/run_context.h"
#include "harness/cli/stop_signal.h"
#include "harness/slurm_submit.h"
#include "harness/sweep_config.h"
#include "harness/sweep_runner.h"
#include "models/registry.h"
#include "probes/probe.h"
#include "reports/gbench.h"
#include "reports/ladder_table.h"
#include "schema/document.h"
#include "schema/user_file.h"

namespace sb::cli {
namespace {

constexpr int kExitInterrupted = 130;  // 128 + SIGINT, as shells report it

std::atomic<bool> g_cancel{false};
static_assert(std::atomic<bool>::is_always_lock_free, "the signal handler needs a lock-free flag");

extern "C" void on_stop_signal(int sig) {
  g_cancel.store(true);
  static const char msg[] =
      "\nstagebench sweep: stopping after the current run (again to quit at once)\n";
  [[maybe_unused]] const ssize_t n = write(STDERR_FILENO, msg, sizeof msg - 1);
  std::signal(sig, exit_now);  // a second signal ends the process; the journal keeps the rest
}

struct SweepArgs {
  std::string config;
  std::string output = "results/sweep.json";
  std::string journal;  // default: OUTPUT with extension .journal.jsonl
  std::string shard = "0/1";
  std::string format = "json";
  bool resume = false;
  bool restart = false;
  bool quiet = false;
  // --slurm: -o names the folder of the shards, scripts and journals (harness/slurm_submit.h).
  bool slurm = false;
  bool submit = false;
  std::string status;  // --status FOLDER
  SlurmResources resources;
};

// The registry's checks, with the sweep file's place in front of the message.
template <class F>
auto in_field(const std::string& where, F&& check) {
  try {
    return check();
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(where + ": " + e.what());
  }
}

// A sweep job as the one job shape `run` also uses.
Job job_of(const SweepJob& j, const JobHooks& hooks) {
  Job job;
  job.model = j.model;
  job.request.size = j.size;
  job.request.backend = j.backend;
  job.request.device = j.device;
  job.request.seed = j.seed;
  job.request.weights = j.weights;
  for (const auto& [name, option] : j.options) job.request.options[name] = option.value;
  job.request.batch = j.batch;
  job.stages = j.stages;
  job.events = j.events;
  static_cast<SamplingOptions&>(job.runner) = j.runner;
  job.runner.progress = hooks.progress;
  job.runner.on_partial = hooks.partial;
  // How often (at a round's end) a stop request is seen; the journal throttles its writes.
  job.runner.partial_interval_s = 0.25;
  job.runner.stop = &g_cancel;  // seen between runs, in the warm-up too
  job.measure_ceilings = j.ceilings;
  return job;
}

// Every job names a known model, size, backend and stages: checked before anything runs.
void check_jobs(const std::vector<SweepJob>& jobs) {
  // An entry whose device filter no job can use (all its backends are cpu) is a mistake, not a
  // no-op: the user meant an OpenCL device and would get CPU figures.
  std::map<std::string, bool> entry_has_opencl;
  for (const auto& j : jobs) entry_has_opencl[j.origin] |= j.backend != "cpu";
  for (const auto& j : jobs) {
    if (!j.device.empty() && !entry_has_opencl[j.origin])
      throw std::invalid_argument(j.origin + ".device: '" + j.device +
                                  "' names an OpenCL device, and the entry's only backend is cpu");
    const ModelEntry& model =
        in_field(j.origin + ".models", [&]() -> const ModelEntry& { return find_model(j.model); });
    in_field(j.origin + ".sizes", [&] { check_size(model, j.size); });
    in_field(j.origin + ".backends", [&] {
      if (j.backend == "all")
        throw std::invalid_argument("name the backends one by one, not 'all'");
      return resolve_backends(j.backend);
    });
    in_field(j.origin + ".stages", [&] { return resolve_stages(model, j.stages); });
    in_field(j.origin + ".runner", [&] { j.runner.validate(); });  // budgets: harness/stopping.h
    // A job that cannot start is found now, not hours into the sweep: its weights, and what the
    // model says of its options and shapes (a length the model's pools do not divide).
    if (!j.weights.empty() && !std::filesystem::exists(j.weights))
      throw std::invalid_argument(j.origin + ".weights: " + j.weights + " does not exist");
    in_field(j.origin, [&] { model.check(job_of(j, {}).request); });
  }
}

// The output is replaced after every job and the journal appended to: either one naming the
// sweep file (or each other) would destroy it. Refused before anything is written.
void check_paths_apart(const std::filesystem::path& config, const std::filesystem::path& output,
                       const std::filesystem::path& journal) {
  if (same_file(output, config))
    throw std::invalid_argument("-o " + output.string() +
                                " is the sweep file itself: the results would replace it");
  if (same_file(journal, config))
    throw std::invalid_argument("--journal " + journal.string() +
                                " is the sweep file itself: the journal would be appended to it");
  if (same_file(journal, output))
    throw std::invalid_argument("--journal " + journal.string() + " and -o " + output.string() +
                                " name one file: each write of the output would replace the "
                                "journal");
}

nlohmann::json sweep_context(const SweepArgs& a, const std::vector<SweepJob>& all,
                             const std::vector<SweepJob>& mine) {
  std::set<std::string> events;
  bool opencl = false;
  for (const auto& j : mine) {
    for (const auto& e : j.events.empty() ? kDefaultPapiEvents : j.events) events.insert(e);
    opencl = opencl || j.backend == "opencl";
  }
  const std::vector<std::string> papi(events.begin(), events.end());
  nlohmann::json context = run_context(papi, opencl);
  context["collectors"] = nlohmann::json::array();
  for (const auto& c : make_collectors(papi)) context["collectors"].push_back(describe(*c));
  context["sweep"] = {{"config", a.config},
                      {"shard", a.shard},
                      {"jobs_in_sweep", all.size()},
                      {"jobs_in_shard", mine.size()}};
  return context;
}

// Each failed stage and skipped job on stderr, one line each: with -q the ladder tables that
// would show them are not printed, and exit 1 alone does not say what failed.
void report_failures(const nlohmann::json& document) {
  for (const auto& run : document["runs"]) {
    const std::string job =
        run.value("model", "?") + "/" + run.value("size", "?") + "/" + run.value("backend", "?");
    const nlohmann::json& reason = run.contains("reason") ? run["reason"] : nlohmann::json();
    if (run.value("status", "") == "skipped") {
      std::cerr << "stagebench sweep: " << job << " skipped: "
                << (reason.is_string() ? reason.get<std::string>() : "no reason given") << '\n';
    }
    if (!run.contains("stages") || !run["stages"].is_array()) continue;
    for (const auto& stage : run["stages"]) {
      if (stage.value("status", "") != "failed") continue;
      const nlohmann::json& why = stage.contains("reason") ? stage["reason"] : nlohmann::json();
      std::cerr << "stagebench sweep: " << job << " stage " << stage.value("id", "?")
                << " failed: " << (why.is_string() ? why.get<std::string>() : "no reason given")
                << '\n';
    }
  }
}

int execute(const SweepArgs& a) {
  if (a.resume && a.restart)
    throw std::invalid_argument("--resume and --restart exclude each other");
  const std::vector<SweepJob> all = read_sweep_file(a.config, declared_options());
  check_jobs(all);
  const Shard shard = parse_shard(a.shard);
  const std::vector<SweepJob> mine = shard_jobs(all, shard);

  SweepSession s;
  s.jobs = mine;
  s.output = a.output;
  s.journal = a.journal.empty()
                  ? std::filesystem::path(a.output).replace_extension(".journal.jsonl")
                  : std::filesystem::path(a.journal);
  s.config = a.config;
  check_paths_apart(a.config, s.output, s.journal);
  check_output(s.output, "-o");
  check_output(s.journal, "--journal");
  s.mode = a.resume ? JournalMode::kResume : a.restart ? JournalMode::kRestart : JournalMode::kNew;
  s.quiet = a.quiet;
  s.cancel = &g_cancel;
  if (a.format == "gbench") s.render = gbench_document;
  for (const auto& p : {s.output.parent_path(), s.journal.parent_path()})
    if (!p.empty()) std::filesystem::create_directories(p);
  // Two sweeps on one output or one journal (a --resume started twice) would interleave their
  // records and replace each other's output: the second is refused before it runs anything.
  const OutputLock output_lock(s.output), journal_lock(s.journal);
  s.context = sweep_context(a, all, mine);
  s.start_record = {{"date", s.context.value("date", "")},
                    {"argv", s.context.value("argv", nlohmann::json::array())},
                    {"shard", a.shard}};

  JobRunner runner(a.quiet);
  const JobExecutor execute_job = [&runner](const SweepJob& j, const JobHooks& hooks) {
    return runner.run(job_of(j, hooks));
  };
  g_cancel.store(false);
  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
  SweepOutcome out;
  try {
    if (!a.quiet) {
      s.on_job_done = [](const RunRecord& run) {
        if (!run.measured_nothing())
          std::cout << ladder_table_text(run) << std::endl;
      };
    }
    out = run_sweep(s, execute_job);
  } catch (...) {
    exit_on_stop_signals();
    throw;
  }
  exit_on_stop_signals();

  for (const auto& w : out.warnings) std::cerr << "stagebench sweep: " << w << '\n';
  size_t skipped = 0;
  for (const auto& run : out.document["runs"])
    if (run.value("status", "") == "skipped") ++skipped;
  std::cout << "sweep " << a.config << " shard " << a.shard << ": " << out.jobs << " jobs, "
            << out.resumed << " resumed from the journal, " << out.ran << " run, " << out.failed
            << " with failures, " << skipped << " skipped\n"
            << "wrote " << s.output.string() << " (journal " << s.journal.string() << ")\n";
  if (out.cancelled) {
    std::cerr << "stagebench sweep: interrupted; continue with --resume\n";
    return kExitInterrupted;
  }
  report_failures(out.document);
  return out.failed > 0 || skipped > 0 ? kExitFailed : 0;
}

// --slurm and --status: the cluster's side of the sweep, its jobs checked here first.
int execute_slurm(const SweepArgs& a, bool output_given) {
  if (!a.status.empty()) {
    if (!a.config.empty() || a.slurm)
      throw std::invalid_argument("--status FOLDER takes no sweep file and no --slurm");
    return slurm_status(a.status, std::cout);
  }
  if (a.config.empty()) throw std::invalid_argument("--slurm needs the sweep file");
  if (!output_given) throw std::invalid_argument("--slurm needs -o FOLDER: the sweep's folder");
  if (a.resume || a.restart || a.shard != "0/1" || !a.journal.empty())
    throw std::invalid_argument(
        "--slurm chooses the shards, journals and --resume itself: drop --shard, --journal, "
        "--resume and --restart");
  check_jobs(read_sweep_file(a.config, declared_options()));
  SlurmSweepRequest r;
  r.config = a.config;
  r.folder = a.output;
  r.stagebench = std::filesystem::read_symlink("/proc/self/exe");
  r.overrides = a.resources;
  r.submit = a.submit;
  r.model_options = declared_options();
  return slurm_sweep(r, std::cout);
}

}  // namespace

void add_sweep(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "sweep", "Run a sweep file's jobs (models x sizes x backends x batches), resumable");
  auto a = std::make_shared<SweepArgs>();
  // Not required: --status FOLDER needs none (execute checks that a sweep has one).
  cmd->add_option("config", a->config, "Sweep file (JSON, see docs/sweeps.md)")
      ->check(CLI::ExistingFile);
  auto* output =
      cmd->add_option("-o,--output", a->output,
                      "Result file, rewritten after every job; with --slurm, the sweep's folder")
          ->capture_default_str();
  cmd->add_option("--journal", a->journal, "JSON-lines journal (default: OUTPUT.journal.jsonl)")
      ->check(kNonEmpty);
  cmd->add_flag("--resume", a->resume, "Continue the journal's sweep: skip its complete jobs");
  cmd->add_flag("--restart", a->restart, "Discard an existing journal and start over");
  cmd->add_option("--shard", a->shard, "Run shard i of N: the jobs j with j mod N == i")
      ->capture_default_str();
  cmd->add_option("--format", a->format, "json (stagebench/1) or gbench (Google Benchmark)")
      ->check(CLI::IsMember({"json", "gbench"}))
      ->capture_default_str();
  cmd->add_flag("-q,--quiet", a->quiet, "No progress or tables");
  cmd->add_flag("--slurm", a->slurm,
                "Write a Slurm array job (one shard per task) and a merge job into -o FOLDER");
  cmd->add_flag("--submit", a->submit, "With --slurm: submit them through sbatch")
      ->needs("--slurm");
  cmd->add_option("--status", a->status, "Print a --slurm folder's shards: done, running, failed");
  cmd->add_option("--partition", a->resources.partition, "With --slurm: the partition")
      ->check(kNonEmpty)
      ->needs("--slurm");
  cmd->add_option("--gpus-per-job", a->resources.gpus_per_job, "With --slurm: GPUs per task")
      ->check(kNonNegativeInteger)
      ->check(CLI::Range(int64_t{1}, int64_t{1024}))
      ->needs("--slurm");
  cmd->add_option("--cpus-per-job", a->resources.cpus_per_job, "With --slurm: CPUs per task")
      ->check(kNonNegativeInteger)
      ->check(CLI::Range(int64_t{1}, int64_t{100000}))
      ->needs("--slurm");
  cmd->add_option("--time", a->resources.time, "With --slurm: time limit per task (H:MM:SS)")
      ->check(kNonEmpty)
      ->needs("--slurm");
  cmd->add_option("--shards", a->resources.shards,
                  "With --slurm: array tasks (default: the config's, else one per job)")
      ->check(kNonNegativeInteger)
      ->check(CLI::Range(int64_t{1}, int64_t{1000000}))
      ->needs("--slurm");
  cmd->callback([a, output, &exit_code] {
    if (a->slurm || !a->status.empty()) {
      exit_code = execute_slurm(*a, output->count() > 0);
      return;
    }
    if (a->config.empty()) throw std::invalid_argument("sweep: the sweep file is missing");
    exit_code = execute(*a);
  });
}

}  // namespace sb::cli
