#include "harness/cli/job.h"

#include <cmath>
#include <iostream>

#include "collectors/collectors.h"
#include "harness/stage_report.h"
#include "models/ceilings.h"
#include "probes/probe.h"

namespace sb::cli {

std::vector<std::string> resolve_backends(const std::string& name) {
  const std::vector<std::string> known = backend_names();
  if (name == "all") return known;
  for (const auto& k : known)
    if (name == k) return {name};
  std::string list;
  for (const auto& k : known) list += k + ", ";
  throw std::invalid_argument("unknown backend '" + name + "' (" + list + "all)");
}

std::unique_ptr<Backend> backend_or_bad_input(const std::string& name, const std::string& device) {
  try {
    return make_backend(name, device);
  } catch (const std::invalid_argument&) {
    throw;
  } catch (const std::exception& e) {
    throw std::invalid_argument("--backend " + name +
                                (device.empty() ? "" : " --device " + device) + ": " + e.what());
  }
}

std::pair<std::string, double> parse_ceiling(const std::string& text) {
  const auto eq = text.find('=');
  double v = 0;
  try {
    size_t used = 0;
    if (eq != std::string::npos && eq > 0) v = std::stod(text.substr(eq + 1), &used);
    if (eq + 1 + used != text.size()) v = 0;
  } catch (const std::exception&) {
  }
  if (!(v > 0) || !std::isfinite(v))
    throw std::invalid_argument("--ceiling '" + text +
                                "': expected PRECISION=GFLOPS, e.g. tf32=400000");
  // A misspelt precision would be recorded and never used.
  const std::string precision = text.substr(0, eq);
  std::string known;
  for (const std::string& p : gemm_ceiling_precisions()) {
    if (precision == p) return {precision, v};
    known += (known.empty() ? "" : ", ") + p;
  }
  throw std::invalid_argument("--ceiling '" + text + "': unknown precision '" + precision + "' (" +
                              known + ")");
}

DeviceCeilings JobRunner::ceilings_for(Backend& backend, const Job& job) {
  const std::string& name = job.request.backend;
  const bool large = name != "cpu" && job.request.size == "full";
  const std::string key = name + "|" + backend.device() + "|" + (large ? "L" : "S");
  auto it = ceilings_.find(key);
  if (it == ceilings_.end()) {
    const Ceilings c = measure_ceilings(backend, large);
    it = ceilings_.emplace(key, DeviceCeilings{c.gemm_gflops, c.stream_gbytes_per_s, {}}).first;
    if (!quiet_) {
      std::cerr << name << " ceilings: fp32 GEMM " << c.gemm_gflops
                << " GFLOP/s (n = " << c.gemm_size << "), stream " << c.stream_gbytes_per_s
                << " GB/s\n";
    }
  }
  return it->second;
}

RunRecord JobRunner::run(const Job& job) {
  const ModelEntry& model = find_model(job.model);
  const std::vector<size_t> stages = resolve_stages(model, job.stages);
  const std::string& name = job.request.backend;
  std::unique_ptr<Backend> backend;
  try {
    backend = make_backend(name, job.request.device);
  } catch (const std::exception& e) {
    RunInfo info{model.name, job.request.size, name,
                 job.request.device.empty() ? "none found" : job.request.device, model.mode};
    return unmeasured_run(info, {{"batch", job.request.batch}}, "skipped", e.what());
  }
  const std::string device = backend->device();
  const std::string library_tuning = backend->library_tuning();
  const std::string gemm_paths = backend->gemm_paths();
  RunnerOptions opt = job.runner;
  const std::vector<std::string> papi = job.events.empty() ? kDefaultPapiEvents : job.events;
  opt.make_collectors = [papi, timeline = job.timeline] {
    auto all = make_collectors(papi);
    if (timeline) all.push_back(std::make_unique<TimelineCollector>(timeline));
    return all;
  };
  std::unique_ptr<Workload> workload;
  try {
    if (job.measure_ceilings) {
      opt.ceilings = ceilings_for(*backend, job);
      for (const auto& [precision, gflops] : job.given_ceilings)
        opt.ceilings->gemm_gflops[precision] = gflops;
    }
    workload = model.make(job.request, std::move(backend));
  } catch (const std::invalid_argument&) {
    throw;  // the request is bad input, whatever the device
  } catch (const std::bad_alloc&) {
    throw;  // too large for this machine: named by the command
  } catch (const std::length_error&) {
    throw;
  } catch (const std::exception& e) {
    // The device failed before any stage ran (a lost device, a failed allocation or build while
    // the ceilings were measured or the weights loaded): the run is recorded as failed.
    return unmeasured_run({model.name, job.request.size, name, device, model.mode},
                          {{"batch", job.request.batch}}, "failed",
                          std::string("loading the workload: ") + e.what());
  }
  RunRecord run = run_ladder(
      *workload, {model.name, job.request.size, name, device, workload->mode()}, stages, opt);
  if (!library_tuning.empty()) run.params["library_tuning"] = library_tuning;
  if (!gemm_paths.empty()) run.params["gemm_paths"] = gemm_paths;
  if (opt.ceilings) {
    CeilingsRecord& c = run.ceilings.emplace();
    c.gemm_fp32_gflops = opt.ceilings->peak_gflops;
    c.stream_gbytes_per_s = opt.ceilings->peak_gbytes_per_s;
    c.gemm_gflops_given = job.given_ceilings;
    c.method =
        "fp32 GEMM and stream measured here by the backend's own library kernels; "
        "gemm_gflops_given from --ceiling";
  }
  return run;
}

}  // namespace sb::cli
