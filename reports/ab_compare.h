#pragma once
// `stagebench compare-ab`: the CI time gate's judgement over an A/B run, in the manner of asv's
// continuous benchmarking (two builds, one machine, interleaved). BASE and CANDIDATE are lists
// of result documents, one per process, run in pairs back to back (scripts/ab-gate.sh): the i-th
// base and the i-th candidate process holding a run are a pair. Each process gives one figure
// per stage, its median time. The variation between processes (clock phases, placement, the
// machine's other jobs) is what a single process's interval misses, and on a shared VM it comes
// in phases longer than a pair, so the judgement is on paired ratios, which cancel it:
//  - for each pair, r = candidate median / base median; the estimate is the median of the r;
//  - its interval is the distribution-free order-statistic interval of that median
//    (stats/statistics.h), 95% where n >= 6 ([min, max] below, coverage 1 - 2^(1-n), stated);
//  - a stage regresses when the estimate is at least `slower` (1.25 by default) and the whole
//    interval lies above 1: the slowdown is large and not explained by the pairs' noise.
// It fails closed: a run or stage every base process measured (ok or invalid) and some
// candidate process lacks, failed or skipped is a regression, whatever its time. A run whose
// params (its workload: shapes, inputs, weights) differ between the two builds is listed, and
// its stages say so: their ratio compares different work, so a speedup or a slowdown there may
// be the workload's (not gated on: a submission may change a workload on purpose). docs/compare.md.
#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace sb {

struct AbOptions {
  double slower = 1.25;  // the ratio at which a significant slowdown fails
};

struct AbStage {
  std::string run, stage;                     // "enformer/tiny/cpu", "graph-compile"
  std::vector<double> base_ms, candidate_ms;  // the process medians, pair by pair
  double ratio = NAN;                         // median of candidate / base over the pairs
  double ratio_lo = NAN, ratio_hi = NAN;      // its interval
  double coverage = NAN;                      // the interval's coverage
  bool regression = false;
  std::string verdict;  // "same", "faster", "slower", "SLOWER (regression)"
  std::string note;
};

struct AbResult {
  std::vector<AbStage> stages;
  std::vector<std::string> vanished;   // measured by every base process, lost in a candidate one
  std::vector<std::string> unsettled;  // not measured by every base process: cannot be gated
  std::vector<std::string> new_in_candidate;  // stages the base never ran: reported only
  // "run R: params.KEY base V, candidate W" for each key both builds' first process of R
  // recorded with another value (keys only one side has are new or dropped fields, not listed)
  std::vector<std::string> params_differ;
  size_t base_processes = 0, candidate_processes = 0;
  bool regression() const;
  // 0 pass, 1 regression or vanished, 2 nothing to compare, 3 something could not be gated.
  int exit_code() const;
};

// Throws std::invalid_argument when either side is empty or a document has no runs.
AbResult compare_ab(const std::vector<nlohmann::json>& base,
                    const std::vector<nlohmann::json>& candidate, const AbOptions& o);

std::string ab_markdown(const AbResult& r, const AbOptions& o);
nlohmann::json ab_json(const AbResult& r, const AbOptions& o);

}  // namespace sb
