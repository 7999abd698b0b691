#include "gui/model/frames_model.h"

#include <cmath>

#include "gui/model/json_values.h"
#include "gui/model/roles.h"

namespace sb::viewer {
FramesModel::FramesModel(QObject* parent) : QAbstractTableModel(parent) {}

void FramesModel::set_run(const RunRecord& run) {
  beginResetModel();
  summary_ = summarize_run(run);
  rows_ = frames_table_values(summary_);
  cells_ = frames_table_rows(summary_);
  header_ = frames_table_header(summary_);
  item_ = rows_.empty() ? QString() : QString::fromStdString(rows_.front().stage->item_name);
  max_train_ = max_infer_ = 0;
  for (const FramesRow& r : rows_) {
    max_train_ = std::max(max_train_, known(r.stage->items_per_s).value_or(0));
    max_infer_ = std::max(max_infer_, known(r.stage->train.infer_fps).value_or(0));
  }
  endResetModel();
}

double FramesModel::claimed_fps(int row, int column) const {
  if (row < 0 || row >= rowCount() || rows_.empty()) return NAN;
  const StageRow& base = *rows_.front().stage;
  const StageRow& s = *rows_[static_cast<size_t>(row)].stage;
  if (column == Training) return base.items_per_s * s.claim_speedup / base.claim_speedup;
  if (column == Inference)
    return base.train.infer_fps * s.train.infer_claim / base.train.infer_claim;
  return NAN;
}

int FramesModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int FramesModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant FramesModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const size_t row = static_cast<size_t>(index.row());
  const StageRow& s = *rows_[row].stage;
  const int column = index.column();
  switch (role) {
    case Qt::DisplayRole:
      return display_text(cells_[row][static_cast<size_t>(column)]);
    case SortRole:
      return value(index.row(), column);
    case Qt::ToolTipRole:
      if (column == Stage) return display_text(s.title);
      if (column == TrainingClaimed || column == InferenceClaimed)
        return QStringLiteral("the document's change over the row above with a claim");
      return {};
    case Qt::TextAlignmentRole:
      return column == Stage ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                             : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case BarRole:
      if (column == Training && max_train_ > 0 && known(s.items_per_s))
        return s.items_per_s / max_train_;
      if (column == Inference && max_infer_ > 0 && known(s.train.infer_fps))
        return s.train.infer_fps / max_infer_;
      return {};
    default:
      return {};
  }
}

QVariant FramesModel::value(int row, int column) const {
  const FramesRow& r = rows_[static_cast<size_t>(row)];
  switch (column) {
    case Index:
      return r.stage->index;
    case Stage:
      return display_text(r.stage->id);
    case Training:
      return sort_value(known(r.stage->items_per_s));
    case TrainingClaimed:
      return sort_value(known(r.train_claimed_change));
    case Inference:
      return sort_value(known(r.stage->train.infer_fps));
    case InferenceClaimed:
      return sort_value(known(r.infer_claimed_change));
    case Memory:
      return sort_value(known(r.held_bytes));
    default:
      return {};
  }
}

QVariant FramesModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  if (section < 0 || section >= ColumnCount) return {};
  if (header_.size() == static_cast<size_t>(ColumnCount))
    return QString::fromStdString(header_[static_cast<size_t>(section)]);
  static const char* const names[] = {
      "#", "stage", "training items/s", "claimed", "inference items/s", "claimed", "memory MB"};
  return QString::fromLatin1(names[section]);
}

}  // namespace sb::viewer
