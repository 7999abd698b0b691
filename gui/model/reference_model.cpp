#include "gui/model/reference_model.h"

#include <cmath>

#include "gui/model/json_values.h"
#include "gui/model/roles.h"

namespace sb::viewer {
ReferenceModel::ReferenceModel(QObject* parent) : QAbstractTableModel(parent) {}

void ReferenceModel::set_run(const RunRecord& run) {
  beginResetModel();
  table_ = reference_table(run);
  max_time_ = 0;
  for (const ReferenceRow& r : table_.rows)
    max_time_ = std::max(max_time_, known(r.median_ms).value_or(0));
  endResetModel();
}

QString ReferenceModel::legend() const {
  return has_rows() ? display_text(reference_table_legend(table_)) : QString();
}

int ReferenceModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(table_.rows.size());
}

int ReferenceModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant ReferenceModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const ReferenceRow& r = table_.rows[static_cast<size_t>(index.row())];
  const int column = index.column();
  switch (role) {
    case Qt::DisplayRole:
      return display_text(reference_table_cells(r)[static_cast<size_t>(column)]);
    case SortRole:
      return value(r, column);
    case Qt::ToolTipRole:
      return r.error.empty() ? QVariant() : QVariant(display_text(r.error));
    case Qt::TextAlignmentRole:
      return column <= Status ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                              : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case BarRole:
      if (column == Time && max_time_ > 0 && known(r.median_ms)) return r.median_ms / max_time_;
      return {};
    default:
      return {};
  }
}

QVariant ReferenceModel::value(const ReferenceRow& r, int column) const {
  switch (column) {
    case Variant:
      return display_text(r.label);
    case Status:
      return display_text(r.status);
    case Time:
      return sort_value(known(r.median_ms));
    case VsStage0:
      return sort_value(known(r.vs_stage0));
    case VsBest:
      return sort_value(known(r.vs_best));
    case PeakMemory:
      return sort_value(known(r.peak_bytes));
    case Throughput:
      return sort_value(known(r.throughput));
    case Samples:
      return sort_value(known(r.samples));
    default:
      return {};
  }
}

QVariant ReferenceModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  if (section < 0 || section >= ColumnCount) return {};
  return QString::fromStdString(reference_table_header()[static_cast<size_t>(section)]);
}

}  // namespace sb::viewer
