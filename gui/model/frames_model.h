#pragma once
// Seed 004's "training and inference" table of one run (reports/frames_table.h): a row per
// stage that timed its inference (DynUNet), none for other runs. DisplayRole is the reports'
// text ("9.82 (+29%)"), SortRole the number behind it (volumes/s, the change as a fraction,
// bytes), BarRole the training or inference throughput's fraction of its column's largest. The
// chart's claimed bars (claimed_fps) scale the baseline's measured throughput by the cumulative
// claim: the document's figures were measured on another GPU, its ratios are what transfer.
#include <QAbstractTableModel>

#include "reports/frames_table.h"

namespace sb::viewer {

class FramesModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column {
    Index,
    Stage,
    Training,  // measured items/s (the step throughput)
    TrainingClaimed,
    Inference,  // measured items/s of the forward alone
    InferenceClaimed,
    Memory,
    ColumnCount
  };

  explicit FramesModel(QObject* parent = nullptr);

  void set_run(const RunRecord& run);
  bool has_rows() const { return !rows_.empty(); }
  // "volumes" for DynUNet: the run's item name.
  QString item_name() const { return item_; }
  // The claimed throughput of row `row` for column Training or Inference: the baseline's
  // measured figure times the stage's cumulative claim; NaN where either is unknown.
  double claimed_fps(int row, int column) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  QVariant value(int row, int column) const;

  RunSummary summary_;  // owns the stages rows_ point into
  std::vector<FramesRow> rows_;
  std::vector<std::vector<std::string>> cells_;
  std::vector<std::string> header_;
  QString item_;
  double max_train_ = 0, max_infer_ = 0;
};

}  // namespace sb::viewer
