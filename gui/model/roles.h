#pragma once
// Item data roles the viewer's models add to Qt's.
#include <Qt>

namespace sb::viewer {

enum Role {
  // The value to sort by: a double for numeric columns (so 10 sorts after 9), a string
  // otherwise, an invalid QVariant for unknown values (they sort first ascending).
  SortRole = Qt::UserRole + 1,
  // The bar a BarDelegate paints in the cell: the value's fraction of the column's largest
  // value, in [0, 1]; invalid for cells without a bar.
  BarRole,
};

}  // namespace sb::viewer
