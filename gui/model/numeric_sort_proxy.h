#pragma once
// Sorts by SortRole (numbers as numbers, unknown values first ascending) and filters rows whose
// text in any column contains the filter string, case-insensitively.
#include <QSortFilterProxyModel>

namespace sb::viewer {

class NumericSortProxy : public QSortFilterProxyModel {
  Q_OBJECT

 public:
  explicit NumericSortProxy(QObject* parent = nullptr);

 protected:
  bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;
};

}  // namespace sb::viewer
