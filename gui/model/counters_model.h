#pragma once
// The counters of one stage: name, tier (hardware, software, os, wall, error), value per
// sample, value per item, and the scope or the collector's error.
#include <QAbstractTableModel>

#include "schema/records.h"

namespace sb::viewer {

class CountersModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { Name, Tier, Value, PerItem, Note, ColumnCount };

  explicit CountersModel(QObject* parent = nullptr);
  void set_stage(const StageRecord& stage);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  struct Row {
    QString name;
    CounterRecord counter;
  };
  std::vector<Row> rows_;
};

}  // namespace sb::viewer
