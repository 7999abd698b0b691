#pragma once
// A sortable table view whose selection (or, with nothing selected, whole table) copies to the
// clipboard as Markdown (Ctrl+C) or CSV (context menu).
#include <QTableView>

namespace sb::viewer {

class CopyableTableView : public QTableView {
  Q_OBJECT

 public:
  explicit CopyableTableView(QWidget* parent = nullptr);

  QString selection_markdown() const;
  QString selection_csv() const;

 protected:
  void keyPressEvent(QKeyEvent* event) override;
  void contextMenuEvent(QContextMenuEvent* event) override;
};

}  // namespace sb::viewer
