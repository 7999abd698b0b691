#pragma once
// Paints a bar behind a cell's text, as long as the cell's BarRole fraction of the cell width.
#include <QColor>
#include <QStyledItemDelegate>

namespace sb::viewer {

class BarDelegate : public QStyledItemDelegate {
  Q_OBJECT

 public:
  BarDelegate(QColor colour, QObject* parent = nullptr);
  void paint(QPainter* painter, const QStyleOptionViewItem& option,
             const QModelIndex& index) const override;

 private:
  QColor colour_;
};

}  // namespace sb::viewer
