#pragma once
// Throughput against batch size: among the open runs of the same model, size, backend, device
// and mode as a given run, those with a numeric params.batch, one series per stage id of
// (batch, items_per_s) points sorted by batch. Empty unless at least two batch sizes are open.
#include <vector>

#include <QPointF>
#include <QString>
#include <QVector>
#include <nlohmann/json.hpp>

namespace sb::viewer {

struct BatchSeries {
  QString stage;
  QVector<QPointF> points;
};

std::vector<BatchSeries> batch_series(const std::vector<const nlohmann::json*>& runs,
                                      const nlohmann::json& selected);

}  // namespace sb::viewer
