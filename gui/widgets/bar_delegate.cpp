#include "gui/widgets/bar_delegate.h"

#include <algorithm>

#include <QPainter>

#include "gui/model/roles.h"

namespace sb::viewer {

BarDelegate::BarDelegate(QColor colour, QObject* parent)
    : QStyledItemDelegate(parent), colour_(colour) {}

void BarDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option,
                        const QModelIndex& index) const {
  const QVariant bar = index.data(BarRole);
  if (bar.isValid() && !(option.state & QStyle::State_Selected)) {
    const double fraction = std::clamp(bar.toDouble(), 0.0, 1.0);
    QRect r = option.rect.adjusted(1, 3, -1, -3);
    r.setWidth(static_cast<int>(r.width() * fraction));
    painter->fillRect(r, colour_);
  }
  QStyledItemDelegate::paint(painter, option, index);
}

}  // namespace sb::viewer
