#pragma once
// The ladder table of the selected run: filterable, sortable, bars in the time and speedup
// cells, copy as Markdown/CSV. Double-clicking a stage asks for its drill-down. Under it, when
// the run carries `stagebench peer`'s block, PyTorch's own variants on this machine.
#include <QWidget>
#include "schema/records.h"

class QLabel;

namespace sb::viewer {

class CopyableTableView;
class LadderModel;
class NumericSortProxy;
class ReferenceModel;

class LadderView : public QWidget {
  Q_OBJECT

 public:
  explicit LadderView(QWidget* parent = nullptr);
  void set_run(const RunRecord& run);
  LadderModel* model() const { return model_; }
  CopyableTableView* table() const { return table_; }
  ReferenceModel* reference() const { return reference_; }

 signals:
  // Row in ladder order.
  void stage_activated(int stage);

 private:
  LadderModel* model_;
  NumericSortProxy* proxy_;
  CopyableTableView* table_;
  QLabel* title_;
  ReferenceModel* reference_;
  CopyableTableView* reference_table_;
  QLabel* reference_legend_;
};

}  // namespace sb::viewer
