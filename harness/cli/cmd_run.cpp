#include <filesystem>
#include <iostream>

#include "collectors/collectors.h"
#include "collectors/timeline_trace.h"
#include "harness/cli/batch_auto.h"
#include "harness/cli/commands.h"
#include "harness/cli/job.h"
#include "harness/cli/model_flags.h"
#include "harness/cli/option_checks.h"
#include "harness/cli/output_lock.h"
#include "harness/cli/output_path.h"
#include "harness/cli/progress_line.h"
#include "harness/cli/repeat_run.h"
#include "harness/cli/run_context.h"
#include "harness/cli/stop_signal.h"
#include "models/registry.h"
#include "probes/probe.h"
#include "reports/gbench.h"
#include "reports/ladder_table.h"
#include "schema/document.h"

namespace sb::cli {
namespace {

struct RunArgs {
  Job job;  // job.request.backend may be "all"
  std::string output = "results/latest.json";
  std::string format = "json";              // or "gbench": Google Benchmark JSON
  std::string timeline;                     // --timeline: Chrome trace-event JSON, or none
  std::vector<std::string> extra_ceilings;  // "tf32=400000": GFLOP/s measured elsewhere
  bool quiet = false;
  int repeat = 1;           // processes (harness/cli/repeat_run.h)
  std::string batch = "0";  // --batch: a number, or "auto" (harness/cli/batch_auto.h)
  std::string memory_cap;   // --memory-cap, with --batch auto only
  std::unique_ptr<ModelOptionFlags> model_options;  // the flags the models declare
};

// What to say when building the workload asked for more memory than there is: the sizes it was
// built from, rather than the bare "std::bad_alloc".
std::string too_large(const Job& job) {
  return job.model + "/" + job.request.size + " on " + job.request.backend +
         (job.request.batch > 0 ? " with --batch " + std::to_string(job.request.batch) : "") +
         " needs more memory than this machine can allocate; choose a smaller --batch or --size";
}

int execute(RunArgs& a) {
  Job job = a.job;
  job.request.options = a.model_options->given();
  const bool batch_auto = a.batch == "auto";
  job.request.batch = batch_auto ? 0 : std::stoll(a.batch);  // kBatchOrAuto checked the text
  if (!a.memory_cap.empty() && !batch_auto)
    throw std::invalid_argument("--memory-cap applies to --batch auto only");
  const uint64_t memory_cap = a.memory_cap.empty() ? 0 : parse_byte_size(a.memory_cap);
  if (batch_auto && a.repeat > 1)
    throw std::invalid_argument(
        "--batch auto with --repeat: search once (--batch auto), then repeat at the batch it "
        "chose (--batch N --repeat K), so that every process runs the same batch");
  const ModelEntry& model = find_model(job.model);
  check_size(model, job.request.size);
  model.check(job.request);  // the options and shapes, before a device is touched
  if (job.request.backend == "cpu" && !job.request.device.empty())
    throw std::invalid_argument("--device '" + job.request.device +
                                "' names an OpenCL device, and the cpu backend has none: drop "
                                "--device or use --backend opencl or all");
  resolve_stages(model, job.stages);
  const std::vector<std::string> backends = resolve_backends(job.request.backend);
  const bool explicit_backend = job.request.backend != "all";
  for (const auto& e : a.extra_ceilings) job.given_ceilings.insert(parse_ceiling(e));
  job.runner.validate();

  check_output(a.output, "-o");
  if (!a.timeline.empty()) {
    check_output(a.timeline, "--timeline");
    if (std::filesystem::weakly_canonical(a.timeline) ==
        std::filesystem::weakly_canonical(a.output))
      throw std::invalid_argument("--timeline '" + a.timeline + "' is the result file (-o)");
  }
  for (const std::string& file : {a.output, a.timeline}) {
    const std::filesystem::path dir = std::filesystem::path(file).parent_path();
    if (!dir.empty()) std::filesystem::create_directories(dir);
  }
  const OutputLock lock(a.output);  // before measuring: a second run on the same file stops now
  if (a.repeat > 1) return run_repeated({a.repeat, a.output, a.format, a.quiet});
  std::vector<RunRecord> runs;
  const std::vector<std::string> papi = job.events.empty() ? kDefaultPapiEvents : job.events;
  nlohmann::json context = run_context(papi, true);
  context["collectors"] = nlohmann::json::array();
  for (const auto& c : make_collectors(papi)) context["collectors"].push_back(describe(*c));
  if (!a.timeline.empty()) job.timeline = std::make_shared<TimelineSink>();
  auto save = [&](const RunRecord* extra_run) {
    nlohmann::json all = runs;
    if (extra_run) all.push_back(*extra_run);
    const nlohmann::json doc = make_document(context, all);
    write_json_atomic(a.output, a.format == "gbench" ? gbench_document(doc) : doc);
    if (job.timeline) write_json_atomic(a.timeline, chrome_trace(job.timeline->stages()));
  };
  JobRunner runner(a.quiet);
  const StopSignals signals("run");
  int rc = 0;
  for (const auto& name : backends) {
    Job one = job;
    one.request.backend = name;
    ProgressLine progress(job.model + "/" + job.request.size + "/" + name, !a.quiet);
    one.runner.progress = [&](const Progress& p) { progress.update(p); };
    one.runner.on_partial = [&](const RunRecord& partial) { save(&partial); };
    one.runner.stop = signals.flag();
    if (job.timeline) job.timeline->begin_run(job.model + "/" + job.request.size + "/" + name);
    RunRecord run;
    try {
      nlohmann::json search;
      if (batch_auto) {
        const BatchAutoResult found = find_batch(runner, one, memory_cap, a.quiet);
        one.request.batch = found.batch;
        search = found.section;
      }
      run = runner.run(one);
      if (!search.is_null()) run.sections["batch_search"] = search;
    } catch (const RunStopped&) {
      progress.finish();
      std::cerr << "stagebench run: interrupted; " << a.output
                << " holds what was measured (\"complete\": false)\n";
      return kExitStopped;
    } catch (const std::bad_alloc&) {
      throw std::invalid_argument(too_large(one));
    } catch (const std::length_error&) {
      throw std::invalid_argument(too_large(one));
    }
    progress.finish();
    if (run.measured_nothing()) {
      // No such backend or device is bad input (exit 2, an older -o stays); a device that failed
      // while the workload was loaded is a failed run, recorded like a sweep's, and the output
      // is replaced so that no older result stands under its name.
      const bool failed = run.status == "failed";
      if (explicit_backend && !failed)
        throw std::invalid_argument(run.reason.value_or("no backend"));
      std::cerr << "stagebench: backend " << name << (failed ? " failed: " : " skipped: ")
                << run.reason.value_or("") << '\n';
      if (failed) rc = kExitFailed;
    }
    for (const auto& s : run.stages)
      if (s.status == "failed") rc = kExitFailed;
    runs.push_back(run);
    save(nullptr);
    if (!run.measured_nothing()) std::cout << ladder_table_text(run) << '\n';
  }
  std::cout << "wrote " << a.output << '\n';
  if (job.timeline)
    std::cout << "wrote " << a.timeline << " (open it in Perfetto or chrome://tracing)\n";
  return rc;
}

}  // namespace

void add_run(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("run", "Run a model's optimization ladder, measured and checked");
  auto a = std::make_shared<RunArgs>();
  Job& job = a->job;
  cmd->add_option("model", job.model, "Model (see `stagebench list`)")->required();
  cmd->add_option("--size", job.request.size, size_help())->capture_default_str();
  cmd->add_option("--backend", job.request.backend, "cpu, opencl or all")->capture_default_str();
  cmd->add_option("--device", job.request.device, "OpenCL device: name substring or P:D");
  cmd->add_option("--stages", job.stages, "Stage ids or indices (default: the whole ladder)")
      ->delimiter(',');
  cmd->add_option("--events", job.events, "PAPI events (default: perf software events + PMU)")
      ->delimiter(',')
      ->check(kNonEmpty);
  cmd->add_option("--noise", job.runner.noise_target, "Target relative noise of the median")
      ->check(kFiniteNumber)
      ->capture_default_str();
  cmd->add_option("--quality", job.runner.quality,
                  "Stopping criteria that must all hold (noise, min-samples, ...)")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--max-time", job.runner.max_time_s, "Seconds of measuring per ladder")
      ->check(kFiniteNumber)
      ->capture_default_str();
  cmd->add_option("--min-samples", job.runner.min_samples)
      ->check(kNonNegativeInteger)
      ->capture_default_str();
  cmd->add_option("--max-samples", job.runner.max_samples)
      ->check(kNonNegativeInteger)
      ->capture_default_str();
  cmd->add_option("--stable-checks", job.runner.stable_checks,
                  "Rounds in a row the quality criteria must hold before sampling stops")
      ->check(kNonNegativeInteger)
      ->capture_default_str();
  cmd->add_option("--warmup", job.runner.warmup_s, "Seconds of warm-up per stage")
      ->check(kFiniteNumber)
      ->capture_default_str();
  cmd->add_option("--lead-in", job.runner.lead_in_runs,
                  "Untimed runs of a stage right before each of its timed samples, so that a "
                  "sample follows a run of its own stage rather than another's")
      ->check(kNonNegativeInteger)
      ->capture_default_str();
  cmd->add_option("--seed", job.request.seed, "Seed of weights and input")
      ->check(kNonNegativeUnsigned)
      ->capture_default_str();
  const std::string weights_notes = per_model_help(&ModelEntry::weights_help);
  cmd->add_option("--weights", job.request.weights,
                  ".safetensors weights, or a folder with model.safetensors (default: seeded "
                  "random)" +
                      (weights_notes.empty() ? "" : "; " + weights_notes))
      ->check(CLI::ExistingPath);
  a->model_options = std::make_unique<ModelOptionFlags>(*cmd, &OptionScope::run);
  // The model's own input file, under the flag the model names it by (its input_flag).
  const auto flag_is = [](const char* flag) {
    return [flag](const ModelEntry& m) { return m.input_flag == flag; };
  };
  auto* input = cmd->add_option("--input", job.request.input,
                                per_model_help(&ModelEntry::input_help, flag_is("input")))
                    ->check(CLI::ExistingFile);
  // --data is not CLI::ExistingFile: the model's reader names a missing or unreadable file itself,
  // and that is bad input (exit 2) like any other.
  cmd->add_option("--data", job.request.input,
                  per_model_help(&ModelEntry::input_help, flag_is("data")))
      ->check(kNonEmpty)
      ->excludes(input);
  cmd->add_option("--batch", a->batch,
                  "Batch (0: the model's default for the size), or auto: the largest batch that "
                  "fits memory and the throughput-best, searched with short probes; the ladder "
                  "runs at the throughput-best")
      ->check(kBatchOrAuto)
      ->capture_default_str();
  cmd->add_option("--memory-cap", a->memory_cap,
                  "--batch auto: the memory a batch may take (512M, 2GiB; default 90% of the "
                  "OpenCL device's, 80% of the host's available)")
      ->check(kByteSize);
  cmd->add_option("-o,--output", a->output, "Result JSON")->capture_default_str();
  cmd->add_option("--timeline", a->timeline,
                  "Also write the kernels and host phases of one measured sample per stage as "
                  "Chrome trace-event JSON (Perfetto, chrome://tracing); with --repeat, the "
                  "last process's")
      ->check(kNonEmpty);
  cmd->add_option("--format", a->format, "json (stagebench/1) or gbench (Google Benchmark)")
      ->check(CLI::IsMember({"json", "gbench"}))
      ->capture_default_str();
  cmd->add_flag("!--no-ceilings", job.measure_ceilings, "Skip measuring the device's ceilings");
  cmd->add_option("--ceiling", a->extra_ceilings,
                  "GEMM ceiling measured elsewhere for a precision, e.g. tf32=400000 (GFLOP/s)")
      ->delimiter(',');
  cmd->add_flag("-q,--quiet", a->quiet, "No progress line");
  cmd->add_option("--repeat", a->repeat,
                  "Run the ladder in K fresh processes, one after the other, and merge them: "
                  "the intervals then hold the variation between processes")
      ->check(kNonNegativeInteger)
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->callback([a, &exit_code] { exit_code = execute(*a); });
}

}  // namespace sb::cli
