#include "gui/widgets/compare_view.h"

#include <QComboBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QVBoxLayout>

#include "gui/model/compare_model.h"
#include "gui/model/json_values.h"
#include "gui/model/numeric_sort_proxy.h"
#include "gui/widgets/copyable_table_view.h"

namespace sb::viewer {

CompareView::CompareView(DocumentStore* store, QWidget* parent)
    : QWidget(parent),
      store_(store),
      base_(new QComboBox),
      candidate_(new QComboBox),
      problem_(new QLabel),
      model_(new CompareModel(this)) {
  auto* proxy = new NumericSortProxy(this);
  proxy->setSourceModel(model_);
  auto* table = new CopyableTableView;
  table->setModel(proxy);
  table->horizontalHeader()->setStretchLastSection(true);
  connect(model_, &QAbstractItemModel::modelReset, table,
          [table] { table->resizeColumnsToContents(); });
  problem_->setWordWrap(true);
  problem_->setStyleSheet(QStringLiteral("color: #a05000"));

  auto* form = new QFormLayout;
  form->addRow(tr("Base:"), base_);
  form->addRow(tr("Candidate:"), candidate_);
  auto* legend = new QLabel(
      tr("Delta and ratio cells: <span style='background:#c6efc6'>&nbsp;faster&nbsp;</span> "
         "<span style='background:#f6c4c4'>&nbsp;slower&nbsp;</span> "
         "<span style='background:#fbe9b0'>&nbsp;ambiguous&nbsp;</span> (bold: regression)"));
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addWidget(legend);
  layout->addWidget(problem_);
  layout->addWidget(table);

  for (QComboBox* box : {base_, candidate_})
    connect(box, qOverload<int>(&QComboBox::currentIndexChanged), this, &CompareView::recompute);
  connect(store_, &DocumentStore::document_loaded, this, &CompareView::refresh_choices);
  refresh_choices();
}

void CompareView::refresh_choices() {
  const int base = base_->currentIndex(), candidate = candidate_->currentIndex();
  runs_ = store_->runs();
  {
    const QSignalBlocker b1(base_), b2(candidate_);
    for (QComboBox* box : {base_, candidate_}) {
      box->clear();
      for (RunRef ref : runs_) {
        const auto& run = store_->run(ref);
        box->addItem(QStringLiteral("%1: %2 / %3 / %4 on %5")
                         .arg(QFileInfo(store_->documents()[static_cast<size_t>(ref.document)].path)
                                  .fileName(),
                              text(run, "model"), text(run, "size"), text(run, "backend"),
                              text(run, "device")));
      }
    }
    const int n = static_cast<int>(runs_.size());
    base_->setCurrentIndex(base >= 0 && base < n ? base : 0);
    candidate_->setCurrentIndex(candidate >= 0 && candidate < n ? candidate : std::min(1, n - 1));
  }
  recompute();
}

void CompareView::set_pair(RunRef base, RunRef candidate) {
  auto position = [this](RunRef ref) {
    for (size_t i = 0; i < runs_.size(); ++i)
      if (runs_[i] == ref) return static_cast<int>(i);
    return -1;
  };
  const QSignalBlocker b1(base_), b2(candidate_);
  base_->setCurrentIndex(position(base));
  candidate_->setCurrentIndex(position(candidate));
  recompute();
}

void CompareView::recompute() {
  const int b = base_->currentIndex(), c = candidate_->currentIndex();
  if (b < 0 || c < 0) return;
  const RunRef base = runs_[static_cast<size_t>(b)], candidate = runs_[static_cast<size_t>(c)];
  model_->set_runs(store_->run(base), store_->run(candidate));
  problem_->setText(model_->problem());
  problem_->setVisible(!model_->problem().isEmpty());
}

}  // namespace sb::viewer
