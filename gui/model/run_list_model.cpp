#include "gui/model/run_list_model.h"

#include <QFileInfo>

#include "gui/model/json_values.h"
#include "gui/model/roles.h"

namespace sb::viewer {

RunListModel::RunListModel(const DocumentStore* store, QObject* parent)
    : QAbstractTableModel(parent), store_(store) {
  connect(store_, &DocumentStore::document_loaded, this, &RunListModel::refresh);
  refresh();
}

void RunListModel::refresh() {
  beginResetModel();
  runs_ = store_->runs();
  endResetModel();
}

RunRef RunListModel::run_at(int row) const {
  return row >= 0 && row < static_cast<int>(runs_.size()) ? runs_[static_cast<size_t>(row)]
                                                          : RunRef{};
}

int RunListModel::row_of(RunRef ref) const {
  for (size_t i = 0; i < runs_.size(); ++i)
    if (runs_[i] == ref) return static_cast<int>(i);
  return -1;
}

int RunListModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(runs_.size());
}

int RunListModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant RunListModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const RunRef ref = runs_[static_cast<size_t>(index.row())];
  const auto& doc = store_->documents()[static_cast<size_t>(ref.document)];
  const auto& run = store_->run(ref);
  if (role == Qt::ToolTipRole) return doc.path;
  if (role != Qt::DisplayRole && role != SortRole) return {};
  switch (index.column()) {
    case File:
      return QFileInfo(doc.path).fileName();
    case Model:
      return display_text(run.model);
    case Size:
      return display_text(run.size);
    case Backend:
      return display_text(run.backend);
    case Device:
      return display_text(run.device);
    case Batch: {
      const auto batch = run_batch(run);
      return role == SortRole ? sort_value(batch) : QVariant(format_number(batch, 0));
    }
    case Date:
      return text(doc.document.context, "date");
    case Stages: {
      int ok = 0, total = 0;
      for (const StageRecord& s : run.stages) {
        ++total;
        ok += s.status == "ok";
      }
      if (role == SortRole) return ok;
      return QStringLiteral("%1/%2 ok").arg(ok).arg(total);
    }
    default:
      return {};
  }
}

QVariant RunListModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* kNames[] = {"file",   "model", "size", "backend",
                                 "device", "batch", "date", "stages"};
  return section >= 0 && section < ColumnCount ? QVariant(kNames[section]) : QVariant();
}

}  // namespace sb::viewer
