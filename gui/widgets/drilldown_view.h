#pragma once
// One stage in detail: its counters with their tier, its OpenCL kernels, and the histogram of
// its raw samples.
#include <QWidget>
#include <QtCharts/QChartView>
#include <nlohmann/json.hpp>

class QComboBox;
class QLabel;

namespace sb::viewer {

class CountersModel;
class KernelsModel;

class DrilldownView : public QWidget {
  Q_OBJECT

 public:
  explicit DrilldownView(QWidget* parent = nullptr);
  // Shows the stage with the most OpenCL kernel time, else the baseline.
  void set_run(const nlohmann::json& run);
  void select_stage(int stage);
  int current_stage() const;
  CountersModel* counters() const { return counters_; }
  KernelsModel* kernels() const { return kernels_; }

 private:
  void show_stage(int stage);

  nlohmann::json run_;
  QComboBox* stages_;
  QLabel* summary_;
  CountersModel* counters_;
  KernelsModel* kernels_;
  QtCharts::QChartView* histogram_;
};

}  // namespace sb::viewer
