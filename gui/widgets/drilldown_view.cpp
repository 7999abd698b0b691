#include "gui/widgets/drilldown_view.h"

#include <QComboBox>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTabWidget>
#include <QVBoxLayout>

#include "gui/model/counters_model.h"
#include "gui/model/json_values.h"
#include "gui/model/kernels_model.h"
#include "gui/model/numeric_sort_proxy.h"
#include "gui/widgets/bar_delegate.h"
#include "gui/widgets/chart_builders.h"
#include "gui/widgets/charts_view.h"
#include "gui/widgets/copyable_table_view.h"

namespace sb::viewer {
namespace {

QWidget* titled(const QString& title, QWidget* content) {
  auto* box = new QGroupBox(title);
  auto* layout = new QVBoxLayout(box);
  layout->setContentsMargins(4, 4, 4, 4);
  layout->addWidget(content);
  return box;
}

CopyableTableView* table_for(QAbstractItemModel* model, QObject* owner) {
  auto* proxy = new NumericSortProxy(owner);
  proxy->setSourceModel(model);
  auto* table = new CopyableTableView;
  table->setModel(proxy);
  table->horizontalHeader()->setStretchLastSection(true);
  QObject::connect(model, &QAbstractItemModel::modelReset, table,
                   [table] { table->resizeColumnsToContents(); });
  return table;
}

}  // namespace

DrilldownView::DrilldownView(QWidget* parent)
    : QWidget(parent),
      stages_(new QComboBox),
      summary_(new QLabel),
      counters_(new CountersModel(this)),
      kernels_(new KernelsModel(this)),
      histogram_(make_exportable_chart_view()),
      timeline_(new TimelineWidget),
      lower_(new QTabWidget) {
  auto* kernels_table = table_for(kernels_, this);
  kernels_table->setItemDelegateForColumn(KernelsModel::Share,
                                          new BarDelegate(QColor(0xe6, 0xc0, 0x9c), kernels_table));
  kernels_table->sortByColumn(KernelsModel::TotalMs, Qt::DescendingOrder);
  auto* tables = new QSplitter(Qt::Horizontal);
  tables->addWidget(titled(tr("Counters"), table_for(counters_, this)));
  tables->addWidget(titled(tr("OpenCL kernels"), kernels_table));
  auto* splitter = new QSplitter(Qt::Vertical);
  splitter->addWidget(tables);
  // The timeline and the histogram share the lower half as tabs: stacked, each got too little
  // height to read.
  lower_->addTab(timeline_, tr("Timeline of one captured sample"));
  lower_->addTab(histogram_, tr("Samples"));
  splitter->addWidget(lower_);
  splitter->setStretchFactor(0, 1);
  splitter->setStretchFactor(1, 1);

  auto* bar = new QHBoxLayout;
  bar->addWidget(new QLabel(tr("Stage:")));
  bar->addWidget(stages_);
  bar->addWidget(summary_, 1);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(bar);
  layout->addWidget(splitter);
  connect(stages_, qOverload<int>(&QComboBox::currentIndexChanged), this,
          &DrilldownView::show_stage);
}

void DrilldownView::set_run(const RunRecord& run) {
  run_ = run;
  const QSignalBlocker block(stages_);
  stages_->clear();
  int busiest = 0;
  double most_ns = 0;
  int i = 0;
  for (const StageRecord& s : run_.stages) {
    stages_->addItem(
        QStringLiteral("%1  %2 (%3)").arg(i).arg(display_text(s.id), display_text(s.status)));
    double ns = 0;
    for (const KernelRecord& k : read_opencl(s).kernels) ns += k.total_ns.value_or(0);
    if (ns > most_ns) {
      most_ns = ns;
      busiest = i;
    }
    ++i;
  }
  select_stage(busiest);
}

void DrilldownView::set_timeline(std::map<QString, TimelineStage> stages, const QString& why_none) {
  timeline_stages_ = std::move(stages);
  timeline_why_none_ = why_none;
  show_stage(current_stage());
}

void DrilldownView::select_stage(int stage) {
  if (stage < 0 || stage >= stages_->count()) return;
  {
    const QSignalBlocker block(stages_);
    stages_->setCurrentIndex(stage);
  }
  show_stage(stage);
}

int DrilldownView::current_stage() const {
  return stages_->currentIndex();
}

void DrilldownView::show_stage(int stage) {
  const auto& stages = run_.stages;
  if (stage < 0 || static_cast<size_t>(stage) >= stages.size()) return;
  const StageRecord& s = stages[static_cast<size_t>(stage)];
  counters_->set_stage(s);
  kernels_->set_stage(s);
  const OpenclRecord cl = read_opencl(s);
  QString summary = display_text(s.title);
  if (cl.present)
    summary += QStringLiteral("   host->device %1, device->host %2 (all samples)")
                   .arg(format_bytes(cl.h2d_bytes), format_bytes(cl.d2h_bytes));
  const QString reason = text(s.reason);
  if (!reason.isEmpty()) summary += QStringLiteral("   [%1]").arg(reason);
  summary_->setText(summary);
  QtCharts::QChart* old = histogram_->chart();
  histogram_->setChart(samples_histogram_chart(s));
  delete old;
  const auto captured = timeline_stages_.find(display_text(s.id));
  // The timeline's tab when there is one to show, else the samples'.
  lower_->setCurrentWidget(captured != timeline_stages_.end() ? static_cast<QWidget*>(timeline_)
                                                              : histogram_);
  if (captured != timeline_stages_.end()) {
    const TimelineStage& t = captured->second;
    timeline_->set_stage(t);
    summary_->setText(summary + QStringLiteral("   timeline: device busy %1 of %2 ms")
                                    .arg(t.device_busy_us / 1000, 0, 'f', 3)
                                    .arg(t.sample_us / 1000, 0, 'f', 3));
  } else {
    timeline_->set_stage(std::nullopt, timeline_stages_.empty()
                                           ? timeline_why_none_
                                           : tr("No sample of this stage was captured (a stage "
                                                "that was skipped or failed has none)."));
  }
}

}  // namespace sb::viewer
