#include "gui/model/counters_model.h"

#include "gui/model/json_values.h"
#include "gui/model/roles.h"

namespace sb::viewer {
namespace {

QString compact(std::optional<double> v) {
  if (!v) return QStringLiteral("-");
  return QString::number(*v, std::abs(*v) >= 1e6 ? 'e' : 'f', std::abs(*v) >= 1e6 ? 3 : 2);
}

}  // namespace

CountersModel::CountersModel(QObject* parent) : QAbstractTableModel(parent) {}

void CountersModel::set_stage(const StageRecord& stage) {
  beginResetModel();
  rows_.clear();
  for (const auto& [name, counter] : stage.counters) rows_.push_back({display_text(name), counter});
  endResetModel();
}

int CountersModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int CountersModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant CountersModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const Row& row = rows_[static_cast<size_t>(index.row())];
  const bool sort = role == SortRole;
  if (role != Qt::DisplayRole && !sort) {
    if (role == Qt::TextAlignmentRole && (index.column() == Value || index.column() == PerItem))
      return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    return {};
  }
  switch (index.column()) {
    case Name:
      return row.name;
    case Tier:
      return display_text(row.counter.tier);
    case Value:
      return sort ? sort_value(row.counter.value) : QVariant(compact(row.counter.value));
    case PerItem:
      return sort ? sort_value(row.counter.per_item) : QVariant(compact(row.counter.per_item));
    case Note:
      return row.counter.error ? text(row.counter.error) : text(row.counter.scope);
    default:
      return {};
  }
}

QVariant CountersModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* kNames[] = {"counter", "tier", "value / sample", "per item", "scope / error"};
  return section >= 0 && section < ColumnCount ? QVariant(kNames[section]) : QVariant();
}

}  // namespace sb::viewer
