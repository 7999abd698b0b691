#pragma once
// The charts of the selected run: time per stage with its spread and the cumulative speedup,
// memory per stage, and throughput against batch size across open runs of the same ladder; for a
// training run also its step phases (one stacked bar per training stage), and for one whose
// stages timed their inference too (DynUNet) seed 004's table and its chart.
// Each chart has its own tab at the view's full size (a grid of small multiples elided their
// axis labels at the default window size); tabs without data for the run are hidden.
// Right-click a chart to export it as PNG or SVG.
#include <vector>

#include <QStringList>
#include <QTabWidget>
#include <QWidget>
#include <QtCharts/QChartView>
#include "schema/records.h"

#include "gui/model/frames_model.h"
#include "gui/model/phases_model.h"
#include "gui/widgets/copyable_table_view.h"

namespace sb::viewer {

class ChartsView : public QWidget {
  Q_OBJECT

 public:
  explicit ChartsView(QWidget* parent = nullptr);
  // all_runs: every open run, for the batch sweep.
  void set_run(const RunRecord& run, const std::vector<const RunRecord*>& all_runs);
  // The charts shown: time, memory, batch, and the phases for a training run.
  std::vector<QtCharts::QChartView*> chart_views() const;
  // Whether the tab holding `widget` is shown for the current run.
  bool shows(const QWidget* widget) const;
  // Selects a chart's tab by key (chart_keys()); false for an unknown or hidden one.
  bool show_chart(const QString& key);
  static QStringList chart_keys();  // time, memory, batch, phases, frames
  QtCharts::QChartView* phases_view() const { return phases_view_; }
  const PhasesModel* phases() const { return phases_; }
  QtCharts::QChartView* frames_view() const { return frames_view_; }
  const FramesModel* frames() const { return frames_; }
  CopyableTableView* frames_table() const { return frames_table_; }

 private:
  int tab_of(const QWidget* widget) const;

  QTabWidget* tabs_;
  QtCharts::QChartView* time_;
  QtCharts::QChartView* memory_;
  QtCharts::QChartView* batch_;
  PhasesModel* phases_;
  QtCharts::QChartView* phases_view_;  // its tab hidden unless the run has step phases
  FramesModel* frames_;
  QWidget* frames_page_;  // the chart and its table; hidden unless stages timed their inference
  QtCharts::QChartView* frames_view_;
  CopyableTableView* frames_table_;
};

// A chart view with Export as PNG/SVG in its context menu.
QtCharts::QChartView* make_exportable_chart_view(QWidget* parent = nullptr);

}  // namespace sb::viewer
