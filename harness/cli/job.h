#pragma once
// One job: one model's ladder at one size on one backend, measured. `run` and `sweep` both run
// their jobs through JobRunner, so a run record looks the same whichever command made it.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "collectors/timeline_collector.h"
#include "harness/runner.h"
#include "models/registry.h"
#include "schema/records.h"

namespace sb::cli {

struct Job {
  std::string model;
  WorkloadRequest request;          // size, backend (one name), device, seed, weights, input, batch
  std::vector<std::string> stages;  // ids or indices; empty: the whole ladder
  std::vector<std::string> events;  // PAPI events; empty: the defaults
  RunnerOptions runner;             // sampling options and the progress/partial hooks
  bool measure_ceilings = true;
  std::map<std::string, double> given_ceilings;  // --ceiling PRECISION=GFLOPS
  // --timeline: one measured sample per stage captured into it (collectors/timeline_collector.h)
  std::shared_ptr<TimelineSink> timeline;
};

// The backend names a job may name (backend_names()), or "all" for every one of them. Throws
// std::invalid_argument "unknown backend 'x' (cpu, opencl, all)".
std::vector<std::string> resolve_backends(const std::string& name);

// make_backend for commands that use one backend the user named (infer, trace): a backend or
// device that cannot be had is bad input (std::invalid_argument, exit 2), as in `run`, not a
// failure of the work (exit 1).
std::unique_ptr<Backend> backend_or_bad_input(const std::string& name, const std::string& device);

// "tf32=400000" -> {"tf32", 400000}; throws std::invalid_argument naming the bad text.
std::pair<std::string, double> parse_ceiling(const std::string& text);

class JobRunner {
 public:
  explicit JobRunner(bool quiet) : quiet_(quiet) {}

  // Measures the job. A backend that cannot be made gives a run that measured nothing, with
  // status "skipped" and the reason; unknown models and stages throw std::invalid_argument.
  // The size is not checked again here: run and sweep check every job's size against the
  // model's declared sizes before anything is measured, and the model refuses any other.
  RunRecord run(const Job& job);

 private:
  // Measured once per backend, device and problem scale in a session.
  DeviceCeilings ceilings_for(Backend& backend, const Job& job);

  bool quiet_;
  std::map<std::string, DeviceCeilings> ceilings_;
};

}  // namespace sb::cli
