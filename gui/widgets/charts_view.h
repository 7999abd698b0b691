#pragma once
// The charts of the selected run: time per stage with its spread and the cumulative speedup,
// memory per stage, and throughput against batch size across open runs of the same ladder; for a
// training run also its step phases (one stacked bar per training stage), and for one whose
// stages timed their inference too (DynUNet) seed 004's table and its chart.
// Right-click a chart to export it as PNG or SVG.
#include <vector>

#include <QWidget>
#include <QtCharts/QChartView>
#include <nlohmann/json.hpp>

#include "gui/model/frames_model.h"
#include "gui/model/phases_model.h"
#include "gui/widgets/copyable_table_view.h"

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
  QtCharts::QChartView* frames_view() const { return frames_view_; }
  const FramesModel* frames() const { return frames_; }
  CopyableTableView* frames_table() const { return frames_table_; }

 private:
  QtCharts::QChartView* time_;
  QtCharts::QChartView* memory_;
  QtCharts::QChartView* batch_;
  PhasesModel* phases_;
  QtCharts::QChartView* phases_view_;  // hidden unless the run has step phases
  FramesModel* frames_;
  QtCharts::QChartView* frames_view_;  // these two hidden unless stages timed their inference
  CopyableTableView* frames_table_;
};

// A chart view with Export as PNG/SVG in its context menu.
QtCharts::QChartView* make_exportable_chart_view(QWidget* parent = nullptr);

}  // namespace sb::viewer
