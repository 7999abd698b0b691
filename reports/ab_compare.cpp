#include "reports/ab_compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <stdexcept>

#include "reports/number_format.h"
#include "reports/stage_row.h"
#include "reports/text_table.h"
#include "schema/json_text.h"
#include "stats/statistics.h"

namespace sb {
namespace {

using json = nlohmann::json;

bool measured(const std::string& status) {
  return status == "ok" || status == "invalid";
}

double median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string run_key(const RunSummary& r) {
  return r.model + "/" + r.size + "/" + r.backend + (r.mode == "inference" ? "" : " " + r.mode);
}

// What one side's processes recorded of a stage: the medians of those that measured it.
struct Side {
  std::vector<double> medians;
  std::string lost_how;  // the first non-measured status seen ("failed: ...", "skipped")
};

// run key -> stage id -> side; keys and ids in first-seen order. A process may hold one run
// (one ladder a process) or several (--backend all): each run counts the processes holding it.
struct Collected {
  std::vector<std::string> runs;
  std::map<std::string, size_t> processes;  // holding the run
  std::map<std::string, std::vector<std::string>> stage_ids;
  std::map<std::string, std::map<std::string, Side>> sides;
  std::map<std::string, json> params;  // the run's first process's
};

Collected collect(const std::vector<json>& docs, const char* side_name) {
  if (docs.empty()) throw std::invalid_argument(std::string("no ") + side_name + " results");
  Collected c;
  for (size_t d = 0; d < docs.size(); ++d) {
    std::vector<std::string> ignored;  // what is well-formed; compare-ab validated each file
    const std::vector<RunRecord> runs = read_document_record(docs[d], ignored).runs;
    if (runs.empty())
      throw std::invalid_argument(std::string(side_name) + " result " + std::to_string(d + 1) +
                                  " has no runs");
    std::map<std::string, bool> seen_run;
    for (const RunRecord& rr : runs) {
      const RunSummary run = summarize_run(rr);
      const std::string key = run_key(run);
      if (seen_run[key]) continue;  // one figure per process and run
      seen_run[key] = true;
      if (!c.sides.count(key)) {
        c.runs.push_back(key);
        c.params[key] = rr.params;
      }
      ++c.processes[key];
      auto& stages = c.sides[key];
      for (const StageRow& s : run.stages) {
        if (!stages.count(s.id)) c.stage_ids[key].push_back(s.id);
        Side& side = stages[s.id];
        if (measured(s.status) && std::isfinite(s.median_ms)) {
          side.medians.push_back(s.median_ms);
        } else if (side.lost_how.empty()) {
          side.lost_how = s.status + (s.reason.empty() ? "" : ": " + s.reason);
        }
      }
    }
  }
  return c;
}

// "run R: params.KEY base V, candidate W" for each top-level key both hold with other values.
std::vector<std::string> params_differences(const std::string& run, const json& base,
                                            const json& candidate) {
  std::vector<std::string> out;
  if (!base.is_object() || !candidate.is_object()) return out;
  for (const auto& [key, value] : base.items()) {
    const auto other = candidate.find(key);
    if (other != candidate.end() && *other != value)
      out.push_back("run " + run + ": params." + key + " base " + value.dump() + ", candidate " +
                    other->dump());
  }
  return out;
}

std::string ratio_text(double r) {
  if (!std::isfinite(r)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3fx", r);
  return buf;
}

}  // namespace

bool AbResult::regression() const {
  if (!vanished.empty()) return true;
  return std::any_of(stages.begin(), stages.end(), [](const AbStage& s) { return s.regression; });
}

int AbResult::exit_code() const {
  if (regression()) return 1;
  if (stages.empty()) return 2;
  if (!unsettled.empty()) return 3;
  return 0;
}

AbResult compare_ab(const std::vector<json>& base, const std::vector<json>& candidate,
                    const AbOptions& o) {
  if (!(o.slower >= 1) || !std::isfinite(o.slower))
    throw std::invalid_argument("the slowdown that fails must be a finite ratio >= 1");
  const Collected b = collect(base, "base");
  const Collected c = collect(candidate, "candidate");
  AbResult r;
  r.base_processes = base.size();
  r.candidate_processes = candidate.size();
  for (const std::string& run : b.runs) {
    if (c.params.count(run))
      for (std::string& d : params_differences(run, b.params.at(run), c.params.at(run)))
        r.params_differ.push_back(std::move(d));
  }
  auto work_differs = [&r](const std::string& run) {
    const std::string prefix = "run " + run + ": ";
    return std::any_of(r.params_differ.begin(), r.params_differ.end(),
                       [&](const std::string& d) { return d.rfind(prefix, 0) == 0; });
  };
  for (const std::string& run : b.runs) {
    const size_t nb = b.processes.at(run);
    const size_t nc = c.processes.count(run) ? c.processes.at(run) : 0;
    for (const std::string& id : b.stage_ids.at(run)) {
      const Side& bs = b.sides.at(run).at(id);
      const std::string what = "run " + run + ": stage " + id;
      if (bs.medians.empty()) continue;  // skipped or failed everywhere: nothing to hold
      if (bs.medians.size() < nb) {
        r.unsettled.push_back(what + " measured by " + std::to_string(bs.medians.size()) + " of " +
                              std::to_string(nb) + " base processes" +
                              (bs.lost_how.empty() ? "" : " (" + bs.lost_how + ")"));
        continue;
      }
      const Side* cs = nullptr;
      if (nc > 0) {
        const auto st = c.sides.at(run).find(id);
        if (st != c.sides.at(run).end()) cs = &st->second;
      }
      const size_t got = cs ? cs->medians.size() : 0;
      // As many candidate processes as base ones, each measuring it: a process that crashed
      // or lost the run is a loss, not a smaller sample.
      if (got < nb || got < nc) {
        r.vanished.push_back(what + " measured by all " + std::to_string(nb) +
                             " base processes, by " + std::to_string(got) + " candidate ones" +
                             (cs && !cs->lost_how.empty() ? " (" + cs->lost_how + ")" : ""));
        continue;
      }
      AbStage s;
      s.run = run;
      s.stage = id;
      s.base_ms = bs.medians;
      s.candidate_ms = cs->medians;
      std::vector<double> ratios;
      for (size_t i = 0; i < std::min(s.base_ms.size(), s.candidate_ms.size()); ++i)
        if (s.base_ms[i] > 0) ratios.push_back(s.candidate_ms[i] / s.base_ms[i]);
      if (ratios.empty()) {
        r.unsettled.push_back(what + ": no positive base time");
        continue;
      }
      s.ratio = median(ratios);
      const Interval ci = median_ci(ratios, 0.95);
      s.ratio_lo = ci.lo, s.ratio_hi = ci.hi, s.coverage = ci.coverage;
      if (s.ratio_lo > 1 && s.ratio >= o.slower) {
        s.regression = true;
        s.verdict = "SLOWER (regression)";
        s.note =
            "ratio " + ratio_text(s.ratio) + " >= " + ratio_text(o.slower) + ", interval above 1x";
      } else if (s.ratio_lo > 1) {
        s.verdict = "slower";
        s.note = "interval above 1x, below the " + ratio_text(o.slower) + " that fails";
      } else if (s.ratio_hi < 1) {
        s.verdict = "faster";
      } else {
        s.verdict = "same";
        s.note = "interval holds 1x";
      }
      if (work_differs(run)) s.note += std::string(s.note.empty() ? "" : "; ") + "params differ";
      r.stages.push_back(std::move(s));
    }
  }
  for (const std::string& run : c.runs)
    for (const std::string& id : c.stage_ids.at(run))
      if (!b.sides.count(run) || !b.sides.at(run).count(id))
        r.new_in_candidate.push_back("run " + run + ": stage " + id);
  return r;
}

std::string ab_markdown(const AbResult& r, const AbOptions& o) {
  std::string out =
      "compare-ab: " + std::to_string(r.base_processes) + " base and " +
      std::to_string(r.candidate_processes) +
      " candidate processes in back-to-back pairs; a stage fails when the median of its paired "
      "ratios is >= " +
      ratio_text(o.slower) + " and their interval lies above 1x\n";
  std::vector<std::vector<std::string>> table = {
      {"run", "stage", "base", "candidate", "ratio", "interval", "coverage", "verdict", "note"}};
  for (const AbStage& s : r.stages) {
    char coverage[32];
    std::snprintf(coverage, sizeof coverage, "%.1f%%", s.coverage * 100);
    table.push_back({s.run, s.stage, format_significant(median(s.base_ms)) + " ms",
                     format_significant(median(s.candidate_ms)) + " ms", ratio_text(s.ratio),
                     "[" + ratio_text(s.ratio_lo) + ", " + ratio_text(s.ratio_hi) + "]", coverage,
                     s.verdict, s.note});
  }
  if (table.size() > 1) out += "\n" + markdown_table(table);
  auto list = [&out](const char* title, const std::vector<std::string>& items) {
    if (items.empty()) return;
    out += std::string("\n") + title + ":\n";
    for (const std::string& v : items) out += "- " + v + "\n";
  };
  list("vanished (fails the gate)", r.vanished);
  list("not gated", r.unsettled);
  list("only in candidate (gated once the baseline has them)", r.new_in_candidate);
  list("params differ (these runs' ratios compare different work; not gated)", r.params_differ);
  size_t slower = 0;
  for (const AbStage& s : r.stages) slower += s.regression;
  out += "\nresult: ";
  switch (r.exit_code()) {
    case 1:
      out += "REGRESSION (" + std::to_string(slower) + " of " + std::to_string(r.stages.size()) +
             " stages slower, " + std::to_string(r.vanished.size()) + " vanished)\n";
      break;
    case 2:
      out += "nothing comparable\n";
      break;
    case 3:
      out += "UNDECIDABLE (" + std::to_string(r.unsettled.size()) + " not gated)\n";
      break;
    default:
      out += "no regression (" + std::to_string(r.stages.size()) + " stages)\n";
  }
  return out;
}

json ab_json(const AbResult& r, const AbOptions& o) {
  json stages = json::array();
  for (const AbStage& s : r.stages)
    stages.push_back(
        {{"run", s.run},
         {"stage", s.stage},
         {"base_ms", s.base_ms},
         {"candidate_ms", s.candidate_ms},
         {"ratio", json_number_or_null(s.ratio)},
         {"ratio_interval", {json_number_or_null(s.ratio_lo), json_number_or_null(s.ratio_hi)}},
         {"coverage", json_number_or_null(s.coverage)},
         {"regression", s.regression},
         {"verdict", s.verdict},
         {"note", s.note}});
  return {{"schema", "stagebench-compare-ab/1"},
          {"slower", o.slower},
          {"base_processes", r.base_processes},
          {"candidate_processes", r.candidate_processes},
          {"exit_code", r.exit_code()},
          {"vanished", r.vanished},
          {"not_gated", r.unsettled},
          {"new_in_candidate", r.new_in_candidate},
          {"params_differ", r.params_differ},
          {"stages", std::move(stages)}};
}

}  // namespace sb
