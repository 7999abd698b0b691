#pragma once
// The run list (all runs of all open files, filterable) above the selected run's context panel.
#include <QWidget>

#include "gui/model/document_store.h"

class QTableView;
class QTextBrowser;

namespace sb::viewer {

class NumericSortProxy;
class RunListModel;

class RunBrowser : public QWidget {
  Q_OBJECT

 public:
  explicit RunBrowser(DocumentStore* store, QWidget* parent = nullptr);

  RunRef current() const { return current_; }
  // Selects the run at this row of the unsorted list; false when there is no such row.
  bool select_row(int row);
  void select(RunRef ref);

 signals:
  void run_selected(RunRef ref);

 private:
  void on_current_changed();
  void show_context();

  DocumentStore* store_;
  RunListModel* model_;
  NumericSortProxy* proxy_;
  QTableView* table_;
  QTextBrowser* context_;
  RunRef current_;
};

}  // namespace sb::viewer
