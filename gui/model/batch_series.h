#pragma once
// Throughput against batch size, from two sources. Across runs: among the open runs of the same
// model, size, backend, device and mode as a given run, those with a numeric params.batch, one
// series per stage id of (batch, items_per_s) points sorted by batch. Empty unless at least two
// batch sizes are open.
#include <optional>
#include <vector>

#include <QPointF>
#include <QString>
#include <QVector>

#include "schema/records.h"

namespace sb::viewer {

struct BatchSeries {
  QString stage;
  QVector<QPointF> points;
};

std::vector<BatchSeries> batch_series(const std::vector<const RunRecord*>& runs,
                                      const RunRecord& selected);

// A run's own batch search (`run --batch auto`, its "batch_search" section): the throughput of
// the followed stage at each fitting probe, the peak memory of every measured probe (MB), the
// cap, and the two batches it found. Absent when the run has no search.
struct BatchSearchCurve {
  QString stage;
  QVector<QPointF> throughput;  // (batch, items/s), probes that fit
  QVector<QPointF> memory_mb;   // (batch, MB), every probe that ran
  double cap_mb = 0;            // 0: no cap
  double largest_fitting = 0, best_throughput = 0;
  QString limit;
};

std::optional<BatchSearchCurve> batch_search_curve(const RunRecord& run);

}  // namespace sb::viewer
