#include "reports/compare.h"

#include <map>
#include <stdexcept>

#include "reports/runs_of.h"
#include "reports/sample_verdict.h"
#include "reports/stage_row.h"
#include "reports/thresholds.h"

namespace sb {
namespace {

using json = nlohmann::json;

// Cosines closer than this are the same: below the resolution of every tolerance (fp32's
// 0.99999 leaves 1e-5).
constexpr double kCosineResolution = 1e-6;

struct Judged {
  double base = NAN, candidate = NAN, change = NAN, p_value = NAN;
  Verdict verdict = Verdict::ambiguous;
  bool significant = false;  // what a relative rule needs besides the size of the change
  std::string note;
};

double relative_change(double base, double candidate) {
  return base != 0 && std::isfinite(base) && std::isfinite(candidate) ? candidate / base - 1 : NAN;
}

std::vector<double> samples_of(const json& stage) {
  std::vector<double> out;
  if (!stage.is_object()) return out;
  const auto it = stage.find("samples_ms");
  if (it == stage.end() || !it->is_array()) return out;
  for (const json& v : *it)
    if (v.is_number()) out.push_back(v.get<double>());
  return out;
}

const json& stage_json(const json& run, size_t index) {
  static const json null;
  if (!run.is_object() || !run.contains("stages") || !run["stages"].is_array()) return null;
  const json& stages = run["stages"];
  return index < stages.size() ? stages[index] : null;
}

std::string run_name(const RunSummary& r) {
  return r.model + "/" + r.size + "/" + r.backend +
         (r.mode == "inference" ? "" : " (" + r.mode + ")");
}

class Comparer {
 public:
  Comparer(const CompareOptions& o) : o_(o) {
    try {
      rules_ = parse_thresholds(o.thresholds_text);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(std::string("thresholds ") + e.what());
    }
  }

  CompareResult run(const json& base, const json& candidate) {
    const json& base_runs = runs_of(base);
    const json& cand_runs = runs_of(candidate);
    std::vector<RunSummary> cand;
    for (const json& r : cand_runs) cand.push_back(summarize_run(r));
    std::vector<bool> used(cand.size(), false);
    for (const json& b : base_runs) {
      const RunSummary br = summarize_run(b);
      bool matched = false;
      for (size_t i = 0; i < cand.size() && !matched; ++i) {
        const RunSummary& cr = cand[i];
        if (used[i] || cr.model != br.model || cr.size != br.size || cr.backend != br.backend ||
            cr.mode != br.mode)
          continue;
        used[i] = matched = true;
        compare_runs(br, b, cr, cand_runs[i]);
      }
      if (!matched) result_.problems.push_back("run " + run_name(br) + " only in base");
    }
    for (size_t i = 0; i < cand.size(); ++i)
      if (!used[i]) result_.problems.push_back("run " + run_name(cand[i]) + " only in candidate");
    if (!result_.comparable()) result_.problems.push_back("nothing comparable");
    return std::move(result_);
  }

 private:
  void compare_runs(const RunSummary& br, const json& bj, const RunSummary& cr, const json& cj) {
    std::map<std::string, size_t> cand_index;
    for (size_t i = 0; i < cr.stages.size(); ++i) {
      if (!cand_index.emplace(cr.stages[i].id, i).second)
        result_.problems.push_back("run " + run_name(cr) + ": stage " + cr.stages[i].id +
                                   " appears twice in candidate; the first is compared");
    }
    std::map<std::string, bool> seen;
    for (size_t i = 0; i < br.stages.size(); ++i) {
      const StageRow& bs = br.stages[i];
      if (seen[bs.id]) continue;
      seen[bs.id] = true;
      const auto it = cand_index.find(bs.id);
      if (it == cand_index.end()) {
        result_.problems.push_back("run " + run_name(br) + ": stage " + bs.id + " only in base");
        continue;
      }
      compare_stage(br, bs, stage_json(bj, i), cr.stages[it->second], stage_json(cj, it->second));
    }
    for (const StageRow& cs : cr.stages)
      if (!seen.count(cs.id))
        result_.problems.push_back("run " + run_name(cr) + ": stage " + cs.id +
                                   " only in candidate");
  }

  MetricComparison row_for(const RunSummary& run, const StageRow& s, const std::string& metric) {
    MetricComparison m;
    m.model = run.model;
    m.size = run.size;
    m.backend = run.backend;
    m.stage = s.id;
    m.metric = metric;
    if (run.mode != "inference") m.note = "mode " + run.mode;
    return m;
  }

  void compare_stage(const RunSummary& run, const StageRow& b, const json& bj, const StageRow& c,
                     const json& cj) {
    if (b.status != c.status) {
      MetricComparison m = row_for(run, b, "status");
      const bool broke = b.status == "ok" && (c.status == "failed" || c.status == "invalid");
      m.verdict = broke ? Verdict::slower : Verdict::ambiguous;
      m.regression = broke;
      if (broke) m.rule = "ok in base, " + c.status + " in candidate";
      append(m.note, b.status + " -> " + c.status + (c.reason.empty() ? "" : ": " + c.reason));
      result_.regression |= broke;
      result_.rows.push_back(std::move(m));
    }
    const SampleVerdict time = time_samples_verdict(samples_of(bj), samples_of(cj), o_.alpha,
                                                    o_.min_effect, o_.min_samples);
    add(run, b, "time", judge_time(b, c, time));
    add(run, b, "speedup_vs_baseline", judge_speedup(b, c));
    add(run, b, "memory", judge_memory(b, c));
    add(run, b, "throughput", judge_throughput(b, c, time));
    add(run, b, "cosine", judge_cosine(b, c));
  }

  Judged judge_time(const StageRow& b, const StageRow& c, const SampleVerdict& t) const {
    Judged j;
    if (t.test.n_x == 0 || t.test.n_y == 0) {
      j.base = b.median_ms;
      j.candidate = c.median_ms;
      j.change = relative_change(j.base, j.candidate);
      j.note = "no samples on " + std::string(t.test.n_x == 0 ? "base" : "candidate") + " side";
      return j;
    }
    j.base = t.median_base;
    j.candidate = t.median_candidate;
    j.change = t.change;
    j.p_value = t.test.p_value;
    j.verdict = t.verdict;
    j.significant = t.significant;
    j.note = t.note;
    return j;
  }

  Judged judge_speedup(const StageRow& b, const StageRow& c) const {
    Judged j;
    j.base = b.speedup;
    j.candidate = c.speedup;
    j.change = relative_change(j.base, j.candidate);
    if (!std::isfinite(j.base) || !std::isfinite(j.candidate)) return j;
    if (!(b.samples >= o_.min_samples) || !(c.samples >= o_.min_samples)) {
      j.note = "fewer than " + std::to_string(o_.min_samples) + " rounds";
      return j;
    }
    if (!std::isfinite(b.speedup_lo + b.speedup_hi + c.speedup_lo + c.speedup_hi)) {
      j.note = "no 95% interval";
      return j;
    }
    j.significant = c.speedup_lo > b.speedup_hi || c.speedup_hi < b.speedup_lo;
    if (!j.significant) {
      j.verdict = Verdict::same;
      j.note = "95% intervals overlap";
    } else if (std::fabs(j.change) < o_.min_effect) {
      j.verdict = Verdict::same;
      j.note = "intervals disjoint, change below the minimum effect";
    } else {
      j.verdict = j.change > 0 ? Verdict::faster : Verdict::slower;
    }
    return j;
  }

  Judged judge_memory(const StageRow& b, const StageRow& c) const {
    Judged j;
    j.base = b.model_peak_bytes;
    j.candidate = c.model_peak_bytes;
    j.change = relative_change(j.base, j.candidate);
    if (std::isfinite(j.base) && std::isfinite(j.candidate)) {
      j.significant = true;  // byte counts of the model's own tensors: no sampling noise
      if (j.base == j.candidate || std::fabs(j.change) < o_.min_effect) {
        j.verdict = Verdict::same;
      } else {
        j.verdict = j.candidate > j.base ? Verdict::slower : Verdict::faster;
        j.note = j.candidate > j.base ? "more memory" : "less memory";
      }
    }
    return j;
  }

  Judged judge_throughput(const StageRow& b, const StageRow& c, const SampleVerdict& t) const {
    Judged j;
    j.base = b.items_per_s;
    j.candidate = c.items_per_s;
    j.change = relative_change(j.base, j.candidate);
    if (!std::isfinite(j.base) || !std::isfinite(j.candidate)) return j;
    // items / median time: the time samples carry the evidence.
    j.p_value = t.test.p_value;
    j.significant = t.significant;
    j.verdict = t.verdict;
    j.note = "judged on the time samples";
    return j;
  }

  Judged judge_cosine(const StageRow& b, const StageRow& c) const {
    Judged j;
    j.base = b.cosine;
    j.candidate = c.cosine;
    j.change = relative_change(j.base, j.candidate);
    if (!std::isfinite(j.base) || !std::isfinite(j.candidate)) return j;
    j.significant = true;  // deterministic up to rounding
    const double delta = j.candidate - j.base;
    if (std::fabs(delta) <= kCosineResolution) {
      j.verdict = Verdict::same;
    } else {
      j.verdict = delta > 0 ? Verdict::faster : Verdict::slower;
      j.note = delta > 0 ? "closer to the baseline" : "further from the baseline";
    }
    return j;
  }

  static void append(std::string& note, const std::string& text) {
    if (text.empty()) return;
    note += (note.empty() ? "" : "; ") + text;
  }

  void add(const RunSummary& run, const StageRow& s, const std::string& metric, const Judged& j) {
    if (std::isnan(j.base) && std::isnan(j.candidate)) return;  // measured on neither side
    MetricComparison m = row_for(run, s, metric);
    m.base = j.base;
    m.candidate = j.candidate;
    m.change = j.change;
    m.p_value = j.p_value;
    m.verdict = j.verdict;
    append(m.note, j.note);
    apply_rules(m, j.significant);
    result_.regression |= m.regression;
    result_.rows.push_back(std::move(m));
  }

  // The last matching rule of each kind applies: later, more specific lines override earlier
  // general ones, and a relative rule and absolute bounds can hold together.
  void apply_rules(MetricComparison& m, bool significant) {
    const ThresholdRule* last[3] = {nullptr, nullptr, nullptr};
    for (const ThresholdRule& r : rules_)
      if (rule_matches(r, m.model, m.size, m.backend, m.stage, m.metric))
        last[static_cast<int>(r.kind)] = &r;
    std::string passed;
    for (const ThresholdRule* r : last) {
      if (!r) continue;
      const std::string name = "line " + std::to_string(r->line) + ": " + r->text;
      bool broken = false;
      if (r->kind == RuleKind::relative) {
        const bool up = higher_is_worse(m.metric);
        broken = significant && std::isfinite(m.change) &&
                 (up ? m.change > r->value : m.change < r->value);
      } else if (!std::isfinite(m.candidate)) {
        append(m.note, "no candidate value for " + name);
        continue;
      } else if (r->kind == RuleKind::at_least) {
        broken = r->strict ? !(m.candidate > r->value) : !(m.candidate >= r->value);
      } else {
        broken = r->strict ? !(m.candidate < r->value) : !(m.candidate <= r->value);
      }
      if (broken) {
        m.regression = true;
        append(m.rule, name);
      } else {
        passed += (passed.empty() ? "" : ", ") + std::to_string(r->line);
      }
    }
    if (!m.regression && !passed.empty()) m.rule = "ok (line " + passed + ")";
  }

  const CompareOptions& o_;
  std::vector<ThresholdRule> rules_;
  CompareResult result_;
};

}  // namespace

bool CompareResult::comparable() const {
  return !rows.empty();
}

CompareResult compare_documents(const json& base, const json& candidate, const CompareOptions& o) {
  return Comparer(o).run(base, candidate);
}

}  // namespace sb
