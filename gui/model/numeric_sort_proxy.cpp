#include "gui/model/numeric_sort_proxy.h"

#include "gui/model/roles.h"

namespace sb::viewer {

NumericSortProxy::NumericSortProxy(QObject* parent) : QSortFilterProxyModel(parent) {
  setSortRole(SortRole);
  setFilterKeyColumn(-1);
  setFilterCaseSensitivity(Qt::CaseInsensitive);
}

bool NumericSortProxy::lessThan(const QModelIndex& left, const QModelIndex& right) const {
  const QVariant a = left.data(sortRole());
  const QVariant b = right.data(sortRole());
  if (!a.isValid() || !b.isValid()) return !a.isValid() && b.isValid();
  bool a_num = false, b_num = false;
  const double x = a.toDouble(&a_num);
  const double y = b.toDouble(&b_num);
  if (a_num && b_num && a.type() != QVariant::String && b.type() != QVariant::String) return x < y;
  return QString::localeAwareCompare(a.toString(), b.toString()) < 0;
}

}  // namespace sb::viewer
