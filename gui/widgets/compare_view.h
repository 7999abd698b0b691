#pragma once
// Two runs side by side: pick the base and the candidate among the open runs.
#include <QWidget>

#include "gui/model/document_store.h"

class QComboBox;
class QLabel;

namespace sb::viewer {

class CompareModel;

class CompareView : public QWidget {
  Q_OBJECT

 public:
  explicit CompareView(DocumentStore* store, QWidget* parent = nullptr);
  void set_pair(RunRef base, RunRef candidate);
  CompareModel* model() const { return model_; }

 private:
  void refresh_choices();
  void recompute();

  DocumentStore* store_;
  QComboBox* base_;
  QComboBox* candidate_;
  QLabel* problem_;
  CompareModel* model_;
  std::vector<RunRef> runs_;
};

}  // namespace sb::viewer
