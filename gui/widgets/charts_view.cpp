#include "gui/widgets/charts_view.h"

#include <QMenu>
#include <QVBoxLayout>

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
      tabs_(new QTabWidget),
      time_(make_exportable_chart_view()),
      memory_(make_exportable_chart_view()),
      batch_(make_exportable_chart_view()),
      phases_(new PhasesModel(this)),
      phases_view_(make_exportable_chart_view()),
      frames_(new FramesModel(this)),
      frames_page_(new QWidget),
      frames_view_(make_exportable_chart_view()),
      frames_table_(new CopyableTableView) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(tabs_);
  auto* frames_layout = new QVBoxLayout(frames_page_);
  frames_layout->setContentsMargins(0, 0, 0, 0);
  frames_layout->addWidget(frames_view_, 3);
  frames_layout->addWidget(frames_table_, 2);
  tabs_->setTabPosition(QTabWidget::West);
  tabs_->addTab(time_, tr("Time"));
  tabs_->addTab(memory_, tr("Memory"));
  tabs_->addTab(batch_, tr("Batch"));
  tabs_->addTab(phases_view_, tr("Phases"));
  tabs_->addTab(frames_page_, tr("Seed 004"));
  tabs_->setTabVisible(tab_of(phases_view_), false);
  tabs_->setTabVisible(tab_of(frames_page_), false);
  auto* proxy = new NumericSortProxy(this);
  proxy->setSourceModel(frames_);
  frames_table_->setModel(proxy);
  frames_table_->setItemDelegateForColumn(FramesModel::Training,
                                          new BarDelegate(QColor(0xaa, 0xc4, 0xe0), frames_table_));
  frames_table_->setItemDelegateForColumn(FramesModel::Inference,
                                          new BarDelegate(QColor(0xa8, 0xdb, 0xa8), frames_table_));
}

int ChartsView::tab_of(const QWidget* widget) const {
  for (int i = 0; i < tabs_->count(); ++i)
    if (tabs_->widget(i) == widget || tabs_->widget(i)->isAncestorOf(widget)) return i;
  return -1;
}

bool ChartsView::shows(const QWidget* widget) const {
  const int i = tab_of(widget);
  return i >= 0 && tabs_->isTabVisible(i);
}

QStringList ChartsView::chart_keys() {
  return {QStringLiteral("time"), QStringLiteral("memory"), QStringLiteral("batch"),
          QStringLiteral("phases"), QStringLiteral("frames")};
}

bool ChartsView::show_chart(const QString& key) {
  const int i = chart_keys().indexOf(key);
  if (i < 0 || !tabs_->isTabVisible(i)) return false;
  tabs_->setCurrentIndex(i);
  return true;
}

std::vector<QtCharts::QChartView*> ChartsView::chart_views() const {
  std::vector<QtCharts::QChartView*> views;
  for (QtCharts::QChartView* v : {time_, memory_, batch_, phases_view_, frames_view_})
    if (shows(v)) views.push_back(v);
  return views;
}

void ChartsView::set_run(const RunRecord& run, const std::vector<const RunRecord*>& all_runs) {
  // setChart does not delete the chart it replaces.
  auto replace = [](QtCharts::QChartView* view, QtCharts::QChart* chart) {
    QtCharts::QChart* old = view->chart();
    view->setChart(chart);
    delete old;
  };
  replace(time_, stage_time_chart(run));
  replace(memory_, memory_chart(run));
  QString item_name;
  for (const StageRecord& s : run.stages)
    if (item_name.isEmpty()) item_name = text(s.throughput.item_name);
  replace(batch_, batch_chart(batch_series(all_runs, run), item_name, batch_search_curve(run)));
  phases_->set_run(run);  // no rows unless a training run
  replace(phases_view_, phases_chart(*phases_));
  tabs_->setTabVisible(tab_of(phases_view_), phases_->has_phases());
  frames_->set_run(run);  // no rows unless the stages timed their inference
  replace(frames_view_, frames_chart(*frames_));
  tabs_->setTabVisible(tab_of(frames_page_), frames_->has_rows());
  frames_table_->resizeColumnsToContents();
}

}  // namespace sb::viewer
