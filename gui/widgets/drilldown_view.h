#pragma once
// One stage in detail: its counters with their tier, its OpenCL kernels, the histogram of its raw
// samples, and the timeline of one captured sample when the run was made with --timeline.
#include <map>

#include <QWidget>
#include <QtCharts/QChartView>

#include "gui/model/timeline.h"
#include "gui/widgets/timeline_widget.h"
#include "schema/records.h"

class QComboBox;
class QLabel;
class QTabWidget;

namespace sb::viewer {

class CountersModel;
class KernelsModel;

class DrilldownView : public QWidget {
  Q_OBJECT

 public:
  explicit DrilldownView(QWidget* parent = nullptr);
  // Shows the stage with the most OpenCL kernel time, else the baseline.
  void set_run(const RunRecord& run);
  void select_stage(int stage);
  // The run's captured samples by stage id (gui/model/timeline.h); empty with why_none when
  // there is no timeline file or it could not be read.
  void set_timeline(std::map<QString, TimelineStage> stages, const QString& why_none);
  TimelineWidget* timeline() const { return timeline_; }
  int current_stage() const;
  CountersModel* counters() const { return counters_; }
  KernelsModel* kernels() const { return kernels_; }

 private:
  void show_stage(int stage);

  RunRecord run_;
  QComboBox* stages_;
  QLabel* summary_;
  CountersModel* counters_;
  KernelsModel* kernels_;
  QtCharts::QChartView* histogram_;
  TimelineWidget* timeline_;
  QTabWidget* lower_;  // the timeline and the histogram
  std::map<QString, TimelineStage> timeline_stages_;
  QString timeline_why_none_;
};

}  // namespace sb::viewer
