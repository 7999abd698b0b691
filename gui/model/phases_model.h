#pragma once
// The training step's phases of one run: one row per training stage whose summaries carry
// phases_ms (reports/train_phases.h: data-phase and skipped stages have none), in ladder order;
// none for an inference run. DisplayRole is the reports' text (train_phases_cells: each phase's
// median ms with its share of the step, the memory split in MB), SortRole the number behind it
// (ms, bytes; the phases chart stacks the ms), BarRole the step's fraction of the longest step.
#include <QAbstractTableModel>

#include "reports/stage_row.h"

namespace sb::viewer {

class PhasesModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column {
    Index,
    Stage,
    Data,  // the five phases, in train_phase_keys() order
    HostToDevice,
    Forward,
    Backward,
    Optimizer,
    Step,        // the phases' sum
    Parameters,  // the memory split, in memory_split_keys() order
    Gradients,
    OptimizerState,
    Activations,
    ColumnCount
  };
  static constexpr int kFirstPhase = Data, kPhaseCount = 5;

  explicit PhasesModel(QObject* parent = nullptr);

  void set_run(const RunRecord& run);
  // Whether the run is a training run with at least one stage with phases.
  bool has_phases() const { return !rows_.empty(); }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  QVariant value(const StageRow& s, int column) const;  // the number behind a cell

  std::vector<StageRow> rows_;
  std::vector<std::vector<std::string>> cells_;  // per row, train_phases_cells
  double max_step_ = 0;
};

}  // namespace sb::viewer
