#include "gui/widgets/charts_view.h"

#include <QGridLayout>
#include <QMenu>

#include "gui/model/json_values.h"
#include "gui/model/numeric_sort_proxy.h"
#include "gui/widgets/bar_delegate.h"
#include "gui/widgets/chart_builders.h"
#include "gui/widgets/chart_export.h"

namespace sb::viewer {

QtCharts::QChartView* make_exportable_chart_view(QWidget* parent) {
  auto* view = new QtCharts::QChartView(parent);
  view->setRenderHint(QPainter::Antialiasing);
  view->setContextMenuPolicy(Qt::CustomContextMenu);
  QObject::connect(view, &QWidget::customContextMenuRequested, view, [view](const QPoint& at) {
    QMenu menu(view);
    menu.addAction(QObject::tr("Export chart..."), view,
                   [view] { export_chart_interactively(*view); });
    menu.exec(view->mapToGlobal(at));
  });
  return view;
}

ChartsView::ChartsView(QWidget* parent)
    : QWidget(parent),
      time_(make_exportable_chart_view()),
      memory_(make_exportable_chart_view()),
      batch_(make_exportable_chart_view()),
      phases_(new PhasesModel(this)),
      phases_view_(make_exportable_chart_view()),
      frames_(new FramesModel(this)),
      frames_view_(make_exportable_chart_view()),
      frames_table_(new CopyableTableView) {
  auto* layout = new QGridLayout(this);
  layout->addWidget(time_, 0, 0, 1, 2);
  layout->addWidget(memory_, 1, 0);
  layout->addWidget(batch_, 1, 1);
  layout->addWidget(phases_view_, 2, 0, 1, 2);
  layout->addWidget(frames_view_, 3, 0);
  layout->addWidget(frames_table_, 3, 1);
  layout->setRowStretch(0, 3);
  layout->setRowStretch(1, 2);
  layout->setRowStretch(2, 2);
  layout->setRowStretch(3, 2);
  phases_view_->hide();
  auto* proxy = new NumericSortProxy(this);
  proxy->setSourceModel(frames_);
  frames_table_->setModel(proxy);
  frames_table_->setItemDelegateForColumn(FramesModel::Training,
                                          new BarDelegate(QColor(0xaa, 0xc4, 0xe0), frames_table_));
  frames_table_->setItemDelegateForColumn(FramesModel::Inference,
                                          new BarDelegate(QColor(0xa8, 0xdb, 0xa8), frames_table_));
  frames_view_->hide();
  frames_table_->hide();
}

std::vector<QtCharts::QChartView*> ChartsView::chart_views() const {
  std::vector<QtCharts::QChartView*> views{time_, memory_, batch_};
  if (phases_->has_phases()) views.push_back(phases_view_);
  if (frames_->has_rows()) views.push_back(frames_view_);
  return views;
}

void ChartsView::set_run(const nlohmann::json& run,
                         const std::vector<const nlohmann::json*>& all_runs) {
  // setChart does not delete the chart it replaces.
  auto replace = [](QtCharts::QChartView* view, QtCharts::QChart* chart) {
    QtCharts::QChart* old = view->chart();
    view->setChart(chart);
    delete old;
  };
  replace(time_, stage_time_chart(run));
  replace(memory_, memory_chart(run));
  QString item_name;
  for (const auto& s : member(run, "stages"))
    if (item_name.isEmpty()) item_name = text(member(s, "throughput"), "item_name");
  replace(batch_, batch_chart(batch_series(all_runs, run), item_name, batch_search_curve(run)));
  phases_->set_run(run);  // no rows unless a training run
  replace(phases_view_, phases_chart(*phases_));
  phases_view_->setVisible(phases_->has_phases());
  frames_->set_run(run);  // no rows unless the stages timed their inference
  replace(frames_view_, frames_chart(*frames_));
  frames_view_->setVisible(frames_->has_rows());
  frames_table_->setVisible(frames_->has_rows());
  frames_table_->resizeColumnsToContents();
}

}  // namespace sb::viewer
