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

}  // namespace sb::viewer
