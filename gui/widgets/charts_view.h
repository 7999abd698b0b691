#pragma once
// The charts of the selected run: time per stage with its spread and the cumulative speedup,
// memory per stage, and throughput against batch size across open runs of the same ladder; for a
// training run also its step phases (one stacked bar per training stage).
// Right-click a chart to export it as PNG or SVG.
#include <vector>

#include <QWidget>
#include <QtCharts/QChartView>
#include <nlohmann/json.hpp>

#include "gui/model/phases_model.h"

namespace sb::viewer {

class ChartsView : public QWidget {
  Q_OBJECT

 public:
  explicit ChartsView(QWidget* parent = nullptr);
  // all_runs: every open run, for the batch sweep.
  void set_run(const nlohmann::json& run, const std::vector<const nlohmann::json*>& all_runs);
  // The charts shown: time, memory, batch, and the phases for a training run.
  std::vector<QtCharts::QChartView*> chart_views() const;
  QtCharts::QChartView* phases_view() const { return phases_view_; }
  const PhasesModel* phases() const { return phases_; }

 private:
  QtCharts::QChartView* time_;
  QtCharts::QChartView* memory_;
  QtCharts::QChartView* batch_;
  PhasesModel* phases_;
  QtCharts::QChartView* phases_view_;  // hidden unless the run has step phases
};

// A chart view with Export as PNG/SVG in its context menu.
QtCharts::QChartView* make_exportable_chart_view(QWidget* parent = nullptr);

}  // namespace sb::viewer
