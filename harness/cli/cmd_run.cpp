#include <filesystem>
#include <iostream>

#include "collectors/collectors.h"
#include "harness/cli/commands.h"
#include "harness/cli/progress_line.h"
#include "harness/cli/run_context.h"
#include "harness/result_json.h"
#include "models/ceilings.h"
#include "models/registry.h"
#include "probes/probe.h"
#include "reports/gbench.h"
#include "reports/ladder_table.h"

namespace sb::cli {
namespace {

struct RunArgs {
  std::string model;
  WorkloadRequest req;
  std::vector<std::string> stages;
  std::vector<std::string> events;
  std::string output = "results/latest.json";
  std::string format = "json";  // or "gbench": Google Benchmark JSON
  RunnerOptions runner;
  bool ceilings = true;
  std::vector<std::string> extra_ceilings;  // "tf32=400000": GFLOP/s measured elsewhere
  bool quiet = false;
};

std::vector<std::string> resolve_backends(const std::string& b) {
  if (b == "all") return backend_names();
  for (const auto& known : {"cpu", "opencl"})
    if (b == known) return {b};
  throw std::invalid_argument("unknown backend '" + b + "' (cpu, opencl, all)");
}

int execute(RunArgs& a) {
  const ModelEntry& model = find_model(a.model);
  check_size(model, a.req.size);
  const std::vector<size_t> stages = resolve_stages(model, a.stages);
  const std::vector<std::string> backends = resolve_backends(a.req.backend);
  const bool explicit_backend = a.req.backend != "all";

  const std::filesystem::path out_dir = std::filesystem::path(a.output).parent_path();
  if (!out_dir.empty()) std::filesystem::create_directories(out_dir);
  nlohmann::json runs = nlohmann::json::array();
  const std::vector<std::string> papi = a.events.empty() ? kDefaultPapiEvents : a.events;
  nlohmann::json context = run_context(papi, true);
  context["collectors"] = nlohmann::json::array();
  for (const auto& c : make_collectors(papi).all) context["collectors"].push_back(describe(*c));
  auto save = [&](const nlohmann::json& extra_run) {
    nlohmann::json all = runs;
    if (!extra_run.is_null()) all.push_back(extra_run);
    const nlohmann::json doc = make_document(context, all);
    write_json_atomic(a.output, a.format == "gbench" ? gbench_document(doc) : doc);
  };
  int rc = 0;
  for (const auto& name : backends) {
    std::unique_ptr<Backend> backend;
    try {
      backend = make_backend(name, a.req.device);
    } catch (const std::exception& e) {
      if (explicit_backend) throw std::invalid_argument(e.what());
      std::cerr << "stagebench: backend " << name << " skipped: " << e.what() << '\n';
      runs.push_back({{"model", model.name},
                      {"size", a.req.size},
                      {"backend", name},
                      {"device", a.req.device.empty() ? "none found" : a.req.device},
                      {"mode", "inference"},
                      {"params", nlohmann::json::object()},
                      {"status", "skipped"},
                      {"reason", e.what()},
                      {"stages", nlohmann::json::array()}});
      continue;
    }
    const std::string device = backend->device();
    RunnerOptions opt = a.runner;
    if (a.ceilings) {
      const Ceilings c = measure_ceilings(*backend, name != "cpu" && a.req.size == "full");
      opt.ceilings = DeviceCeilings{c.gemm_gflops, c.stream_gbytes_per_s, {}};
      for (const auto& e : a.extra_ceilings) {
        const auto eq = e.find('=');
        double v = 0;
        try {
          v = eq == std::string::npos ? 0 : std::stod(e.substr(eq + 1));
        } catch (const std::exception&) {
        }
        if (!(v > 0))
          throw std::invalid_argument("--ceiling '" + e +
                                      "': expected PRECISION=GFLOPS, e.g. tf32=400000");
        opt.ceilings->gemm_gflops[e.substr(0, eq)] = v;
      }
      if (!a.quiet)
        std::cerr << name << " ceilings: fp32 GEMM " << c.gemm_gflops << " GFLOP/s, stream "
                  << c.stream_gbytes_per_s << " GB/s\n";
    }
    WorkloadRequest req = a.req;
    req.backend = name;
    auto workload = model.make(req, std::move(backend));
    ProgressLine progress(model.name + "/" + a.req.size + "/" + name, !a.quiet);
    opt.progress = [&](const Progress& p) { progress.update(p); };
    opt.make_collectors = [&papi] { return make_collectors(papi).all; };
    opt.on_partial = [&](const nlohmann::json& partial) { save(partial); };
    nlohmann::json run =
        run_ladder(*workload, {model.name, a.req.size, name, device, "inference"}, stages, opt);
    progress.finish();
    if (a.ceilings && opt.ceilings)
      run["ceilings"] = {{"gemm_fp32_gflops", opt.ceilings->peak_gflops},
                         {"stream_gbytes_per_s", opt.ceilings->peak_gbytes_per_s},
                         {"gemm_gflops_given", opt.ceilings->gemm_gflops},
                         {"method",
                          "fp32 GEMM and stream measured here by the backend's own "
                          "library kernels; gemm_gflops_given from --ceiling"}};
    for (const auto& s : run["stages"])
      if (s.value("status", "") == "failed") rc = kExitFailed;
    runs.push_back(run);
    save(nullptr);
    std::cout << ladder_table_text(run) << '\n';
  }
  std::cout << "wrote " << a.output << '\n';
  return rc;
}

}  // namespace

void add_run(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand("run", "Run a model's optimization ladder, measured and checked");
  auto a = std::make_shared<RunArgs>();
  cmd->add_option("model", a->model, "Model (see `stagebench list`)")->required();
  cmd->add_option("--size", a->req.size, "tiny, small or full")->capture_default_str();
  cmd->add_option("--backend", a->req.backend, "cpu, opencl or all")->capture_default_str();
  cmd->add_option("--device", a->req.device, "OpenCL device: name substring or P:D");
  cmd->add_option("--stages", a->stages, "Stage ids or indices (default: the whole ladder)")
      ->delimiter(',');
  cmd->add_option("--events", a->events, "PAPI events (default: perf software events + PMU)")
      ->delimiter(',');
  cmd->add_option("--noise", a->runner.noise_target, "Target relative noise of the median")
      ->capture_default_str();
  cmd->add_option("--max-time", a->runner.max_time_s, "Seconds of measuring per ladder")
      ->capture_default_str();
  cmd->add_option("--min-samples", a->runner.min_samples)->capture_default_str();
  cmd->add_option("--max-samples", a->runner.max_samples)->capture_default_str();
  cmd->add_option("--warmup", a->runner.warmup_s, "Seconds of warm-up per stage")
      ->capture_default_str();
  cmd->add_option("--seed", a->req.seed, "Seed of weights and input")->capture_default_str();
  cmd->add_option("--weights", a->req.weights, ".safetensors weights (default: seeded random)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--input", a->req.input,
                  "geneformer: token ids [B,S] (.npy/.safetensors, with 'attention_mask' when "
                  "the file holds one) instead of seeded synthetic cells")
      ->check(CLI::ExistingFile);
  cmd->add_option("--batch", a->req.batch, "Batch (0: the model's default for the size)")
      ->capture_default_str();
  cmd->add_option("-o,--output", a->output, "Result JSON")->capture_default_str();
  cmd->add_option("--format", a->format, "json (stagebench/1) or gbench (Google Benchmark)")
      ->check(CLI::IsMember({"json", "gbench"}))
      ->capture_default_str();
  cmd->add_flag("!--no-ceilings", a->ceilings, "Skip measuring the device's ceilings");
  cmd->add_option("--ceiling", a->extra_ceilings,
                  "GEMM ceiling measured elsewhere for a precision, e.g. tf32=400000 (GFLOP/s)")
      ->delimiter(',');
  cmd->add_flag("-q,--quiet", a->quiet, "No progress line");
  cmd->callback([a, &exit_code] { exit_code = execute(*a); });
}

}  // namespace sb::cli
