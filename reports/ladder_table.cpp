#include "reports/ladder_table.h"

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <vector>

namespace sb {
namespace {

using json = nlohmann::json;

bool is_num(const json& j, const char* key) { return j.contains(key) && j[key].is_number(); }

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string bytes(const json& mem, const char* key) {
  if (!mem.is_object() || !is_num(mem, key)) return "-";
  const double b = mem[key].get<double>();
  if (b >= 1e9) return fmt("%.2f GB", b / 1e9);
  return fmt("%.0f MB", b / 1e6);
}

const json& field(const json& j, const char* key) {
  static const json null;
  return j.is_object() && j.contains(key) ? j[key] : null;
}

std::string render(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> w(rows.front().size(), 0);
  for (const auto& r : rows)
    for (size_t i = 0; i < r.size(); ++i) w[i] = std::max(w[i], r[i].size());
  std::ostringstream out;
  for (size_t k = 0; k < rows.size(); ++k) {
    out << "|";
    for (size_t i = 0; i < rows[k].size(); ++i)
      out << ' ' << rows[k][i] << std::string(w[i] - rows[k][i].size(), ' ') << " |";
    out << '\n';
    if (k == 0) {
      out << "|";
      for (size_t i = 0; i < w.size(); ++i) out << std::string(w[i] + 2, '-') << "|";
      out << '\n';
    }
  }
  return out.str();
}

}  // namespace

std::string claim_verdict(const json& stage) {
  const json& claim = field(field(stage, "claim"), "speedup");
  const json& ci = field(field(stage, "speedup"), "ci95");
  if (!claim.is_number() || !ci.is_array() || ci.size() != 2 || !ci[0].is_number() ||
      !ci[1].is_number())
    return "";
  const double c = claim.get<double>();
  if (ci[1].get<double>() < c) return "below claim";
  if (ci[0].get<double>() > c) return "above claim";
  return "confirmed";
}

std::string ladder_table_text(const json& run) {
  std::vector<std::vector<std::string>> rows{{"#", "stage", "status", "time ms", "speedup [95% CI]",
                                              "vs prev", "host peak", "device peak", "GFLOP/s",
                                              "of peak", "cosine", "claimed", "verdict"}};
  int i = 0;
  for (const json& s : field(run, "stages")) {
    const json& t = field(s, "time");
    const json& sp = field(s, "speedup");
    const json& tp = field(s, "throughput");
    const json& mem = field(s, "memory");
    const json& cor = field(s, "correctness");
    std::string time = "-", speed = "-", prev = "-", gflops = "-", roof = "-", cos = "-";
    if (is_num(t, "median_ms")) {
      time = fmt("%.2f", t["median_ms"].get<double>());
      if (is_num(t, "p10_ms") && is_num(t, "p90_ms"))
        time += fmt(" +-%.2f", (t["p90_ms"].get<double>() - t["p10_ms"].get<double>()) / 2);
    }
    if (is_num(sp, "vs_baseline")) {
      speed = fmt("%.2fx", sp["vs_baseline"].get<double>());
      const json& ci = field(sp, "ci95");
      if (ci.is_array() && ci.size() == 2 && ci[0].is_number() && ci[1].is_number())
        speed += fmt(" [%.2f,", ci[0].get<double>()) + fmt(" %.2f]", ci[1].get<double>());
    }
    if (is_num(sp, "vs_previous")) prev = fmt("%+.0f%%", (sp["vs_previous"].get<double>() - 1) * 100);
    if (is_num(tp, "gflops")) gflops = fmt("%.1f", tp["gflops"].get<double>());
    if (is_num(tp, "roofline_frac")) roof = fmt("%.0f%%", tp["roofline_frac"].get<double>() * 100);
    if (is_num(cor, "cosine")) {
      cos = fmt("%.8f", cor["cosine"].get<double>());
      if (cor.contains("pass") && cor["pass"].is_boolean() && !cor["pass"].get<bool>())
        cos += " FAIL";
    }
    std::string status = field(s, "status").is_string() ? s["status"].get<std::string>() : "?";
    const json& claim = field(field(s, "claim"), "speedup");
    rows.push_back({std::to_string(i++), field(s, "id").is_string() ? s["id"].get<std::string>() : "?",
                    status, time, speed, prev, bytes(mem, "host_peak_bytes"),
                    bytes(mem, "device_peak_bytes"), gflops, roof, cos,
                    claim.is_number() ? fmt("%.2fx", claim.get<double>()) : "-", claim_verdict(s)});
  }
  std::ostringstream out;
  auto str = [&](const char* k) {
    return field(run, k).is_string() ? run[k].get<std::string>() : std::string("?");
  };
  out << str("model") << " / " << str("size") << " / " << str("backend") << " on " << str("device")
      << "\n\n"
      << render(rows);
  for (const json& s : field(run, "stages")) {
    const json& reason = field(s, "reason");
    if (reason.is_string() && !reason.get<std::string>().empty())
      out << "  " << s.value("id", "?") << ": " << s.value("status", "?") << " - "
          << reason.get<std::string>() << '\n';
    else if (reason.is_array())
      for (const json& r : reason)
        if (r.is_string()) out << "  " << s.value("id", "?") << ": " << r.get<std::string>() << '\n';
  }
  return out.str();
}

}  // namespace sb
