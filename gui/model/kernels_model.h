#pragma once
// The OpenCL kernels of one stage: launches, total and mean device time, and the share of the
// stage's measured wall time (all samples together) the kernel's device time accounts for.
#include <QAbstractTableModel>

#include "schema/records.h"

namespace sb::viewer {

class KernelsModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { Name, Launches, TotalMs, MeanUs, Share, ColumnCount };

  explicit KernelsModel(QObject* parent = nullptr);
  void set_stage(const StageRecord& stage);
  // Wall time of all measured samples, the share's denominator; 0 when unknown.
  double stage_wall_ms() const { return stage_wall_ms_; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  struct Row {
    QString name;
    double launches = 0;
    double total_ns = 0;
  };
  std::optional<double> value(const Row& row, int column) const;

  std::vector<Row> rows_;
  double stage_wall_ms_ = 0;
};

}  // namespace sb::viewer
