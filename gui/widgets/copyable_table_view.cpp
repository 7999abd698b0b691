#include "gui/widgets/copyable_table_view.h"

#include <QApplication>
#include <QClipboard>
#include <QContextMenuEvent>
#include <QHeaderView>
#include <QKeyEvent>
#include <QMenu>

#include "gui/model/table_export.h"

namespace sb::viewer {

CopyableTableView::CopyableTableView(QWidget* parent) : QTableView(parent) {
  // No sort until the user asks: rows start in the model's order (ladder order).
  horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
  setSortingEnabled(true);
  setSelectionBehavior(QAbstractItemView::SelectRows);
  setAlternatingRowColors(true);
  setWordWrap(false);
  verticalHeader()->hide();
  verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
  horizontalHeader()->setHighlightSections(false);
}

QString CopyableTableView::selection_markdown() const {
  return model() ? table_markdown(*model(), selectedIndexes()) : QString();
}

QString CopyableTableView::selection_csv() const {
  return model() ? table_csv(*model(), selectedIndexes()) : QString();
}

void CopyableTableView::keyPressEvent(QKeyEvent* event) {
  if (event->matches(QKeySequence::Copy)) {
    QApplication::clipboard()->setText(selection_markdown());
    event->accept();
    return;
  }
  QTableView::keyPressEvent(event);
}

void CopyableTableView::contextMenuEvent(QContextMenuEvent* event) {
  QMenu menu(this);
  menu.addAction(tr("Copy as Markdown"), this,
                 [this] { QApplication::clipboard()->setText(selection_markdown()); });
  menu.addAction(tr("Copy as CSV"), this,
                 [this] { QApplication::clipboard()->setText(selection_csv()); });
  menu.addSeparator();
  menu.addAction(tr("Select all"), this, &QTableView::selectAll);
  menu.exec(event->globalPos());
}

}  // namespace sb::viewer
