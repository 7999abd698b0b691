#include "gui/model/kernels_model.h"

#include <algorithm>

#include "gui/model/json_values.h"
#include "gui/model/roles.h"

namespace sb::viewer {

KernelsModel::KernelsModel(QObject* parent) : QAbstractTableModel(parent) {}

void KernelsModel::set_stage(const StageRecord& stage) {
  beginResetModel();
  rows_.clear();
  for (const KernelRecord& k : read_opencl(stage).kernels)
    rows_.push_back({display_text(k.name), k.launches.value_or(0), k.total_ns.value_or(0)});
  std::sort(rows_.begin(), rows_.end(),
            [](const Row& a, const Row& b) { return a.total_ns > b.total_ns; });
  // Kernel times are summed over the measured samples, so the denominator is their sum.
  stage_wall_ms_ = 0;
  if (stage.samples_ms)
    for (const double v : *stage.samples_ms) stage_wall_ms_ += v;
  if (stage_wall_ms_ == 0)
    stage_wall_ms_ = stage.time.median_ms.value_or(0) * static_cast<double>(stage.time.samples);
  endResetModel();
}

int KernelsModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int KernelsModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

std::optional<double> KernelsModel::value(const Row& row, int column) const {
  switch (column) {
    case Launches:
      return row.launches;
    case TotalMs:
      return row.total_ns / 1e6;
    case MeanUs:
      return row.launches > 0 ? std::optional(row.total_ns / row.launches / 1e3) : std::nullopt;
    case Share:
      return stage_wall_ms_ > 0 ? std::optional(row.total_ns / 1e6 / stage_wall_ms_) : std::nullopt;
    default:
      return std::nullopt;
  }
}

QVariant KernelsModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const Row& row = rows_[static_cast<size_t>(index.row())];
  const int column = index.column();
  if (role == Qt::TextAlignmentRole && column != Name)
    return QVariant(Qt::AlignRight | Qt::AlignVCenter);
  if (role == BarRole && column == Share) return sort_value(value(row, Share));
  if (role == SortRole) return column == Name ? QVariant(row.name) : sort_value(value(row, column));
  if (role != Qt::DisplayRole) return {};
  switch (column) {
    case Name:
      return row.name;
    case Launches:
      return format_number(value(row, column), 0);
    case TotalMs:
      return format_ms(value(row, column));
    case MeanUs:
      return format_number(value(row, column), 1);
    case Share:
      return format_percent(value(row, column), 1);
    default:
      return {};
  }
}

QVariant KernelsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* kNames[] = {"kernel", "launches", "total ms", "mean us", "share of stage"};
  return section >= 0 && section < ColumnCount ? QVariant(kNames[section]) : QVariant();
}

}  // namespace sb::viewer
