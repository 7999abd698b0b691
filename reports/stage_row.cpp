#include "reports/stage_row.h"

#include <algorithm>

#include "reports/ladder_table.h"
#include "reports/phase_verdict.h"
#include "schema/json_member.h"

namespace sb {

const nlohmann::json& member(const nlohmann::json& j, const char* key) {
  return json_member(j, key);
}

const std::array<const char*, kTrainPhaseCount>& train_phase_keys() {
  return summary::kStepPhases;
}

const std::array<const char*, kMemorySplitCount>& memory_split_keys() {
  return summary::kMemoryRoles;
}

namespace {

using json = nlohmann::json;

double value(const Number& n) {
  return n ? *n : NAN;
}
double value(const Bytes& n) {
  return n ? static_cast<double>(*n) : NAN;
}

std::string or_unknown(const std::string& s) {
  return s.empty() ? "?" : s;
}

std::string joined_reasons(const StageRecord& s) {
  if (s.reason) return *s.reason;
  std::string out;
  for (const auto& r : s.reasons) out += (out.empty() ? "" : "; ") + r;
  return out;
}

TrainFigures train_figures(const json& summaries) {
  const summary::TrainSummary s = summary::read_train_summary(summaries);
  TrainFigures t;
  t.has_phases = s.has_phases;
  for (size_t i = 0; i < kTrainPhaseCount; ++i) t.phase_ms[i] = value(s.phase_ms[i]);
  for (size_t i = 0; i < kMemorySplitCount; ++i)
    t.memory_split_bytes[i] = value(s.memory_split_bytes[i]);
  t.loss_scale = value(s.loss_scale);
  t.skipped_steps = value(s.skipped_steps);
  t.steps = value(s.steps);
  t.last_loss = value(s.last_loss);
  t.infer_ms = value(s.infer_median_ms);
  t.infer_fps = value(s.infer_fps);
  t.infer_claim = value(s.infer_claimed_speedup);
  return t;
}

StageRow summarize_stage(const StageRecord& s, int index, const std::string& backend,
                         const std::string& claim_unmet) {
  StageRow r;
  r.index = index;
  r.id = or_unknown(s.id);
  r.title = s.title;
  r.status = or_unknown(s.status);
  r.reason = joined_reasons(s);

  r.median_ms = value(s.time.median_ms);
  r.p10_ms = value(s.time.p10_ms);
  r.p90_ms = value(s.time.p90_ms);
  r.stddev_ms = value(s.time.stddev_ms);
  r.samples = static_cast<double>(s.time.samples);
  r.stop_reason = s.time.stop_reason.value_or("");

  r.speedup = value(s.speedup.vs_baseline);
  r.baseline = s.speedup.baseline.value_or("");
  r.vs_previous = value(s.speedup.vs_previous);
  if (s.speedup.ci95 && (*s.speedup.ci95)[0] && (*s.speedup.ci95)[1]) {
    r.speedup_lo = *(*s.speedup.ci95)[0];
    r.speedup_hi = *(*s.speedup.ci95)[1];
  }

  r.host_rss_bytes = value(s.memory.host_peak_bytes);
  // The model's own peak lives where its tensors live: device buffers on OpenCL, host tensors
  // on the CPU backend; the other figure is the fallback when the preferred one is missing.
  const bool device_first = backend == "opencl";
  const double device = value(s.memory.device_peak_bytes);
  r.device_peak_bytes = device;
  const double host = value(s.memory.host_tensor_peak_bytes);
  if (!std::isnan(device) && (device_first || std::isnan(host))) {
    r.model_peak_bytes = device;
    r.model_peak_source = "device";
  } else if (!std::isnan(host)) {
    r.model_peak_bytes = host;
    r.model_peak_source = "host tensors";
  }

  r.items_per_s = value(s.throughput.items_per_s);
  r.item_name = s.throughput.item_name.value_or("");
  r.gflops = value(s.throughput.gflops);
  r.roofline_frac = value(s.throughput.roofline_frac);

  r.cosine = value(s.correctness.cosine);
  r.tolerance = value(s.correctness.tolerance);
  r.basis = s.correctness.basis;
  if (s.correctness.pass) r.correctness_pass = *s.correctness.pass ? 1 : 0;
  r.loss_max_rel = value(s.correctness.loss_max_rel);
  r.loss_tolerance = value(s.correctness.loss_tolerance);
  r.train = train_figures(s.summaries);

  r.claim_speedup = value(s.claim.speedup);
  r.claim_source = s.claim.source;
  r.claim_text = s.claim.text;
  r.claim_speedup_hi = claim_range(s.claim).hi;
  r.claim_verdict = claim_verdict(s, index, claim_unmet);
  r.claim_unmet = claim_unmet;
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

namespace {

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& x : v) out += (out.empty() ? "" : ", ") + x;
  return out;
}

// The fastest variant of `names` that ran and passed the check (or was not checked), by median.
const ReferenceVariant* fastest_correct(const ReferenceRecord& ref,
                                        const std::vector<std::string>& names) {
  const ReferenceVariant* best = nullptr;
  for (const ReferenceVariant& v : ref.variants) {
    if (std::find(names.begin(), names.end(), v.name) == names.end()) continue;
    if (!v.median_ms || !(*v.median_ms > 0) || (v.correct && !*v.correct)) continue;
    if (!best || *v.median_ms < *best->median_ms) best = &v;
  }
  return best;
}

void add_pytorch_ratios(const RunRecord& run, RunSummary& r) {
  if (!run.reference) return;
  for (size_t i = 0; i < run.stages.size(); ++i) {
    const StageRecord& s = run.stages[i];
    StageRow& row = r.stages[i];
    if (s.claim.pytorch.empty()) {
      row.pytorch_note = s.claim.pytorch_none ? "none: " + *s.claim.pytorch_none : "";
      continue;
    }
    size_t base = 0;
    if (s.speedup.baseline)
      for (size_t b = 0; b < run.stages.size(); ++b)
        if (run.stages[b].id == *s.speedup.baseline) base = b;
    const ReferenceVariant* mine = fastest_correct(*run.reference, s.claim.pytorch);
    const ReferenceVariant* theirs =
        fastest_correct(*run.reference, run.stages[base].claim.pytorch);
    if (!mine || !theirs) {
      row.pytorch_note = "no counterpart ran correctly (" + joined(s.claim.pytorch) + ")";
      continue;
    }
    row.pytorch_speedup = *theirs->median_ms / *mine->median_ms;
    row.pytorch_variant = mine->name;
  }
}

}  // namespace

RunSummary summarize_run(const RunRecord& run) {
  RunSummary r;
  r.model = or_unknown(run.model);
  r.size = or_unknown(run.size);
  r.backend = or_unknown(run.backend);
  r.device = or_unknown(run.device);
  r.mode = run.mode;
  for (size_t i = 0; i < run.stages.size(); ++i)
    r.stages.push_back(summarize_stage(run.stages[i], static_cast<int>(i), r.backend,
                                       claim_precondition(run.stages, i)));
  add_pytorch_ratios(run, r);
  for (size_t i = 0; i < run.stages.size(); ++i) {
    const PhaseVerdict v = phase_verdict(run.stages, i);
    r.stages[i].phase_claim_verdict = v.verdict.empty() ? "" : v.phase + ": " + v.verdict;
    r.stages[i].phase_claim = phase_verdict_text(v);
  }
  return r;
}

RunSummary summarize_run(const json& run) {
  std::vector<std::string> ignored;  // what is malformed shows as unknown
  return summarize_run(read_run(run, "run", ignored));
}

}  // namespace sb
