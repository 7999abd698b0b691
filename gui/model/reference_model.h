#pragma once
// "PyTorch on this machine" under a run's ladder (reports/reference_table.h): one row per
// PyTorch variant of the run's reference block (`stagebench peer`), none without one.
// DisplayRole is the reports' text, SortRole the number behind it, BarRole the time's fraction
// of the column's largest, as in the ladder.
#include <QAbstractTableModel>

#include "reports/reference_table.h"

namespace sb::viewer {

class ReferenceModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column {
    Variant,
    Status,
    Time,
    VsStage0,
    VsBest,
    PeakMemory,
    Throughput,
    Samples,
    ColumnCount
  };

  explicit ReferenceModel(QObject* parent = nullptr);

  void set_run(const RunRecord& run);
  bool has_rows() const { return !table_.rows.empty(); }
  // The sentence the reports print under the rows (source, versions, what the ratios mean).
  QString legend() const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  QVariant value(const ReferenceRow& row, int column) const;

  ReferenceTable table_;
  double max_time_ = 0;
};

}  // namespace sb::viewer
