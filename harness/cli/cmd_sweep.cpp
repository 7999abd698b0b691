// `stagebench sweep CONFIG`: runs a sweep file's jobs with a journal, resumable, shardable
// (docs/sweeps.md).
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
#include "harness/cli/run_context.h"
#include "harness/sweep_config.h"
#include "harness/sweep_runner.h"
#include "models/registry.h"
#include "probes/probe.h"
#include "reports/gbench.h"
#include "reports/ladder_table.h"
#include "schema/document.h"

namespace sb::cli {
namespace {

constexpr int kExitInterrupted = 130;  // 128 + SIGINT, as shells report it

std::atomic<bool> g_cancel{false};
static_assert(std::atomic<bool>::is_always_lock_free, "the signal handler needs a lock-free flag");

extern "C" void on_stop_signal(int sig) {
  g_cancel.store(true);
  static const char msg[] =
      "\nstagebench sweep: stopping at the end of the current round (again to quit at once)\n";
  [[maybe_unused]] const ssize_t n = write(STDERR_FILENO, msg, sizeof msg - 1);
  std::signal(sig, SIG_DFL);  // a second signal ends the process; the journal keeps the rest
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

// Every job names a known model, size, backend and stages: checked before anything runs.
void check_jobs(const std::vector<SweepJob>& jobs) {
  for (const auto& j : jobs) {
    const ModelEntry& model =
        in_field(j.origin + ".models", [&]() -> const ModelEntry& { return find_model(j.model); });
    in_field(j.origin + ".sizes", [&] { check_size(model, j.size); });
    in_field(j.origin + ".backends", [&] {
      if (j.backend == "all")
        throw std::invalid_argument("name the backends one by one, not 'all'");
      return resolve_backends(j.backend);
    });
    in_field(j.origin + ".stages", [&] { return resolve_stages(model, j.stages); });
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
  job.request.batch = j.batch;
  job.stages = j.stages;
  job.events = j.events;
  static_cast<SamplingOptions&>(job.runner) = j.runner;
  job.runner.progress = hooks.progress;
  job.runner.on_partial = hooks.partial;
  // How often (at a round's end) a stop request is seen; the journal throttles its writes.
  job.runner.partial_interval_s = 0.25;
  job.measure_ceilings = j.ceilings;
  return job;
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

int execute(const SweepArgs& a) {
  if (a.resume && a.restart)
    throw std::invalid_argument("--resume and --restart exclude each other");
  const std::vector<SweepJob> all = read_sweep_file(a.config);
  check_jobs(all);
  const Shard shard = parse_shard(a.shard);
  const std::vector<SweepJob> mine = shard_jobs(all, shard);

  SweepSession s;
  s.jobs = mine;
  s.output = a.output;
  s.journal = a.journal.empty()
                  ? std::filesystem::path(a.output).replace_extension(".journal.jsonl")
                  : std::filesystem::path(a.journal);
  s.mode = a.resume ? JournalMode::kResume : a.restart ? JournalMode::kRestart : JournalMode::kNew;
  s.quiet = a.quiet;
  s.cancel = &g_cancel;
  if (a.format == "gbench") s.render = gbench_document;
  for (const auto& p : {s.output.parent_path(), s.journal.parent_path()})
    if (!p.empty()) std::filesystem::create_directories(p);
  s.context = sweep_context(a, all, mine);
  s.start_record = {{"date", s.context.value("date", "")},
                    {"argv", s.context.value("argv", nlohmann::json::array())},
                    {"config", a.config},
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
          std::cout << ladder_table_text(nlohmann::json(run)) << std::endl;
      };
    }
    out = run_sweep(s, execute_job);
  } catch (...) {
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    throw;
  }
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);

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
  return out.failed > 0 || skipped > 0 ? kExitFailed : 0;
}

}  // namespace

void add_sweep(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "sweep", "Run a sweep file's jobs (models x sizes x backends x batches), resumable");
  auto a = std::make_shared<SweepArgs>();
  cmd->add_option("config", a->config, "Sweep file (JSON, see docs/sweeps.md)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("-o,--output", a->output, "Result file, rewritten after every job")
      ->capture_default_str();
  cmd->add_option("--journal", a->journal, "JSON-lines journal (default: OUTPUT.journal.jsonl)");
  cmd->add_flag("--resume", a->resume, "Continue the journal's sweep: skip its complete jobs");
  cmd->add_flag("--restart", a->restart, "Discard an existing journal and start over");
  cmd->add_option("--shard", a->shard, "Run shard i of N: the jobs j with j mod N == i")
      ->capture_default_str();
  cmd->add_option("--format", a->format, "json (stagebench/1) or gbench (Google Benchmark)")
      ->check(CLI::IsMember({"json", "gbench"}))
      ->capture_default_str();
  cmd->add_flag("-q,--quiet", a->quiet, "No progress or tables");
  cmd->callback([a, &exit_code] { exit_code = execute(*a); });
}

}  // namespace sb::cli
