#include "gui/widgets/ladder_view.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QVBoxLayout>

#include "gui/model/json_values.h"
#include "gui/model/ladder_model.h"
#include "gui/model/numeric_sort_proxy.h"
#include "gui/model/reference_model.h"
#include "gui/widgets/bar_delegate.h"
#include "gui/widgets/copyable_table_view.h"

namespace sb::viewer {

LadderView::LadderView(QWidget* parent)
    : QWidget(parent),
      model_(new LadderModel(this)),
      proxy_(new NumericSortProxy(this)),
      table_(new CopyableTableView),
      title_(new QLabel),
      reference_(new ReferenceModel(this)),
      reference_table_(new CopyableTableView),
      reference_legend_(new QLabel) {
  proxy_->setSourceModel(model_);
  table_->setModel(proxy_);
  table_->setItemDelegateForColumn(LadderModel::Time,
                                   new BarDelegate(QColor(0x9c, 0xc3, 0xe6), table_));
  table_->setItemDelegateForColumn(LadderModel::Speedup,
                                   new BarDelegate(QColor(0xa8, 0xdb, 0xa8), table_));
  table_->horizontalHeader()->setStretchLastSection(true);

  auto* filter = new QLineEdit;
  filter->setPlaceholderText(tr("Filter stages (id, status, verdict...)"));
  filter->setClearButtonEnabled(true);
  connect(filter, &QLineEdit::textChanged, proxy_, &QSortFilterProxyModel::setFilterFixedString);
  connect(table_, &QAbstractItemView::doubleClicked, this, [this](const QModelIndex& index) {
    emit stage_activated(proxy_->mapToSource(index).row());
  });

  QFont bold = title_->font();
  bold.setBold(true);
  title_->setFont(bold);
  auto* bar = new QHBoxLayout;
  bar->addWidget(title_, 1);
  bar->addWidget(filter, 1);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(bar);
  layout->addWidget(table_, 3);
  auto* reference_proxy = new NumericSortProxy(this);
  reference_proxy->setSourceModel(reference_);
  reference_table_->setModel(reference_proxy);
  reference_table_->setItemDelegateForColumn(ReferenceModel::Time,
                                             new BarDelegate(QColor(0x9c, 0xc3, 0xe6), table_));
  reference_table_->horizontalHeader()->setStretchLastSection(true);
  reference_legend_->setWordWrap(true);
  layout->addWidget(reference_table_, 1);
  layout->addWidget(reference_legend_);
}

void LadderView::set_run(const RunRecord& run) {
  model_->set_run(run);
  title_->setText(QStringLiteral("%1 / %2 / %3 on %4")
                      .arg(display_text(run.model), display_text(run.size),
                           display_text(run.backend), display_text(run.device)));
  table_->resizeColumnsToContents();
  for (int c : {LadderModel::Time, LadderModel::Speedup})
    table_->setColumnWidth(c, table_->columnWidth(c) + 24);
  reference_->set_run(run);
  reference_table_->setVisible(reference_->has_rows());
  reference_legend_->setVisible(reference_->has_rows());
  reference_legend_->setText(reference_->legend());
  reference_table_->resizeColumnsToContents();
}

}  // namespace sb::viewer
