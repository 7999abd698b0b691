#include "harness/stage_report.h"

#include <algorithm>
#include <string>

#include "harness/correctness.h"
#include "harness/result_json.h"
#include "harness/statistics.h"

namespace sb {

nlohmann::json empty_stage_result(const StageSpec& spec) {
  using nlohmann::json;
  const json null;
  json claim = {{"source", spec.claim.source},
                {"text", spec.claim.text},
                {"speedup", spec.claim.speedup ? json(*spec.claim.speedup) : null}};
  return {
      {"id", spec.id},
      {"title", spec.title},
      {"claim", claim},
      {"status", "ok"},
      {"reason", null},
      {"reasons", json::array()},
      {"time",
       {{"median_ms", null},
        {"mean_ms", null},
        {"stddev_ms", null},
        {"min_ms", null},
        {"max_ms", null},
        {"p10_ms", null},
        {"p90_ms", null},
        {"cv", null},
        {"samples", 0},
        {"stop_reason", null}}},
      {"speedup", {{"vs_baseline", null}, {"ci95", null}, {"vs_previous", null}}},
      {"throughput",
       {{"items_per_s", null},
        {"item_name", null},
        {"gflops", null},
        {"gbytes_per_s", null},
        {"roofline_frac", null}}},
      {"memory", {{"host_peak_bytes", null}, {"device_peak_bytes", null}}},
      {"counters", json::object()},
      {"opencl", null},
      {"correctness",
       {{"cosine", null},
        {"max_abs", null},
        {"rel_l2", null},
        {"tolerance", spec.tolerance.min_cosine},
        {"basis", spec.tolerance.basis},
        {"pass", null}}},
  };
}

nlohmann::json throughput_json(const WorkCounts& counts, double median_s,
                               const std::optional<DeviceCeilings>& ceilings) {
  using nlohmann::json;
  json t = {{"items_per_s", nullptr},   {"item_name", counts.item_name},
            {"gflops", nullptr},        {"gbytes_per_s", nullptr},
            {"roofline_frac", nullptr}, {"ceiling_precision", nullptr}};
  if (!(median_s > 0)) return t;
  if (counts.items > 0) t["items_per_s"] = counts.items / median_s;
  if (counts.flops > 0) t["gflops"] = counts.flops / median_s / 1e9;
  if (counts.bytes > 0) t["gbytes_per_s"] = counts.bytes / median_s / 1e9;
  if (ceilings) {
    double floor_s = 0;
    // The stage's own precision's ceiling when one was given, else fp32's (a given fp32
    // ceiling wins over the one measured here).
    auto given = [&](const std::string& p) {
      const auto it = ceilings->gemm_gflops.find(p);
      return it != ceilings->gemm_gflops.end() && it->second > 0 ? it->second : 0.0;
    };
    std::string precision = given(counts.precision) > 0 ? counts.precision : "fp32";
    double peak = given(precision) > 0 ? given(precision) : ceilings->peak_gflops;
    if (counts.flops > 0 && peak > 0) {
      floor_s = std::max(floor_s, counts.flops / (peak * 1e9));
      t["ceiling_precision"] = precision;
    }
    if (counts.bytes > 0 && ceilings->peak_gbytes_per_s > 0) {
      floor_s = std::max(floor_s, counts.bytes / (ceilings->peak_gbytes_per_s * 1e9));
    }
    if (floor_s > 0) t["roofline_frac"] = floor_s / median_s;
  }
  return t;
}

namespace {

std::vector<double> to_ms(const std::vector<double>& seconds) {
  std::vector<double> ms(seconds.size());
  std::transform(seconds.begin(), seconds.end(), ms.begin(), [](double s) { return s * 1e3; });
  return ms;
}

nlohmann::json time_json(const Summary& s, const StageState& st) {
  const std::string stop = st.rule ? st.rule->stop_reason() : std::string();
  return {{"median_ms", s.median * 1e3},
          {"mean_ms", s.mean * 1e3},
          {"stddev_ms", s.stddev * 1e3},
          {"min_ms", s.min * 1e3},
          {"max_ms", s.max * 1e3},
          {"p10_ms", s.p10 * 1e3},
          {"p90_ms", s.p90 * 1e3},
          {"cv", number_or_null(s.cv)},
          {"samples", s.n},
          {"stop_reason", stop.empty() ? nlohmann::json() : nlohmann::json(stop)}};
}

nlohmann::json correctness_json(const CorrectnessResult& c) {
  return {{"cosine", number_or_null(c.cosine)},
          {"max_abs", number_or_null(c.max_abs)},
          {"rel_l2", number_or_null(c.rel_l2)},
          {"tolerance", c.tolerance},
          {"basis", c.basis},
          {"pass", c.pass}};
}

std::string join(const std::vector<std::string>& parts, const char* sep) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : sep) + p;
  return out;
}

// Validity of a measured stage (DESIGN.md): min samples, noise target, correctness.
void judge(nlohmann::json& result, const StageState& st, const StageState* baseline,
           const RunnerOptions& opt) {
  std::vector<std::string> reasons;
  const size_t n = st.samples_s.size();
  if (n < static_cast<size_t>(opt.min_samples)) {
    reasons.push_back("samples " + std::to_string(n) + " < min " + std::to_string(opt.min_samples));
  }
  const double noise = relative_median_noise(st.samples_s);
  if (!(noise <= opt.noise_target)) {
    reasons.push_back("noise " + format_percent(noise) + " > " + format_percent(opt.noise_target));
  }
  if (baseline && baseline->has_output && st.has_output) {
    const CorrectnessResult c = compare(st.output, baseline->output, st.spec.tolerance);
    result["correctness"] = correctness_json(c);
    if (!c.pass) reasons.push_back("correctness: " + c.reason);
  } else {
    reasons.push_back(baseline ? "correctness: no output to compare"
                               : "correctness: no baseline output (stage 0 not measured)");
  }
  result["status"] = reasons.empty() ? "ok" : "invalid";
  result["reason"] = reasons.empty() ? nlohmann::json() : nlohmann::json(join(reasons, "; "));
  result["reasons"] = reasons;
}

void add_collector_reports(nlohmann::json& result, const StageState& st) {
  for (const auto& c : st.collectors) {
    try {
      c->report(result, st.counts.items);
    } catch (const std::exception& e) {
      // The timing stands; the collector's figures are missing, and the entry says why.
      result["counters"][c->name()] = {
          {"value", nullptr}, {"per_item", nullptr}, {"tier", "error"}, {"error", e.what()}};
    }
  }
}

}  // namespace

nlohmann::json build_run(const RunInfo& info, const nlohmann::json& params,
                         const std::vector<StageState>& stages, const RunnerOptions& opt,
                         bool complete) {
  const StageState* baseline = nullptr;
  for (const auto& st : stages) {
    if (st.index == 0 && st.measured()) baseline = &st;
  }

  nlohmann::json results = nlohmann::json::array();
  for (const auto& st : stages) {
    nlohmann::json r = empty_stage_result(st.spec);
    if (opt.keep_samples) r["samples_ms"] = to_ms(st.samples_s);
    if (st.phase == StageState::Phase::kSkipped || st.phase == StageState::Phase::kFailed) {
      r["status"] = st.phase == StageState::Phase::kSkipped ? "skipped" : "failed";
      r["reason"] = st.reason;
      r["reasons"] = nlohmann::json::array({st.reason});
      r["time"]["samples"] = st.samples_s.size();
    } else if (st.measured()) {
      const Summary s = summarize(st.samples_s);
      r["time"] = time_json(s, st);
      r["throughput"] = throughput_json(st.counts, s.median, opt.ceilings);
      judge(r, st, baseline, opt);
      add_collector_reports(r, st);
      if (!st.summaries.empty()) r["summaries"] = st.summaries;
    } else {
      r["status"] = "invalid";
      r["reason"] = "not measured yet";
      r["reasons"] = nlohmann::json::array({"not measured yet"});
    }
    results.push_back(std::move(r));
  }

  // Speedups: paired over rounds against stage 0, and against the nearest earlier measured
  // stage (ok or invalid: its time is real even when, say, its correctness check failed).
  const StageState* previous = nullptr;
  for (size_t i = 0; i < stages.size(); ++i) {
    const StageState& st = stages[i];
    if (!st.measured()) continue;
    auto& sp = results[i]["speedup"];
    try {
      if (baseline) {
        const PairedSpeedup vs0 = paired_speedup(baseline->samples_s, st.samples_s);
        sp["vs_baseline"] = vs0.estimate;
        sp["ci95"] = {vs0.ci95.lo, vs0.ci95.hi};
      }
      if (previous) {
        sp["vs_previous"] = paired_speedup(previous->samples_s, st.samples_s).estimate;
      }
    } catch (const std::invalid_argument&) {
      // A zero-length sample (below the clock's resolution): the ratio is unknown, left null.
    }
    previous = &st;
  }

  return {{"model", info.model},   {"size", info.size},           {"backend", info.backend},
          {"device", info.device}, {"mode", info.mode},           {"params", params},
          {"complete", complete},  {"stages", std::move(results)}};
}

}  // namespace sb
