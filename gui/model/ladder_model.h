#pragma once
// The ladder table of one run: one row per stage, in ladder order, from the reports' StageRow
// (the schema's records), so the viewer and the reports show the same values. DisplayRole is the
// text the report shows, SortRole the number behind it, BarRole the bar for the time and speedup
// columns.
#include <QAbstractTableModel>

#include "reports/stage_row.h"

namespace sb::viewer {

class LadderModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column {
    Index,
    Stage,
    Status,
    Time,        // median ms with the p10-p90 half-spread
    Speedup,     // cumulative, vs the baseline, with its 95% interval
    VsPrevious,  // incremental, vs the previous measured stage
    HostPeak,
    DevicePeak,
    ItemsPerSecond,
    Gflops,
    OfPeak,  // roofline fraction
    Correctness,
    Claimed,
    Verdict,  // claimed vs measured
    ColumnCount
  };

  explicit LadderModel(QObject* parent = nullptr);

  void set_run(const RunRecord& run);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  QVariant display(const StageRow& s, int column) const;
  QVariant sort_key(const StageRow& s, int row, int column) const;
  QVariant tooltip(const StageRow& s, int column) const;

  RunSummary summary_;
  double max_time_ = 0, max_speedup_ = 0;
};

}  // namespace sb::viewer
