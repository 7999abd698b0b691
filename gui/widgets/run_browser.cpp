#include "gui/widgets/run_browser.h"

#include <QHeaderView>
#include <QLineEdit>
#include <QSplitter>
#include <QTextBrowser>
#include <QVBoxLayout>

#include "gui/model/context_summary.h"
#include "gui/model/numeric_sort_proxy.h"
#include "gui/model/run_list_model.h"
#include "gui/widgets/copyable_table_view.h"

namespace sb::viewer {

RunBrowser::RunBrowser(DocumentStore* store, QWidget* parent)
    : QWidget(parent),
      store_(store),
      model_(new RunListModel(store, this)),
      proxy_(new NumericSortProxy(this)),
      table_(new CopyableTableView),
      context_(new QTextBrowser) {
  proxy_->setSourceModel(model_);
  table_->setModel(proxy_);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->horizontalHeader()->setStretchLastSection(true);
  auto* filter = new QLineEdit;
  filter->setPlaceholderText(tr("Filter runs (file, model, backend, device...)"));
  filter->setClearButtonEnabled(true);
  connect(filter, &QLineEdit::textChanged, proxy_, &QSortFilterProxyModel::setFilterFixedString);

  auto* top = new QWidget;
  auto* top_layout = new QVBoxLayout(top);
  top_layout->setContentsMargins(0, 0, 0, 0);
  top_layout->addWidget(filter);
  top_layout->addWidget(table_);
  auto* splitter = new QSplitter(Qt::Vertical);
  splitter->addWidget(top);
  splitter->addWidget(context_);
  splitter->setStretchFactor(0, 1);
  splitter->setStretchFactor(1, 2);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(splitter);

  connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          &RunBrowser::on_current_changed);
  // After a reload the model resets: keep showing the same run, refreshed.
  connect(model_, &QAbstractItemModel::modelReset, this, [this] {
    if (current_.valid() && model_->row_of(current_) >= 0) {
      select(current_);
      emit run_selected(current_);
    } else if (model_->rowCount() > 0) {
      select_row(0);
    }
  });
}

bool RunBrowser::select_row(int row) {
  const RunRef ref = model_->run_at(row);
  if (!ref.valid()) return false;
  select(ref);
  return true;
}

void RunBrowser::select(RunRef ref) {
  const QModelIndex source = model_->index(model_->row_of(ref), 0);
  const QModelIndex index = proxy_->mapFromSource(source);
  if (!index.isValid()) return;
  table_->selectionModel()->setCurrentIndex(
      index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
  table_->resizeColumnsToContents();
  if (!(current_ == ref)) on_current_changed();
  show_context();
}

void RunBrowser::on_current_changed() {
  const QModelIndex index = proxy_->mapToSource(table_->currentIndex());
  const RunRef ref = model_->run_at(index.row());
  if (!ref.valid() || ref == current_) return;
  current_ = ref;
  show_context();
  emit run_selected(ref);
}

void RunBrowser::show_context() {
  if (!current_.valid()) return;
  context_->setHtml(
      context_html(summarize_context(store_->document_of(current_), store_->run(current_))));
}

}  // namespace sb::viewer
