#include "gui/model/batch_series.h"

#include <algorithm>
#include <set>

#include "gui/model/json_values.h"

namespace sb::viewer {
namespace {

bool same_ladder(const nlohmann::json& a, const nlohmann::json& b) {
  for (const char* key : {"model", "size", "backend", "device", "mode"})
    if (text(a, key) != text(b, key)) return false;
  return true;
}

}  // namespace

std::vector<BatchSeries> batch_series(const std::vector<const nlohmann::json*>& runs,
                                      const nlohmann::json& selected) {
  std::vector<BatchSeries> series;
  std::set<double> batches;
  for (const nlohmann::json* run : runs) {
    const auto batch = number(member(*run, "params"), "batch");
    if (!batch || !same_ladder(*run, selected)) continue;
    batches.insert(*batch);
    for (const auto& stage : member(*run, "stages")) {
      const auto items = number(member(stage, "throughput"), "items_per_s");
      if (!items) continue;
      const QString id = text(stage, "id");
      auto it = std::find_if(series.begin(), series.end(),
                             [&](const BatchSeries& s) { return s.stage == id; });
      if (it == series.end()) it = series.insert(series.end(), BatchSeries{id, {}});
      it->points.append(QPointF(*batch, *items));
    }
  }
  if (batches.size() < 2) return {};
  for (auto& s : series)
    std::sort(s.points.begin(), s.points.end(),
              [](const QPointF& a, const QPointF& b) { return a.x() < b.x(); });
  return series;
}

std::optional<BatchSearchCurve> batch_search_curve(const nlohmann::json& run) {
  const nlohmann::json& search = member(run, "batch_search");
  if (!search.is_object()) return std::nullopt;
  BatchSearchCurve c;
  c.stage = text(search, "stage");
  c.cap_mb = number(search, "memory_cap_bytes").value_or(0) / 1e6;
  c.largest_fitting = number(search, "largest_fitting").value_or(0);
  c.best_throughput = number(search, "best_throughput").value_or(0);
  c.limit = text(search, "limit");
  for (const auto& p : member(search, "curve")) {
    const auto batch = number(p, "batch");
    const QString outcome = text(p, "outcome");
    if (!batch || outcome == QStringLiteral("predicted over cap") ||
        outcome == QStringLiteral("failed"))
      continue;
    if (const auto bytes = number(p, "peak_bytes"))
      c.memory_mb.append(QPointF(*batch, *bytes / 1e6));
    if (const auto items = number(p, "items_per_s"); items && outcome == QStringLiteral("fits"))
      c.throughput.append(QPointF(*batch, *items));
  }
  return c;
}

}  // namespace sb::viewer
