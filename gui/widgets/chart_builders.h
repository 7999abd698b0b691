#pragma once
// The viewer's charts, built from stagebench/1 records (schema/records.h). Each function returns a
// new QChart the caller owns (a QChartView takes it over).
#include <optional>
#include <vector>

#include <QtCharts/QChart>

#include "gui/model/batch_series.h"
#include "gui/model/frames_model.h"
#include "gui/model/phases_model.h"

namespace sb::viewer {

// Box per measured stage (whiskers min-max, box p10-p90, line at the median) and the
// cumulative speedup on a second axis.
QtCharts::QChart* stage_time_chart(const RunRecord& run);
// Host and device peak memory per stage, in MB.
QtCharts::QChart* memory_chart(const RunRecord& run);
// items/s against batch size, one line per stage across open runs, and the run's own batch
// search when it has one (its throughput line, the best and largest batches marked, the probes'
// peak memory and the cap on a second axis); a titled empty chart when there is neither.
QtCharts::QChart* batch_chart(const std::vector<BatchSeries>& series, const QString& item_name,
                              const std::optional<BatchSearchCurve>& search = std::nullopt);
// A training run's step phases: one stacked bar per training stage, a segment per phase (data,
// h2d, forward, backward, optimizer; median ms), from the model's rows; a titled empty chart
// when the model has none.
QtCharts::QChart* phases_chart(const PhasesModel& phases);
// Seed 004's figures as bars: per stage, training and inference throughput measured, each
// beside its claim (the baseline's measured figure times the document's cumulative ratio).
QtCharts::QChart* frames_chart(const FramesModel& frames);
// The distribution of a stage's raw samples_ms.
QtCharts::QChart* samples_histogram_chart(const StageRecord& stage);

}  // namespace sb::viewer
