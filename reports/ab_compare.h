#pragma once
// `stagebench compare-ab`: the CI time gate's judgement over an A/B run, in the manner of asv's
// continuous benchmarking (two builds, one machine, interleaved). BASE and CANDIDATE are lists
// of result documents, one per process, run alternately (scripts/ab-gate.sh). Each process
// gives one figure per stage, its median time; the variation between processes (clocks,
// placement, page cache, the machine's other jobs) is what a single process's interval misses,
// so the interval here is over processes:
//  - a side's interval is the range [min, max] of its R process medians. It covers the median
//    of the population of process medians with probability 1 - 2 * 0.5^R (R = 5: 93.75%), and
//    the JSON states that coverage;
//  - the ratio is median(candidate) / median(base);
//  - a stage regresses when the ratio is at least `slower` (1.25 by default) and the intervals
//    are disjoint, the candidate's above the base's.
// It fails closed: a run or stage every base process measured (ok or invalid) and some
// candidate process lacks, failed or skipped is a regression, whatever its time. docs/compare.md.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace sb {

struct AbOptions {
  double slower = 1.25;  // the ratio at which a disjoint slowdown fails
};

struct AbStage {
  std::string run, stage;                     // "enformer/tiny/cpu", "graph-compile"
  std::vector<double> base_ms, candidate_ms;  // the process medians, in the order given
  double ratio = NAN;                         // median(candidate) / median(base)
  double base_lo = NAN, base_hi = NAN, candidate_lo = NAN, candidate_hi = NAN;
  double coverage = NAN;  // of the smaller side's range, as the header says
  bool disjoint = false;  // the two ranges do not meet
  bool regression = false;
  std::string verdict;  // "same", "faster", "slower", "SLOWER (regression)", "VANISHED", ...
  std::string note;
};

struct AbResult {
  std::vector<AbStage> stages;
  std::vector<std::string> vanished;   // measured by every base process, lost in a candidate one
  std::vector<std::string> unsettled;  // not measured by every base process: cannot be gated
  std::vector<std::string> new_in_candidate;  // stages the base never ran: reported only
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
