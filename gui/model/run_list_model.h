#pragma once
// One row per run of every open document: file, model, size, backend, device, batch, date and
// how many stages are ok.
#include <QAbstractTableModel>

#include "gui/model/document_store.h"

namespace sb::viewer {

class RunListModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { File, Model, Size, Backend, Device, Batch, Date, Stages, ColumnCount };

  explicit RunListModel(const DocumentStore* store, QObject* parent = nullptr);

  RunRef run_at(int row) const;
  int row_of(RunRef ref) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  void refresh();

  const DocumentStore* store_;
  std::vector<RunRef> runs_;
};

}  // namespace sb::viewer
