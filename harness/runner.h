#pragma once
// Runs one ladder of one workload and returns its run record (schema/records.h, docs/schema.md).
//
// Method (docs/method.md):
//  1. Stage 0, the baseline, is always measured (added when absent); stages run in index order.
//     A stage whose skip_reason() is non-empty is recorded "skipped" with that reason.
//  2. prepare() every other stage (untimed). A throw makes the stage "failed" (reason = what()),
//     and the ladder goes on without it.
//  3. Warm up each stage on its own: at least warmup_runs runs and at least warmup_s seconds.
//  4. Interleaved rounds: each round runs every live stage once, in order 0, 1, 2, ..., so that
//     machine drift hits all stages alike and the i-th samples of two stages are a pair. Only
//     w.run(s) is inside the timed region (steady_clock). Rounds go on until every live stage's
//     StoppingRule is done (min samples and noise target, or max samples, or the ladder's max
//     time). A stage whose run() throws becomes "failed" and leaves the rounds.
//  5. After each measured run the stage's output is read (untimed, outside the collectors'
//     window) and kept, so the output checked is that of the stage's last run even when stages
//     share buffers. Correctness is every stage's output against stage 0's.
//  6. Speedups are medians of paired ratios over rounds (statistics.h), with a 95% interval.
//
// Collectors: RunnerOptions::make_collectors builds one collector set per stage, because a
// collector keeps per-stage accumulators (begin_stage() resets them) and stages interleave.
// The runner calls begin_stage(w.sources()) once per stage before the rounds, start()/stop()
// around each of that stage's samples (stop in reverse order), and report() when building the
// result. Collectors that are not available() are left out. Collectors reading shared
// bookkeeping (the KernelLog, the allocation trackers) must therefore count between start()
// and stop() only, not clear the shared state in begin_stage().
//
// Crash safety: every exception from a stage (prepare, run, output, its collectors) is caught
// and recorded on that stage. What no exception covers (a crash of the process) is what
// on_partial is for: it receives the run object built from what was measured so far, after the
// warm-up and then at most every partial_interval_s, with "complete": false. A callback that
// throws aborts the ladder (that is how a caller cancels).
//
// Stopping: when RunnerOptions::stop becomes true (a signal handler sets it), the runner stops
// within one run of a stage, in the warm-up as in the rounds: it emits a last partial (so a
// journal or output holds what was measured), releases every prepared stage and throws
// RunStopped. A lost device (contract/device_lost.h) fails the stage it hit and every stage
// not measured yet, with its reason; stages with samples keep them and the rounds end.
#include <atomic>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "collectors/collector.h"
#include "contract/workload.h"
#include "harness/stopping.h"
#include "schema/records.h"

namespace sb {

struct RunInfo {
  std::string model;
  std::string size;
  std::string backend;
  std::string device;
  std::string mode = "inference";  // "inference" | "train"
};

// The device's measured ceilings; a zero ceiling is unknown and leaves its term out.
// peak_gflops is the fp32 GEMM ceiling; gemm_gflops holds the ceilings measured at other
// precisions ("tf32", "bf16", ...), so that a stage computing on tensor cores is held against
// the ceiling of the unit it uses, not against fp32's.
struct DeviceCeilings {
  double peak_gflops = 0;
  double peak_gbytes_per_s = 0;
  std::map<std::string, double> gemm_gflops;
};

struct Progress {
  std::string phase;       // "warmup" | "measure"
  size_t round = 0;        // measured rounds completed before this sample
  size_t stage_index = 0;  // position in the ladder being run, 0-based
  size_t stage_count = 0;
  std::string stage_id;
  size_t samples = 0;    // this stage's measured samples so far
  double elapsed_s = 0;  // since the measured rounds began (0 during warm-up)
  double eta_s = -1;     // upper bound on the measuring time left; < 0 when unknown
};

using CollectorFactory = std::function<std::vector<std::unique_ptr<Collector>>()>;

// The sampling options (stopping.h), and how the runner reports and snapshots.
struct RunnerOptions : SamplingOptions {
  std::function<void(const Progress&)> progress;
  bool keep_samples = true;                // raw per-sample times in each stage's "samples_ms"
  CollectorFactory make_collectors;        // one set per stage; none when empty
  std::optional<DeviceCeilings> ceilings;  // for throughput.roofline_frac
  std::function<void(const RunRecord& run)> on_partial;
  double partial_interval_s = 5;
  const std::atomic<bool>* stop = nullptr;  // set from a signal handler: stop as soon as possible
};

// Thrown by run_ladder when RunnerOptions::stop was set (after the last on_partial).
class RunStopped : public std::runtime_error {
 public:
  RunStopped() : std::runtime_error("run stopped by a signal") {}
};

// Throws std::invalid_argument for a stage index outside w.stages() or bad options, and lets
// an exception from w.params() (called once, first) through; every failure of a stage is
// recorded in the result instead.
RunRecord run_ladder(Workload& w, const RunInfo& info, const std::vector<size_t>& stages,
                     const RunnerOptions& opt);

// The record of a run that measured nothing (its backend could not be made, its job threw):
// status "skipped" or "failed", the reason, no stages.
RunRecord unmeasured_run(const RunInfo& info, const nlohmann::json& params,
                         const std::string& status, const std::string& reason);

}  // namespace sb
