#include "gui/model/batch_series.h"

#include <algorithm>
#include <set>

#include "gui/model/json_values.h"

namespace sb::viewer {
namespace {

bool same_ladder(const RunRecord& a, const RunRecord& b) {
  return a.model == b.model && a.size == b.size && a.backend == b.backend && a.device == b.device &&
         a.mode == b.mode;
}

}  // namespace

std::vector<BatchSeries> batch_series(const std::vector<const RunRecord*>& runs,
                                      const RunRecord& selected) {
  std::vector<BatchSeries> series;
  std::set<double> batches;
  for (const RunRecord* run : runs) {
    const auto batch = run_batch(*run);
    if (!batch || !same_ladder(*run, selected)) continue;
    batches.insert(*batch);
    for (const StageRecord& stage : run->stages) {
      const auto items = stage.throughput.items_per_s;
      if (!items) continue;
      const QString id = display_text(stage.id);
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

std::optional<BatchSearchCurve> batch_search_curve(const RunRecord& run) {
  // The harness's own section (harness/batch_search), kept open by the schema.
  const auto section = run.sections.find("batch_search");
  if (section == run.sections.end() || !section->second.is_object()) return std::nullopt;
  const nlohmann::json& search = section->second;
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
