#include "reports/stage_row.h"

#include "reports/ladder_table.h"

namespace sb {

const nlohmann::json& member(const nlohmann::json& j, const char* key) {
  static const nlohmann::json null;
  if (!j.is_object()) return null;
  const auto it = j.find(key);
  return it == j.end() ? null : *it;
}

namespace {

using json = nlohmann::json;

std::string joined_reasons(const json& stage) {
  const json& reason = member(stage, "reason");
  if (reason.is_string()) return reason.get<std::string>();
  std::string out;
  const json& reasons = member(stage, "reasons");
  if (!reasons.is_array()) return out;
  for (const json& r : reasons) {
    if (!r.is_string()) continue;
    if (!out.empty()) out += "; ";
    out += r.get<std::string>();
  }
  return out;
}

StageRow summarize_stage(const json& s, int index, const std::string& backend) {
  StageRow r;
  r.index = index;
  r.id = string_at(s, "id", "?");
  r.title = string_at(s, "title");
  r.status = string_at(s, "status", "?");
  r.reason = joined_reasons(s);

  const json& t = member(s, "time");
  r.median_ms = number_at(t, "median_ms");
  r.p10_ms = number_at(t, "p10_ms");
  r.p90_ms = number_at(t, "p90_ms");
  r.stddev_ms = number_at(t, "stddev_ms");
  r.samples = number_at(t, "samples");

  const json& sp = member(s, "speedup");
  r.speedup = number_at(sp, "vs_baseline");
  r.vs_previous = number_at(sp, "vs_previous");
  const json& ci = member(sp, "ci95");
  if (ci.is_array() && ci.size() == 2 && ci[0].is_number() && ci[1].is_number()) {
    r.speedup_lo = ci[0].get<double>();
    r.speedup_hi = ci[1].get<double>();
  }

  const json& mem = member(s, "memory");
  r.host_rss_bytes = number_at(mem, "host_peak_bytes");
  // The model's own peak lives where its tensors live: device buffers on OpenCL, host tensors
  // on the CPU backend; the other figure is the fallback when the preferred one is missing.
  const bool device_first = backend == "opencl";
  const double device = number_at(mem, "device_peak_bytes");
  const double host = number_at(mem, "host_tensor_peak_bytes");
  if (!std::isnan(device) && (device_first || std::isnan(host))) {
    r.model_peak_bytes = device;
    r.model_peak_source = "device";
  } else if (!std::isnan(host)) {
    r.model_peak_bytes = host;
    r.model_peak_source = "host tensors";
  }

  const json& tp = member(s, "throughput");
  r.items_per_s = number_at(tp, "items_per_s");
  r.item_name = string_at(tp, "item_name");
  r.gflops = number_at(tp, "gflops");
  r.roofline_frac = number_at(tp, "roofline_frac");

  const json& cor = member(s, "correctness");
  r.cosine = number_at(cor, "cosine");
  r.tolerance = number_at(cor, "tolerance");
  r.basis = string_at(cor, "basis");
  const json& pass = member(cor, "pass");
  if (pass.is_boolean()) r.correctness_pass = pass.get<bool>() ? 1 : 0;

  const json& claim = member(s, "claim");
  r.claim_speedup = number_at(claim, "speedup");
  r.claim_source = string_at(claim, "source");
  r.claim_text = string_at(claim, "text");
  r.claim_verdict = claim_verdict(s);
  return r;
}

}  // namespace

double number_at(const json& j, const char* key) {
  const json& v = member(j, key);
  return v.is_number() ? v.get<double>() : NAN;
}

std::string string_at(const json& j, const char* key, const std::string& fallback) {
  const json& v = member(j, key);
  return v.is_string() ? v.get<std::string>() : fallback;
}

std::string run_title(const RunSummary& run) {
  std::string t = run.model + " / " + run.size + " / " + run.backend + " on " + run.device;
  if (!run.mode.empty() && run.mode != "inference") t += " (" + run.mode + ")";
  return t;
}

RunSummary summarize_run(const json& run) {
  RunSummary r;
  r.model = string_at(run, "model", "?");
  r.size = string_at(run, "size", "?");
  r.backend = string_at(run, "backend", "?");
  r.device = string_at(run, "device", "?");
  r.mode = string_at(run, "mode");
  const json& stages = member(run, "stages");
  if (!stages.is_array()) return r;
  int i = 0;
  for (const json& s : stages) r.stages.push_back(summarize_stage(s, i++, r.backend));
  return r;
}

}  // namespace sb
