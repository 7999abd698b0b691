#pragma once
// The viewer's charts, built from stagebench/1 JSON. Each function returns a new QChart the
// caller owns (a QChartView takes it over).
#include <vector>

#include <QtCharts/QChart>
#include <nlohmann/json.hpp>

#include "gui/model/batch_series.h"

namespace sb::viewer {

// Box per measured stage (whiskers min-max, box p10-p90, line at the median) and the
// cumulative speedup on a second axis.
QtCharts::QChart* stage_time_chart(const nlohmann::json& run);
// Host and device peak memory per stage, in MB.
QtCharts::QChart* memory_chart(const nlohmann::json& run);
// items/s against batch size, one line per stage; a titled empty chart when series is empty.
QtCharts::QChart* batch_chart(const std::vector<BatchSeries>& series, const QString& item_name);
// The distribution of a stage's raw samples_ms.
QtCharts::QChart* samples_histogram_chart(const nlohmann::json& stage);

}  // namespace sb::viewer
