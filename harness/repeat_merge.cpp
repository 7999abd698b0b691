#include "harness/repeat_merge.h"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <string>

#include "stats/statistics.h"

namespace sb {
namespace {

std::string process_name(size_t p) {
  return "process " + std::to_string(p + 1);
}

void check_same_ladder(const std::vector<RunRecord>& runs) {
  const RunRecord& first = runs.front();
  for (size_t p = 1; p < runs.size(); ++p) {
    const RunRecord& r = runs[p];
    auto differ = [&](const std::string& what, const std::string& a, const std::string& b) {
      throw std::invalid_argument("run --repeat: " + process_name(p) + " ran " + what + " '" + b +
                                  "', process 1 '" + a + "'");
    };
    if (r.model != first.model) differ("model", first.model, r.model);
    if (r.size != first.size) differ("size", first.size, r.size);
    if (r.backend != first.backend) differ("backend", first.backend, r.backend);
    if (r.mode != first.mode) differ("mode", first.mode, r.mode);
    if (r.measured_nothing() || first.measured_nothing()) continue;
    if (r.stages.size() != first.stages.size())
      differ("stage count", std::to_string(first.stages.size()), std::to_string(r.stages.size()));
    for (size_t i = 0; i < r.stages.size(); ++i)
      if (r.stages[i].id != first.stages[i].id) differ("stage", first.stages[i].id, r.stages[i].id);
  }
}

bool measured(const StageRecord& s) {
  return s.samples_ms && !s.samples_ms->empty();
}

// Status and reasons: failed over invalid over ok; skipped only when every process skipped.
void merge_status(StageRecord& out, const std::vector<const StageRecord*>& st) {
  auto with_reasons = [&](const std::string& status, auto&& pick) {
    std::vector<std::string> reasons;
    for (size_t p = 0; p < st.size(); ++p) {
      if (!pick(*st[p])) continue;
      if (st[p]->reasons.empty() && st[p]->reason)
        reasons.push_back(process_name(p) + ": " + *st[p]->reason);
      for (const auto& r : st[p]->reasons) reasons.push_back(process_name(p) + ": " + r);
      if (st[p]->status == "skipped" && status != "skipped" && st[p]->reasons.empty() &&
          !st[p]->reason)
        reasons.push_back(process_name(p) + ": skipped");
    }
    out.status = status;
    out.reasons = reasons;
    std::string joined;
    for (const auto& r : reasons) joined += (joined.empty() ? "" : "; ") + r;
    out.reason = reasons.empty() ? Text() : Text(joined);
  };
  auto any = [&](const std::string& s) {
    return std::any_of(st.begin(), st.end(), [&](const StageRecord* r) { return r->status == s; });
  };
  const bool all_skipped = std::all_of(st.begin(), st.end(),
                                       [](const StageRecord* r) { return r->status == "skipped"; });
  if (all_skipped) {
    out.status = "skipped";  // the first process's reason stands for all
  } else if (any("failed")) {
    with_reasons("failed", [](const StageRecord& r) { return r.status == "failed"; });
  } else if (any("invalid") || any("skipped")) {
    with_reasons("invalid", [](const StageRecord& r) {
      return r.status == "invalid" || r.status == "skipped";
    });
  } else {
    out.status = "ok";
    out.reason.reset();
    out.reasons.clear();
  }
}

TimeRecord time_of(const std::vector<double>& pooled, const std::vector<const StageRecord*>& st) {
  const Summary s = summarize(pooled);
  TimeRecord t;
  t.median_ms = s.median, t.mean_ms = s.mean, t.stddev_ms = s.stddev, t.min_ms = s.min;
  t.max_ms = s.max, t.p10_ms = s.p10, t.p90_ms = s.p90, t.cv = s.cv;
  t.samples = static_cast<int64_t>(s.n);
  std::set<std::string> seen;
  std::string reasons;
  for (size_t p = 0; p < st.size(); ++p) {
    const Text& r = st[p]->time.stop_reason;
    if (r && seen.insert(*r).second) reasons += (reasons.empty() ? "" : "; ") + *r;
  }
  if (!reasons.empty()) t.stop_reason = reasons;
  return t;
}

// Throughput figures are work / median: rescaled from a process's median to the pooled one.
void rescale_throughput(ThroughputRecord& t, double from_median, double to_median) {
  if (!(from_median > 0) || !(to_median > 0)) return;
  const double f = from_median / to_median;
  for (Number* n : {&t.items_per_s, &t.gflops, &t.gbytes_per_s, &t.roofline_frac})
    if (*n) **n *= f;
  if (t.roofline_frac && *t.roofline_frac > 1) t.roofline_frac.reset();  // no floor beaten
}

std::vector<double> paired_ratios(const StageRecord& base, const StageRecord& stage) {
  std::vector<double> out;
  if (!measured(base) || !measured(stage)) return out;
  const auto& b = *base.samples_ms;
  const auto& s = *stage.samples_ms;
  for (size_t r = 0; r < std::min(b.size(), s.size()); ++r)
    if (b[r] > 0 && s[r] > 0) out.push_back(b[r] / s[r]);
  return out;
}

size_t index_of(const RunRecord& run, const std::string& id) {
  for (size_t i = 0; i < run.stages.size(); ++i)
    if (run.stages[i].id == id) return i;
  return run.stages.size();
}

// The stage a stage's speedups are over: the one its record names, else stage 0.
size_t baseline_index(const RunRecord& run, size_t i) {
  const Text& b = run.stages[i].speedup.baseline;
  return b ? index_of(run, *b) : 0;
}

void merge_speedups(RunRecord& out, const std::vector<const RunRecord*>& runs) {
  std::map<std::string, size_t> previous_by_phase;
  for (size_t i = 0; i < out.stages.size(); ++i) {
    StageRecord& s = out.stages[i];
    s.speedup.vs_baseline.reset();
    s.speedup.ci95.reset();
    s.speedup.ci95_coverage.reset();
    s.speedup.vs_previous.reset();
    const bool has_time = s.time.samples > 0;
    const size_t base = baseline_index(out, i);
    const std::string phase = s.speedup.baseline.value_or("");
    std::vector<double> pooled, prev_pooled;
    nlohmann::json per_process = nlohmann::json::array();
    double lo_process = 0, hi_process = 0;
    bool any_process = false;
    const auto prev = previous_by_phase.find(phase);
    for (const RunRecord* run : runs) {
      if (base >= run->stages.size()) break;
      const std::vector<double> r = paired_ratios(run->stages[base], run->stages[i]);
      if (r.empty()) {
        per_process.push_back(nullptr);
      } else {
        const double m = summarize(r).median;
        per_process.push_back(m);
        lo_process = any_process ? std::min(lo_process, m) : m;
        hi_process = any_process ? std::max(hi_process, m) : m;
        any_process = true;
        pooled.insert(pooled.end(), r.begin(), r.end());
      }
      if (prev != previous_by_phase.end()) {
        const std::vector<double> q = paired_ratios(run->stages[prev->second], run->stages[i]);
        prev_pooled.insert(prev_pooled.end(), q.begin(), q.end());
      }
    }
    if (s.sections.count("repeat")) s.sections["repeat"]["vs_baseline"] = per_process;
    if (!pooled.empty() && has_time) {
      const Interval ci = median_ci(pooled, 0.95);
      s.speedup.vs_baseline = summarize(pooled).median;
      s.speedup.ci95 =
          std::array<Number, 2>{std::min(ci.lo, lo_process), std::max(ci.hi, hi_process)};
      s.speedup.ci95_coverage = ci.coverage;
    }
    if (!prev_pooled.empty() && has_time) s.speedup.vs_previous = summarize(prev_pooled).median;
    if (has_time && (s.status == "ok" || s.status == "invalid")) previous_by_phase[phase] = i;
  }
}

StageRecord merge_stage(const std::vector<const StageRecord*>& st) {
  StageRecord out = *st.front();
  merge_status(out, st);
  std::vector<double> pooled;
  nlohmann::json medians = nlohmann::json::array();
  const StageRecord* first_measured = nullptr;
  for (size_t p = 0; p < st.size(); ++p) {
    const StageRecord& s = *st[p];
    if (!measured(s)) {
      if (s.time.samples > 0)
        throw std::invalid_argument("run --repeat: " + process_name(p) + " kept no samples of " +
                                    s.id);
      medians.push_back(nullptr);
      continue;
    }
    pooled.insert(pooled.end(), s.samples_ms->begin(), s.samples_ms->end());
    medians.push_back(summarize(*s.samples_ms).median);
    if (!first_measured) first_measured = &s;
  }
  out.sections["repeat"] = {{"median_ms", medians}};
  if (!first_measured) return out;
  out.samples_ms = pooled;
  out.time = time_of(pooled, st);
  out.precision = first_measured->precision;
  out.gemm_path = first_measured->gemm_path;
  out.throughput = first_measured->throughput;
  out.counters = first_measured->counters;
  out.opencl = first_measured->opencl;
  out.summaries = first_measured->summaries;
  rescale_throughput(out.throughput, first_measured->time.median_ms.value_or(0),
                     *out.time.median_ms);
  for (const StageRecord* s : st) {
    auto keep_max = [](Bytes& a, const Bytes& b) {
      if (b && (!a || *b > *a)) a = b;
    };
    keep_max(out.memory.host_peak_bytes, s->memory.host_peak_bytes);
    keep_max(out.memory.host_tensor_peak_bytes, s->memory.host_tensor_peak_bytes);
    keep_max(out.memory.device_peak_bytes, s->memory.device_peak_bytes);
  }
  // The worst check: a failed one, else the lowest cosine.
  for (const StageRecord* s : st) {
    const CorrectnessRecord& c = s->correctness;
    const CorrectnessRecord& w = out.correctness;
    const bool failed = c.pass && !*c.pass, worst_failed = w.pass && !*w.pass;
    if ((failed && !worst_failed) ||
        (failed == worst_failed && c.cosine && (!w.cosine || *c.cosine < *w.cosine)))
      out.correctness = c;
  }
  return out;
}

}  // namespace

RunRecord merge_repeats(const std::vector<RunRecord>& processes) {
  if (processes.empty()) throw std::invalid_argument("run --repeat: no process to merge");
  check_same_ladder(processes);
  std::vector<const RunRecord*> measuring;
  std::vector<std::string> lost;
  for (size_t p = 0; p < processes.size(); ++p) {
    if (processes[p].measured_nothing())
      lost.push_back(process_name(p) + ": " + processes[p].reason.value_or("measured nothing"));
    else
      measuring.push_back(&processes[p]);
  }
  if (measuring.empty()) return processes.front();
  RunRecord out = *measuring.front();
  out.stages.clear();
  bool complete = true;
  for (const RunRecord& r : processes) complete = complete && r.complete.value_or(true);
  out.complete = complete;
  for (size_t i = 0; i < measuring.front()->stages.size(); ++i) {
    std::vector<const StageRecord*> st;
    for (const RunRecord* r : measuring) st.push_back(&r->stages[i]);
    StageRecord s = merge_stage(st);
    // A process that measured nothing leaves every stage short of the processes asked for.
    if (!lost.empty() && s.status != "skipped" && s.status != "failed") {
      s.status = "invalid";
      for (const auto& l : lost) s.reasons.push_back(l);
      std::string joined;
      for (const auto& r : s.reasons) joined += (joined.empty() ? "" : "; ") + r;
      s.reason = joined;
    }
    out.stages.push_back(std::move(s));
  }
  merge_speedups(out, measuring);
  out.sections["repeat"] = {{"processes", processes.size()}, {"measured", measuring.size()}};
  return out;
}

}  // namespace sb
