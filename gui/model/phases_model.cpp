#include "gui/model/phases_model.h"

#include <cmath>

#include "gui/model/json_values.h"
#include "gui/model/roles.h"
#include "reports/train_phases.h"

namespace sb::viewer {
static_assert(PhasesModel::kPhaseCount == kTrainPhaseCount);
static_assert(PhasesModel::Activations - PhasesModel::Parameters + 1 == kMemorySplitCount);
// The columns are train_phases_header()'s, in its order.
static_assert(PhasesModel::ColumnCount == 2 + kTrainPhaseCount + 1 + kMemorySplitCount);

namespace {

bool is_phase(int column) {
  return column >= PhasesModel::kFirstPhase &&
         column < PhasesModel::kFirstPhase + PhasesModel::kPhaseCount;
}

bool is_memory(int column) {
  return column >= PhasesModel::Parameters && column <= PhasesModel::Activations;
}

}  // namespace

PhasesModel::PhasesModel(QObject* parent) : QAbstractTableModel(parent) {}

void PhasesModel::set_run(const RunRecord& run) {
  beginResetModel();
  const RunSummary summary = summarize_run(run);
  rows_.clear();
  cells_.clear();
  max_step_ = 0;
  for (const StageRow* s : train_phase_stages(summary)) {
    rows_.push_back(*s);
    cells_.push_back(train_phases_cells(*s));
    max_step_ = std::max(max_step_, known(phase_sum_ms(*s)).value_or(0));
  }
  endResetModel();
}

int PhasesModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int PhasesModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant PhasesModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const StageRow& s = rows_[static_cast<size_t>(index.row())];
  const int column = index.column();
  switch (role) {
    case Qt::DisplayRole:
      return display_text(cells_[static_cast<size_t>(index.row())][static_cast<size_t>(column)]);
    case SortRole:
      if (column == Index) return s.index;
      if (column == Stage) return display_text(s.id);
      return value(s, column);
    case Qt::ToolTipRole:
      if (column == Stage) return display_text(s.title);
      if (is_phase(column))
        return QStringLiteral("%1: %2 of the step (median of the instrumented steps)")
            .arg(QString::fromStdString(train_phase_names()[column - kFirstPhase]),
                 format_percent(known(phase_share(s, column - kFirstPhase)), 1));
      return {};
    case Qt::TextAlignmentRole:
      return column == Stage ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                             : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case BarRole:
      if (column != Step) return {};
      if (max_step_ > 0 && known(phase_sum_ms(s))) return phase_sum_ms(s) / max_step_;
      return sort_value(std::nullopt);
    default:
      return {};
  }
}

QVariant PhasesModel::value(const StageRow& s, int column) const {
  if (is_phase(column)) return sort_value(known(s.train.phase_ms[column - kFirstPhase]));
  if (column == Step) return sort_value(known(phase_sum_ms(s)));
  if (is_memory(column)) return sort_value(known(s.train.memory_split_bytes[column - Parameters]));
  return {};
}

QVariant PhasesModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const std::vector<std::string> names = train_phases_header();
  return section >= 0 && section < ColumnCount
             ? QVariant(QString::fromStdString(names[static_cast<size_t>(section)]))
             : QVariant();
}

}  // namespace sb::viewer
