#include "reports/compare.h"

#include <cstdio>
#include <map>
#include <set>
#include <stdexcept>

#include "reports/sample_verdict.h"
#include "reports/stage_row.h"
#include "reports/thresholds.h"

namespace sb {
namespace {

using json = nlohmann::json;

// Cosines closer than this are the same: below the resolution of every tolerance (fp32's
// 0.99999 leaves 1e-5).
constexpr double kCosineResolution = 1e-6;

// On too few samples to test, a change this many times a relative rule's threshold is a
// suspected regression even when the samples overlap.
constexpr double kSuspectFactor = 5;

struct Judged {
  double base = NAN, candidate = NAN, change = NAN, p_value = NAN;
  Verdict verdict = Verdict::ambiguous;
  bool significant = false;   // what a relative rule needs besides the size of the change
  bool insufficient = false;  // too little data to test: `why`
  std::string why;
  // The relative change at the worse end of the (1 - alpha) interval (time, throughput); NaN
  // when unknown. A relative rule it reaches past is undecidable unless broken.
  double worst = NAN;
  std::string note;
};

std::string percent_text(double fraction) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%+.1f%%", fraction * 100);
  return buf;
}

double relative_change(double base, double candidate) {
  return base != 0 && std::isfinite(base) && std::isfinite(candidate) ? candidate / base - 1 : NAN;
}

std::vector<double> samples_of(const StageRecord& stage) {
  return stage.samples_ms.value_or(std::vector<double>{});
}

std::string run_name(const RunSummary& r) {
  return r.model + "/" + r.size + "/" + r.backend +
         (r.mode == "inference" ? "" : " (" + r.mode + ")");
}

class Comparer {
 public:
  Comparer(const CompareOptions& o) : o_(o) {
    std::optional<InconclusivePolicy> file_policy;
    try {
      rules_ = parse_thresholds(o.thresholds_text, &file_policy);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(std::string("thresholds ") + e.what());
    }
    result_.policy = o.inconclusive.value_or(file_policy.value_or(InconclusivePolicy::undecidable));
  }

  CompareResult run(const std::vector<RunRecord>& base_runs,
                    const std::vector<RunRecord>& cand_runs) {
    std::vector<RunSummary> cand;
    for (const RunRecord& r : cand_runs) cand.push_back(summarize_run(r));
    std::vector<bool> used(cand.size(), false);
    for (const RunRecord& b : base_runs) {
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
      if (!matched) lost("run " + run_name(br) + " only in base");
    }
    for (size_t i = 0; i < cand.size(); ++i)
      if (!used[i]) result_.problems.push_back("run " + run_name(cand[i]) + " only in candidate");
    if (!result_.comparable()) result_.problems.push_back("nothing comparable");
    result_.hint = hint();
    return std::move(result_);
  }

 private:
  void compare_runs(const RunSummary& br, const RunRecord& bj, const RunSummary& cr,
                    const RunRecord& cj) {
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
        lost("run " + run_name(br) + ": stage " + bs.id + " only in base");
        continue;
      }
      compare_stage(br, bs, bj.stages[i], cr.stages[it->second], cj.stages[it->second]);
    }
    for (const StageRow& cs : cr.stages)
      if (!seen.count(cs.id))
        result_.problems.push_back("run " + run_name(cr) + ": stage " + cs.id +
                                   " only in candidate");
  }

  void lost(const std::string& what) {
    result_.problems.push_back(what);
    result_.vanished.push_back(what);
  }

  static bool measured(const std::string& status) { return status == "ok" || status == "invalid"; }

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

  void compare_stage(const RunSummary& run, const StageRow& b, const StageRecord& bj,
                     const StageRow& c, const StageRecord& cj) {
    both_ok_ = b.status == "ok" && c.status == "ok";
    candidate_ok_ = c.status == "ok";
    if (b.status != c.status) {
      MetricComparison m = row_for(run, b, "status");
      // Measured before and not now is a loss, not a status change to report.
      const bool gone = measured(b.status) && !measured(c.status);
      const bool broke = gone || (b.status == "ok" && c.status == "invalid");
      m.verdict = broke ? Verdict::slower : Verdict::ambiguous;
      m.regression = broke;
      if (broke) m.rule = b.status + " in base, " + c.status + " in candidate";
      append(m.note, b.status + " -> " + c.status + (c.reason.empty() ? "" : ": " + c.reason));
      if (gone) lost("run " + run_name(run) + ": stage " + b.id + " " + c.status + " in candidate");
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
      j.insufficient = true;
      j.why = j.note;
      return j;
    }
    j.base = t.median_base;
    j.candidate = t.median_candidate;
    j.change = t.change;
    j.p_value = t.test.p_value;
    j.verdict = t.verdict;
    j.significant = t.significant;
    j.note = t.note;
    j.insufficient = t.insufficient;
    if (t.insufficient) j.why = sample_count_text(t);
    if (t.median_base > 0) j.worst = t.test.shift_hi / t.median_base;
    return j;
  }

  std::string sample_count_text(const SampleVerdict& t) const {
    return "samples " + std::to_string(t.test.n_x) + " vs " + std::to_string(t.test.n_y) +
           " < min " + std::to_string(o_.min_samples);
  }

  Judged judge_speedup(const StageRow& b, const StageRow& c) const {
    Judged j;
    j.base = b.speedup;
    j.candidate = c.speedup;
    j.change = relative_change(j.base, j.candidate);
    if (!std::isfinite(j.base) || !std::isfinite(j.candidate)) return j;
    if (!(b.samples >= o_.min_samples) || !(c.samples >= o_.min_samples)) {
      j.note = "fewer than " + std::to_string(o_.min_samples) + " rounds";
      j.insufficient = true;
      j.why = "rounds " + number_text(b.samples) + " vs " + number_text(c.samples) + " < min " +
              std::to_string(o_.min_samples);
      return j;
    }
    if (!std::isfinite(b.speedup_lo + b.speedup_hi + c.speedup_lo + c.speedup_hi)) {
      j.note = "no 95% interval";
      j.insufficient = true;
      j.why = "no 95% interval of the speedup";
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
    j.insufficient = t.insufficient;
    if (t.insufficient) j.why = sample_count_text(t);
    const double time_worst = t.median_base > 0 ? t.test.shift_hi / t.median_base : NAN;
    if (time_worst > -1) j.worst = 1 / (1 + time_worst) - 1;
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
    apply_rules(m, j);
    result_.regression |= m.regression;
    result_.suspected += m.suspected;
    result_.undecidable += m.undecidable;
    result_.rows.push_back(std::move(m));
  }

  static std::string number_text(double v) {
    return std::isfinite(v) ? std::to_string(static_cast<long long>(v)) : "?";
  }

  // A relative rule that the change does not significantly break: false when it is
  // undecidable or suspected (listed there), true when the data keep it.
  bool judge_relative(MetricComparison& m, const Judged& j, const ThresholdRule& r,
                      std::string& undecidable, std::string& suspected, std::string& passed) {
    const bool up = higher_is_worse(m.metric);
    auto beyond = [up](double change, double limit) {
      return std::isfinite(change) && (up ? change > limit : change < limit);
    };
    auto list = [&r](std::string& to) { to += (to.empty() ? "" : ", ") + std::to_string(r.line); };
    auto inconclusive = [&m](const std::string& why) {
      if (m.inconclusive_reason.empty()) m.inconclusive_reason = why;
    };
    if (!std::isfinite(m.base) || !std::isfinite(m.candidate)) {
      // Only a stage measured (ok) on both sides is owed a judgement.
      if (!both_ok_) {
        list(passed);
        return false;
      }
      list(undecidable);
      inconclusive(std::string("no ") + (std::isfinite(m.base) ? "candidate" : "base") + " value");
      return false;
    }
    if (j.insufficient) {
      if (m.verdict == Verdict::faster_suspected) return true;  // every sample better
      const bool large =
          beyond(m.change, r.value) && std::fabs(m.change) >= o_.min_effect &&
          (m.verdict == Verdict::slower_suspected || beyond(m.change, kSuspectFactor * r.value));
      if (large) {
        m.verdict = Verdict::slower_suspected;
        list(suspected);
        inconclusive(j.why + ", " + percent_text(m.change));
      } else {
        list(undecidable);
        inconclusive(j.why);
      }
      return false;
    }
    if (m.verdict == Verdict::ambiguous && beyond(j.worst, r.value)) {
      list(undecidable);
      inconclusive("not significant, interval reaches " + percent_text(j.worst) +
                   " past the rule's " + percent_text(r.value));
      return false;
    }
    return true;
  }

  // The last matching rule of each kind applies: later, more specific lines override earlier
  // general ones, and a relative rule and absolute bounds can hold together. A rule that is
  // not broken is either kept (the data rule out a break), undecidable (they cannot), or, on too
  // few samples with a large change past it, suspected (docs/compare.md).
  void apply_rules(MetricComparison& m, const Judged& j) {
    const ThresholdRule* last[3] = {nullptr, nullptr, nullptr};
    for (const ThresholdRule& r : rules_)
      if (rule_matches(r, m.model, m.size, m.backend, m.stage, m.metric))
        last[static_cast<int>(r.kind)] = &r;
    std::string passed, suspected, undecidable;
    auto list = [](std::string& to, const ThresholdRule& r) {
      to += (to.empty() ? "" : ", ") + std::to_string(r.line);
    };
    auto inconclusive = [&](const std::string& why) {
      if (m.inconclusive_reason.empty()) m.inconclusive_reason = why;
    };
    const bool up = higher_is_worse(m.metric);
    auto beyond = [up](double change, double limit) {
      return std::isfinite(change) && (up ? change > limit : change < limit);
    };
    for (const ThresholdRule* r : last) {
      if (!r) continue;
      const std::string name = "line " + std::to_string(r->line) + ": " + r->text;
      bool broken = false;
      if (r->kind == RuleKind::relative) {
        broken = j.significant && beyond(m.change, r->value);
        if (!broken && !judge_relative(m, j, *r, undecidable, suspected, passed)) continue;
      } else if (!std::isfinite(m.candidate)) {
        append(m.note, "no candidate value for " + name);
        if (candidate_ok_) {
          list(undecidable, *r);
          inconclusive("no candidate value");
        }
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
        list(passed, *r);
      }
    }
    if (m.regression) {
      m.inconclusive_reason.clear();
      return;
    }
    m.suspected = !suspected.empty();
    m.undecidable = !m.suspected && !undecidable.empty();
    if (m.suspected) {
      // The rule as written: the suspected break is what the row is about.
      for (const ThresholdRule* r : last)
        if (r && r->kind == RuleKind::relative)
          m.rule = "suspected: line " + std::to_string(r->line) + ": " + r->text;
    } else if (m.undecidable) {
      m.rule = "undecidable (line " + undecidable + ")";
    } else if (!passed.empty()) {
      m.rule = "ok (line " + passed + ")";
    }
  }

  // "3 comparisons undecidable: samples 4 vs 4 < min 5; rerun with ...".
  std::string hint() const {
    const CompareResult& r = result_;
    if (r.suspected == 0 && r.undecidable == 0) return "";
    std::vector<std::string> reasons;
    std::set<std::string> seen;
    bool few = false, noisy = false;
    for (const MetricComparison& m : r.rows) {
      if (!m.suspected && !m.undecidable) continue;
      const std::string& why = m.inconclusive_reason;
      few |= why.find("< min") != std::string::npos;
      noisy |= why.find("not significant") != std::string::npos;
      // The sample counts, not the change, name the cause: group suspected rows by them.
      const std::string key = why.substr(0, why.find(", "));
      if (seen.insert(key).second && reasons.size() < 3) reasons.push_back(key);
    }
    std::string out;
    auto count = [](size_t n, const char* one, const char* many) {
      return std::to_string(n) + " " + (n == 1 ? one : many);
    };
    if (r.suspected) out += count(r.suspected, "suspected regression", "suspected regressions");
    if (r.undecidable)
      out += (out.empty() ? "" : " and ") +
             count(r.undecidable, "comparison undecidable", "comparisons undecidable");
    out += ": ";
    for (size_t i = 0; i < reasons.size(); ++i) out += (i ? "; " : "") + reasons[i];
    if (seen.size() > reasons.size()) out += "; ...";
    std::vector<std::string> fixes;
    if (few)
      fixes.push_back("rerun with at least " + std::to_string(o_.min_samples) +
                      " samples per stage (stagebench run --min-samples " +
                      std::to_string(o_.min_samples) + ", or a longer --max-time)");
    if (noisy) fixes.push_back("measure longer or on a quieter machine to narrow the intervals");
    if (r.policy != InconclusivePolicy::pass)
      fixes.push_back("or accept them with --allow-inconclusive or 'policy: inconclusive=pass'");
    out += "; ";
    for (size_t i = 0; i < fixes.size(); ++i) out += (i ? ", " : "") + fixes[i];
    return out;
  }

  const CompareOptions& o_;
  std::vector<ThresholdRule> rules_;
  CompareResult result_;
  bool both_ok_ = true, candidate_ok_ = true;  // the statuses of the stage being compared
};

}  // namespace

bool CompareResult::comparable() const {
  return !rows.empty();
}

CompareOutcome CompareResult::outcome() const {
  if (!comparable()) return CompareOutcome::nothing_comparable;
  if (regression || !vanished.empty()) return CompareOutcome::regression;
  if (suspected > 0 && policy != InconclusivePolicy::pass) return CompareOutcome::regression;
  if (undecidable > 0 && policy == InconclusivePolicy::fail) return CompareOutcome::regression;
  if (undecidable > 0 && policy == InconclusivePolicy::undecidable)
    return CompareOutcome::undecidable;
  return CompareOutcome::pass;
}

CompareResult compare_runs(const std::vector<RunRecord>& base,
                           const std::vector<RunRecord>& candidate, const CompareOptions& o) {
  return Comparer(o).run(base, candidate);
}

CompareResult compare_documents(const json& base, const json& candidate, const CompareOptions& o) {
  // Read leniently: what is malformed is unknown (the caller validated, or chose not to).
  std::vector<std::string> ignored;
  Comparer comparer(o);  // the thresholds are checked before either document is read
  return comparer.run(read_document_record(base, ignored).runs,
                      read_document_record(candidate, ignored).runs);
}

}  // namespace sb
