#include "harness/cli/batch_auto.h"

#include <algorithm>
#include <iostream>
#include <new>
#include <set>
#include <stdexcept>

#include "probes/probe.h"
#include "reports/number_format.h"

namespace sb::cli {
namespace {

struct Cap {
  uint64_t bytes = 0;
  std::string source;
};

Cap default_cap(const Job& job) {
  if (job.request.backend == "cpu") {
    const MemoryInfo m = probe_memory();
    if (m.available_bytes == 0) return {0, "none (the host's available memory is unknown)"};
    return {m.available_bytes / 10 * 8, "80% of the host's available memory (" +
                                            format_bytes(static_cast<double>(m.available_bytes)) +
                                            ")"};
  }
  const std::vector<OpenCLDeviceInfo> devices = probe_opencl(false);
  const OpenCLDeviceInfo* d = select_opencl_device(devices, job.request.device);
  if (!d || d->global_mem_bytes == 0)
    return {0, "none (the OpenCL device's global memory is unknown)"};
  return {d->global_mem_bytes / 10 * 9, "90% of " + d->name + "'s global memory (" +
                                            format_bytes(static_cast<double>(d->global_mem_bytes)) +
                                            ")"};
}

std::string memory_basis(const Job& job) {
  return job.request.backend == "cpu" ? "host_tensor_peak_bytes" : "device_peak_bytes";
}

// The stage whose throughput the search follows: the last of the job's stages that ran at
// batch 1 (a stage the device cannot run is skipped at every batch).
std::string search_stage(const RunRecord& run) {
  for (auto s = run.stages.rbegin(); s != run.stages.rend(); ++s)
    if (s->status != "skipped" && s->status != "failed" && s->throughput.items_per_s) return s->id;
  return {};
}

// Short and light: no ceilings, no timeline, a few samples.
// Every stage of the job runs, so that the peak is the ladder's (a graph stage may hold more
// than stage 0), for a short time each.
Job probe_job(const Job& job, int64_t batch) {
  Job p = job;
  p.request.batch = batch;
  p.measure_ceilings = false;
  p.timeline = nullptr;
  p.runner.max_time_s = std::clamp(job.runner.max_time_s / 10, 0.3, 2.0);
  p.runner.min_samples = 3;
  p.runner.max_samples = 30;
  p.runner.warmup_s = std::min(job.runner.warmup_s, 0.2);
  p.runner.warmup_runs = 1;
  p.runner.keep_samples = false;
  p.runner.progress = nullptr;
  p.runner.on_partial = nullptr;
  return p;
}

// What the first probe (batch 1) decides for the others.
struct Followed {
  std::string stage;             // whose throughput the search follows
  std::set<std::string> failed;  // stages that failed at batch 1: their failure is not the batch's
  bool chosen = false;
};

BatchProbe measure(JobRunner& runner, const Job& job, Followed& followed, int64_t batch,
                   const std::string& basis) {
  BatchProbe p;
  const Job one = probe_job(job, batch);
  RunRecord run;
  try {
    find_model(job.model).check(one.request);
    run = runner.run(one);
  } catch (const std::invalid_argument& e) {
    if (batch == 1) throw;
    p.outcome = "failed";
    p.reason = std::string("the model refuses it: ") + e.what();
    return p;
  } catch (const std::bad_alloc&) {
    p.outcome = "failed";
    p.reason = "allocation failed (std::bad_alloc)";
    return p;
  } catch (const std::length_error& e) {
    p.outcome = "failed";
    p.reason = std::string("allocation failed: ") + e.what();
    return p;
  }
  if (run.measured_nothing()) {
    p.outcome = "failed";
    p.reason = run.reason.value_or("the run measured nothing");
    return p;
  }
  const nlohmann::json ran = run.params.value("batch", nlohmann::json());
  if (ran.is_number_integer() && ran.get<int64_t>() != batch)
    throw std::invalid_argument("--batch auto: " + job.model + " ran batch " + ran.dump() +
                                " when asked for " + std::to_string(batch) +
                                " (its input fixes the batch)");
  if (!followed.chosen) {
    followed.chosen = true;
    followed.stage = search_stage(run);
    for (const StageRecord& s : run.stages)
      if (s.status == "failed") followed.failed.insert(s.id);
  }
  const std::string& stage = followed.stage;
  uint64_t peak = 0;
  bool known = false;
  for (const StageRecord& s : run.stages) {
    if (s.status == "failed" && !followed.failed.count(s.id)) {
      p.outcome = "failed";
      p.reason = s.id + ": " + s.reason.value_or("failed");
      return p;
    }
    const Bytes b =
        basis == "device_peak_bytes" ? s.memory.device_peak_bytes : s.memory.host_tensor_peak_bytes;
    if (b) peak = std::max(peak, *b), known = true;
    if (s.id == stage) {
      p.items_per_s = s.throughput.items_per_s;
      p.median_ms = s.time.median_ms;
    }
  }
  if (known) p.peak_bytes = peak;
  return p;
}

std::string describe(const BatchProbe& p) {
  std::string line = "batch " + std::to_string(p.batch) + ": " + p.outcome;
  if (p.items_per_s) line += ", " + format_significant(*p.items_per_s) + " items/s";
  if (p.peak_bytes)
    line += (p.outcome == "predicted over cap" ? ", about " : ", ") +
            format_bytes(static_cast<double>(*p.peak_bytes));
  if (p.reason) line += " (" + *p.reason + ")";
  return line;
}

}  // namespace

BatchAutoResult find_batch(JobRunner& runner, const Job& job, uint64_t cap_bytes, bool quiet) {
  {  // a model that takes no batch says so before anything runs
    WorkloadRequest two = job.request;
    two.batch = 2;
    try {
      find_model(job.model).check(two);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(std::string("--batch auto: ") + e.what());
    }
  }
  Followed followed;
  const std::string basis = memory_basis(job);
  const Cap cap = cap_bytes > 0 ? Cap{cap_bytes, "--memory-cap"} : default_cap(job);
  const std::string name = job.model + "/" + job.request.size + "/" + job.request.backend;
  if (!quiet)
    std::cerr << "batch search " << name << ": cap "
              << (cap.bytes > 0 ? format_bytes(static_cast<double>(cap.bytes)) : "none") << " ("
              << cap.source << ") of " << basis << '\n';
  BatchSearchOptions options;
  options.memory_cap_bytes = cap.bytes;
  const BatchSearchResult found = search_batch(
      [&](int64_t batch) {
        BatchProbe p = measure(runner, job, followed, batch, basis);
        if (!quiet) {
          BatchProbe shown = p;
          shown.batch = batch;
          if (shown.outcome.empty())
            shown.outcome =
                cap.bytes > 0 && p.peak_bytes && *p.peak_bytes > cap.bytes ? "over cap" : "fits";
          std::cerr << "  " << describe(shown) << '\n';
        }
        return p;
      },
      options);
  if (found.largest_fitting == 0) {
    const BatchProbe& first = found.curve.front();
    if (first.outcome == "failed")
      throw std::runtime_error("--batch auto: " + name +
                               " failed at batch 1: " + first.reason.value_or(""));
    throw std::invalid_argument("--batch auto: " + name + " at batch 1 needs " +
                                format_bytes(static_cast<double>(first.peak_bytes.value_or(0))) +
                                " of " + basis + ", over the cap of " +
                                format_bytes(static_cast<double>(cap.bytes)) + " (" + cap.source +
                                ")");
  }
  BatchAutoResult r;
  r.batch = found.best_throughput > 0 ? found.best_throughput : found.largest_fitting;
  r.section = batch_search_json(found, options, followed.stage, basis, cap.source);
  if (!quiet)
    std::cerr << "batch search " << name << ": throughput of stage " << followed.stage
              << ", largest fitting " << found.largest_fitting << " (limit: " << found.limit
              << "), best throughput " << found.best_throughput << "; the ladder runs at batch "
              << r.batch << '\n';
  return r;
}

}  // namespace sb::cli
