#include "harness/stage_report.h"

#include <algorithm>
#include <map>
#include <string>

#include "harness/correctness.h"
#include "harness/paired_reference.h"
#include "stats/statistics.h"

namespace sb {

StageRecord empty_stage_record(const StageSpec& spec) {
  StageRecord r;
  r.id = spec.id;
  r.title = spec.title;
  r.claim.source = spec.claim.source;
  r.claim.text = spec.claim.text;
  r.claim.speedup = spec.claim.speedup;
  r.claim.pytorch = spec.claim.pytorch;
  if (!spec.claim.pytorch_none.empty()) r.claim.pytorch_none = spec.claim.pytorch_none;
  if (!spec.claim.phase.empty()) {
    r.claim.phase = spec.claim.phase;
    r.claim.phase_speedup_lo = spec.claim.phase_lo;
    r.claim.phase_speedup_hi = spec.claim.phase_hi;
  }
  r.correctness.tolerance = spec.tolerance.min_cosine;
  r.correctness.rel_l2_tolerance = spec.tolerance.max_rel_l2();
  r.correctness.basis = spec.tolerance.basis;
  return r;
}

ThroughputRecord throughput_record(const WorkCounts& counts, double median_s,
                                   const std::optional<DeviceCeilings>& ceilings) {
  ThroughputRecord t;
  t.item_name = counts.item_name;
  if (!(median_s > 0)) return t;
  if (counts.items > 0) t.items_per_s = counts.items / median_s;
  if (counts.flops > 0) t.gflops = counts.flops / median_s / 1e9;
  if (counts.bytes > 0) t.gbytes_per_s = counts.bytes / median_s / 1e9;
  if (ceilings) {
    // The stage's own precision's ceiling: given (--ceiling), or for fp32 the one measured
    // here (a given fp32 ceiling wins). A stage at a precision without one has no fraction:
    // held against fp32's, tensor-core stages read 195% "of peak" on an H100.
    auto given = [&](const std::string& p) {
      const auto it = ceilings->gemm_gflops.find(p);
      return it != ceilings->gemm_gflops.end() && it->second > 0 ? it->second : 0.0;
    };
    const std::string precision = counts.precision.empty() ? "fp32" : counts.precision;
    const double peak = given(precision) > 0  ? given(precision)
                        : precision == "fp32" ? ceilings->peak_gflops
                                              : 0.0;
    if (counts.flops > 0 && !(peak > 0) && precision != "fp32") return t;
    double floor_s = 0;
    if (counts.flops > 0 && peak > 0) {
      floor_s = counts.flops / (peak * 1e9);
      t.ceiling_precision = precision;
    }
    if (counts.bytes > 0 && ceilings->peak_gbytes_per_s > 0) {
      floor_s = std::max(floor_s, counts.bytes / (ceilings->peak_gbytes_per_s * 1e9));
    }
    // A stage faster than the floor shows that the "ceiling" (measured here by the backend's
    // own library kernels, e.g. CLBlast on PoCL) is no ceiling: no fraction rather than one
    // above 100%.
    if (floor_s > 0 && floor_s <= median_s) t.roofline_frac = floor_s / median_s;
  }
  return t;
}

namespace {

std::vector<double> to_ms(const std::vector<double>& seconds) {
  std::vector<double> ms(seconds.size());
  std::transform(seconds.begin(), seconds.end(), ms.begin(), [](double s) { return s * 1e3; });
  return ms;
}

TimeRecord time_record(const Summary& s, const StageState& st) {
  TimeRecord t;
  t.median_ms = s.median * 1e3;
  t.mean_ms = s.mean * 1e3;
  t.stddev_ms = s.stddev * 1e3;
  t.min_ms = s.min * 1e3;
  t.max_ms = s.max * 1e3;
  t.p10_ms = s.p10 * 1e3;
  t.p90_ms = s.p90 * 1e3;
  t.cv = finite_or_unknown(s.cv);
  t.samples = static_cast<int64_t>(s.n);
  const std::string stop = st.rule ? st.rule->stop_reason() : std::string();
  if (!stop.empty()) t.stop_reason = stop;
  return t;
}

CorrectnessRecord correctness_record(const CorrectnessResult& c) {
  CorrectnessRecord r;
  r.cosine = finite_or_unknown(c.cosine);
  r.max_abs = finite_or_unknown(c.max_abs);
  r.rel_l2 = finite_or_unknown(c.rel_l2);
  r.tolerance = c.tolerance;
  r.rel_l2_tolerance = c.rel_l2_tolerance;
  r.basis = c.basis;
  if (c.loss_max_rel) r.loss_max_rel = finite_or_unknown(*c.loss_max_rel);
  r.loss_tolerance = c.loss_tolerance;
  r.pass = c.pass;
  return r;
}

std::string join(const std::vector<std::string>& parts, const char* sep) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : sep) + p;
  return out;
}

void set_reasons(StageRecord& r, const std::string& status, std::vector<std::string> reasons) {
  r.status = status;
  r.reason = reasons.empty() ? Text() : Text(join(reasons, "; "));
  r.reasons = std::move(reasons);
}

// Validity of a measured stage (docs/method.md): the stopping rule's quality criteria, judged
// on the final samples, and correctness against its baseline (stage 0, or the stage its spec
// names): a training stage by its trace, any other by its output.
void judge(StageRecord& r, const StageState& st, const StageState* baseline,
           const std::vector<double>& reference) {
  std::vector<std::string> reasons =
      st.rule->unmet_quality(SampleState{st.samples_s, 0, &reference});
  const Tolerance tolerance = tolerance_that_ran(st.spec.tolerance, st.counts.precision);
  if (baseline && baseline->trace && st.trace) {
    const CorrectnessResult c = compare_training(*st.trace, *baseline->trace, tolerance);
    r.correctness = correctness_record(c);
    if (!c.pass) reasons.push_back("correctness: " + c.reason);
  } else if (baseline && baseline->has_output && st.has_output) {
    const CorrectnessResult c = compare(st.output, baseline->output, tolerance);
    r.correctness = correctness_record(c);
    if (!c.pass) reasons.push_back("correctness: " + c.reason);
  } else {
    reasons.push_back(
        baseline ? "correctness: no output to compare"
                 : "correctness: no baseline output (" +
                       (st.spec.baseline.empty() ? std::string("stage 0") : st.spec.baseline) +
                       " not measured)");
  }
  const char* status = reasons.empty() ? "ok" : "invalid";
  set_reasons(r, status, std::move(reasons));
}

void add_collector_reports(StageRecord& r, const StageState& st) {
  for (const auto& c : st.collectors) {
    try {
      c->report(r, st.counts.items);
    } catch (const std::exception& e) {
      // The timing stands; the collector's figures are missing, and the entry says why.
      r.counters[c->name()] = {std::nullopt, std::nullopt, "error", std::nullopt, e.what()};
    }
  }
}

}  // namespace

std::vector<double> stage_reference(const std::vector<StageState>& stages, size_t i) {
  std::vector<const std::vector<double>*> samples;
  std::optional<size_t> baseline;
  const StageState& st = stages[i];
  for (size_t j = 0; j < stages.size(); ++j) {
    samples.push_back(&stages[j].samples_s);
    const StageState& b = stages[j];
    const bool named = st.spec.baseline.empty() ? b.index == 0 : b.spec.id == st.spec.baseline;
    if (named && b.measured()) baseline = j;
  }
  return paired_reference(samples, i, baseline);
}

RunRecord run_header(const RunInfo& info, const nlohmann::json& params, bool complete) {
  RunRecord run;
  run.model = info.model;
  run.size = info.size;
  run.backend = info.backend;
  run.device = info.device;
  run.mode = info.mode;
  run.params = params;
  run.complete = complete;
  return run;
}

RunRecord build_run(const RunInfo& info, const nlohmann::json& params,
                    const std::vector<StageState>& stages, const RunnerOptions& opt,
                    bool complete) {
  // Each stage's baseline: the measured stage its spec names, else stage 0.
  auto baseline_of = [&](const StageState& st) -> const StageState* {
    for (const auto& b : stages) {
      const bool named = st.spec.baseline.empty() ? b.index == 0 : b.spec.id == st.spec.baseline;
      if (named) return b.measured() ? &b : nullptr;
    }
    return nullptr;
  };

  RunRecord run = run_header(info, params, complete);
  for (size_t i = 0; i < stages.size(); ++i) {
    const StageState& st = stages[i];
    StageRecord r = empty_stage_record(st.spec);
    if (!st.spec.baseline.empty()) r.speedup.baseline = st.spec.baseline;
    if (opt.keep_samples) r.samples_ms = to_ms(st.samples_s);
    if (st.phase == StageState::Phase::kSkipped || st.phase == StageState::Phase::kFailed) {
      set_reasons(r, st.phase == StageState::Phase::kSkipped ? "skipped" : "failed", {st.reason});
      r.time.samples = static_cast<int64_t>(st.samples_s.size());
    } else if (st.measured()) {
      const Summary s = summarize(st.samples_s);
      r.time = time_record(s, st);
      if (!st.counts.precision.empty()) r.precision = st.counts.precision;
      r.throughput = throughput_record(st.counts, s.median, opt.ceilings);
      judge(r, st, baseline_of(st), stage_reference(stages, i));
      add_collector_reports(r, st);
      if (!st.summaries.empty()) r.summaries = st.summaries;
    } else {
      set_reasons(r, "invalid", {"not measured yet"});
    }
    run.stages.push_back(std::move(r));
  }

  // Speedups: paired over rounds against the stage's baseline, and against the nearest earlier
  // measured stage with the same baseline (ok or invalid: its time is real even when, say, its
  // correctness check failed).
  std::map<std::string, const StageState*> previous_by_phase;
  for (size_t i = 0; i < stages.size(); ++i) {
    const StageState& st = stages[i];
    if (!st.measured()) continue;
    const StageState* baseline = baseline_of(st);
    const StageState*& previous = previous_by_phase[st.spec.baseline];
    SpeedupRecord& sp = run.stages[i].speedup;
    try {
      if (baseline) {
        const PairedSpeedup vs0 = paired_speedup(baseline->samples_s, st.samples_s);
        sp.vs_baseline = vs0.estimate;
        sp.ci95 = std::array<Number, 2>{vs0.ci95.lo, vs0.ci95.hi};
        sp.ci95_coverage = vs0.ci95.coverage;
      }
      if (previous) sp.vs_previous = paired_speedup(previous->samples_s, st.samples_s).estimate;
    } catch (const std::invalid_argument&) {
      // A zero-length sample (below the clock's resolution): the ratio is unknown, left null.
    }
    previous = &st;
  }
  return run;
}

}  // namespace sb
