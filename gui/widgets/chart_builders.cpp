#include "gui/widgets/chart_builders.h"

#include <cmath>
#include <optional>

#include <algorithm>

#include <QGraphicsLayout>
#include <QPen>
#include <QtCharts/QBarCategoryAxis>
#include <QtCharts/QBarSeries>
#include <QtCharts/QBarSet>
#include <QtCharts/QBoxPlotSeries>
#include <QtCharts/QBoxSet>
#include <QtCharts/QHorizontalBarSeries>
#include <QtCharts/QHorizontalStackedBarSeries>
#include <QtCharts/QLegendMarker>
#include <QtCharts/QLineSeries>
#include <QtCharts/QLogValueAxis>
#include <QtCharts/QScatterSeries>
#include <QtCharts/QStackedBarSeries>
#include <QtCharts/QValueAxis>

#include "gui/model/histogram.h"
#include "gui/model/json_values.h"
#include "gui/model/roles.h"

using namespace QtCharts;

namespace sb::viewer {
namespace {

using json = nlohmann::json;

QChart* new_chart(const QString& title) {
  auto* chart = new QChart;
  chart->setTitle(title);
  chart->setAnimationOptions(QChart::NoAnimation);
  chart->legend()->setAlignment(Qt::AlignBottom);
  chart->layout()->setContentsMargins(0, 0, 0, 0);
  chart->setMargins(QMargins(4, 4, 4, 4));
  return chart;
}

// "%.4g" never turns to exponents below 10,000, and the scales below keep every axis under it.
QValueAxis* value_axis(const QString& title, double low = 0) {
  auto* axis = new QValueAxis;
  axis->setTitleText(title);
  axis->setMin(low);
  axis->setLabelFormat(QStringLiteral("%.4g"));
  return axis;
}

// Stage ids under the time chart's boxes: upright when there are more than four, since a
// ladder's ids ("gradient-checkpointing", "preallocated-buffers") side by side were elided at the
// default window size (slanted by 30 or 60 degrees, still).
QBarCategoryAxis* category_axis(const QStringList& categories) {
  auto* axis = new QBarCategoryAxis;
  axis->append(categories);
  if (categories.size() > 4) axis->setLabelsAngle(-90);
  return axis;
}

// Bar charts lie on their side, the stages top to bottom in ladder order: a stage id then reads
// level at any length, where under upright bars it was elided.
void lay_out_horizontal(QChart* chart, QAbstractBarSeries* bars, QStringList categories,
                        QValueAxis* values) {
  std::reverse(categories.begin(), categories.end());  // Qt draws the first at the bottom
  for (QBarSet* set : bars->barSets()) {
    QList<qreal> reversed;
    for (int i = 0; i < set->count(); ++i) reversed.prepend(set->at(i));
    set->remove(0, set->count());
    set->append(reversed);
  }
  chart->addSeries(bars);
  auto* axis = new QBarCategoryAxis;
  axis->append(categories);
  chart->addAxis(values, Qt::AlignBottom);
  chart->addAxis(axis, Qt::AlignLeft);
  bars->attachAxis(values);
  bars->attachAxis(axis);
}

// Ticks on round numbers from 0 to a little above `max` (0, 2.5, 5, ... rather than 0, 3.83,
// 7.65, ...).
void round_range(QValueAxis* axis, double max) {
  axis->setRange(0, max > 0 ? max * 1.08 : 1);
  axis->applyNiceNumbers();
}

// An SI prefix for values up to `max`, so that tick labels stay short: 12,500 items/s is drawn
// as 12.5 on a "k items/s" axis. Values are divided by `divisor` before they are appended.
struct Scale {
  double divisor = 1;
  QString prefix;  // "", "k", "M", "G"
};

Scale si_scale(double max) {
  if (max >= 1e10) return {1e9, QStringLiteral("G")};
  if (max >= 1e7) return {1e6, QStringLiteral("M")};
  if (max >= 1e4) return {1e3, QStringLiteral("k")};
  return {};
}

// Bytes in the unit that puts `max` between 1 and 1000.
Scale byte_scale(double max) {
  if (max >= 1e9) return {1e9, QStringLiteral("GB")};
  if (max >= 1e6) return {1e6, QStringLiteral("MB")};
  if (max >= 1e3) return {1e3, QStringLiteral("kB")};
  return {1, QStringLiteral("B")};
}

QString with_prefix(const Scale& scale, const QString& unit) {
  return scale.prefix.isEmpty() ? unit : scale.prefix + QLatin1Char(' ') + unit;
}

}  // namespace

QChart* stage_time_chart(const RunRecord& run) {
  QChart* chart = new_chart(QStringLiteral("Time per stage and cumulative speedup"));
  auto* boxes = new QBoxPlotSeries;
  boxes->setName(QStringLiteral("time ms (box p10-p90, whiskers min-max)"));
  auto* speedup = new QLineSeries;
  speedup->setName(QStringLiteral("speedup vs baseline"));
  auto* speedup_points = new QScatterSeries;
  speedup_points->setMarkerSize(7);
  QStringList categories;
  double max_ms = 0, max_speedup = 1;
  for (const StageRecord& s : run.stages) {
    const TimeRecord& t = s.time;
    const auto median = t.median_ms;
    if (!median) continue;
    const QString id = display_text(s.id);
    auto* box = new QBoxSet(id);
    const double lo = t.min_ms.value_or(*median);
    const double hi = t.max_ms.value_or(*median);
    box->setValue(QBoxSet::LowerExtreme, lo);
    box->setValue(QBoxSet::LowerQuartile, t.p10_ms.value_or(*median));
    box->setValue(QBoxSet::Median, *median);
    box->setValue(QBoxSet::UpperQuartile, t.p90_ms.value_or(*median));
    box->setValue(QBoxSet::UpperExtreme, hi);
    boxes->append(box);
    max_ms = std::max(max_ms, hi);
    if (const auto v = s.speedup.vs_baseline) {
      speedup->append(categories.size(), *v);
      speedup_points->append(categories.size(), *v);
      max_speedup = std::max(max_speedup, *v);
    }
    categories << id;
  }
  chart->addSeries(boxes);
  chart->addSeries(speedup);
  chart->addSeries(speedup_points);
  chart->legend()->markers(speedup_points).first()->setVisible(false);
  auto* x = category_axis(categories);
  auto* y = value_axis(QStringLiteral("ms"));
  round_range(y, max_ms);
  auto* y2 = value_axis(QStringLiteral("speedup x"));
  round_range(y2, max_speedup * 1.05);
  chart->addAxis(x, Qt::AlignBottom);
  chart->addAxis(y, Qt::AlignLeft);
  chart->addAxis(y2, Qt::AlignRight);
  boxes->attachAxis(x);
  boxes->attachAxis(y);
  for (QXYSeries* s : {static_cast<QXYSeries*>(speedup), static_cast<QXYSeries*>(speedup_points)}) {
    s->setColor(QColor(0x2e, 0x8b, 0x3e));
    s->attachAxis(x);
    s->attachAxis(y2);
  }
  return chart;
}

QChart* memory_chart(const RunRecord& run) {
  QChart* chart = new_chart(QStringLiteral("Peak memory per stage"));
  struct Row {
    QString id;
    std::optional<double> host, device;
  };
  std::vector<Row> rows;
  double max_bytes = 0;
  bool any_device = false;
  for (const StageRecord& s : run.stages) {
    const auto bytes = [](const Bytes& b) {
      return b ? std::optional<double>(static_cast<double>(*b)) : std::nullopt;
    };
    const auto h = bytes(s.memory.host_peak_bytes), d = bytes(s.memory.device_peak_bytes);
    if (!h && !d) continue;
    rows.push_back({display_text(s.id), h, d});
    any_device = any_device || d.has_value();
    max_bytes = std::max({max_bytes, h.value_or(0), d.value_or(0)});
  }
  const Scale unit = byte_scale(max_bytes);
  auto* host = new QBarSet(QStringLiteral("host peak"));
  auto* device = new QBarSet(QStringLiteral("device peak"));
  QStringList categories;
  for (const Row& r : rows) {
    categories << r.id;
    *host << r.host.value_or(0) / unit.divisor;
    *device << r.device.value_or(0) / unit.divisor;
  }
  auto* bars = new QHorizontalBarSeries;
  bars->append(host);
  if (any_device)
    bars->append(device);
  else
    delete device;
  auto* values = value_axis(unit.prefix);
  round_range(values, max_bytes / unit.divisor);
  lay_out_horizontal(chart, bars, categories, values);
  return chart;
}

QChart* batch_chart(const std::vector<BatchSeries>& series, const QString& item_name,
                    const std::optional<BatchSearchCurve>& search) {
  QChart* chart = new_chart(QStringLiteral("Throughput against batch size"));
  if (series.empty() && !search) {
    chart->setTitle(QStringLiteral("Throughput against batch size: no batch sizes to compare"));
    return chart;
  }
  double max_x = 1, max_y = 0, max_mb = search ? search->cap_mb : 0;
  auto extend = [&](const QVector<QPointF>& points) {
    for (const QPointF& p : points) {
      max_x = std::max(max_x, p.x());
      max_y = std::max(max_y, p.y());
    }
  };
  for (const BatchSeries& s : series) extend(s.points);
  if (search) {
    extend(search->throughput);
    for (const QPointF& p : search->memory_mb) {
      max_x = std::max(max_x, p.x());
      max_mb = std::max(max_mb, p.y());
    }
  }
  const Scale per_s = si_scale(max_y);
  auto* x = value_axis(QStringLiteral("batch"));
  auto* y = value_axis(
      with_prefix(per_s, item_name.isEmpty() ? QStringLiteral("items/s") : item_name + "/s"));
  chart->addAxis(x, Qt::AlignBottom);
  chart->addAxis(y, Qt::AlignLeft);
  auto scaled = [](const QVector<QPointF>& points, double divisor) {
    QList<QPointF> out;
    for (const QPointF& p : points) out.append(QPointF(p.x(), p.y() / divisor));
    return out;
  };
  auto add_line = [&](const QString& name, const QVector<QPointF>& points) {
    auto* line = new QLineSeries;
    line->setName(name);
    line->setPointsVisible(true);
    line->append(scaled(points, per_s.divisor));
    chart->addSeries(line);
    line->attachAxis(x);
    line->attachAxis(y);
  };
  for (const BatchSeries& s : series) add_line(s.stage, s.points);
  if (search) {
    add_line(search->stage + QStringLiteral(" (batch search)"), search->throughput);
    // The two batches it found, marked on the throughput line.
    auto* found = new QScatterSeries;
    found->setName(QStringLiteral("best %1, largest fitting %2")
                       .arg(search->best_throughput)
                       .arg(search->largest_fitting));
    found->setMarkerSize(11);
    for (const QPointF& p : search->throughput)
      if (p.x() == search->best_throughput || p.x() == search->largest_fitting)
        found->append(p.x(), p.y() / per_s.divisor);
    chart->addSeries(found);
    found->attachAxis(x);
    found->attachAxis(y);
    // Peak memory of every probe and the cap, on their own axis.
    const Scale bytes = byte_scale(max_mb * 1e6);
    const double per_mb = 1e6 / bytes.divisor;
    auto* memory_axis = value_axis(bytes.prefix);
    chart->addAxis(memory_axis, Qt::AlignRight);
    auto* memory = new QLineSeries;
    memory->setName(QStringLiteral("peak"));
    memory->setPen(QPen(Qt::gray, 1.5, Qt::DashLine));
    for (const QPointF& p : search->memory_mb) memory->append(p.x(), p.y() * per_mb);
    chart->addSeries(memory);
    memory->attachAxis(x);
    memory->attachAxis(memory_axis);
    if (search->cap_mb > 0) {
      auto* cap = new QLineSeries;
      cap->setName(QStringLiteral("cap"));
      cap->setPen(QPen(Qt::red, 1, Qt::DotLine));
      cap->append(0, search->cap_mb * per_mb);
      cap->append(max_x * 1.08, search->cap_mb * per_mb);
      chart->addSeries(cap);
      cap->attachAxis(x);
      cap->attachAxis(memory_axis);
    }
    round_range(memory_axis, max_mb * per_mb);
  }
  round_range(x, max_x);
  round_range(y, max_y / per_s.divisor);
  return chart;
}

QChart* phases_chart(const PhasesModel& phases) {
  QChart* chart = new_chart(QStringLiteral("Training step phases (median ms per step)"));
  if (phases.rowCount() == 0) {
    chart->setTitle(QStringLiteral("Training step phases: none in this run"));
    return chart;
  }
  // The reports' segment colours (reports/report_html.cpp), in phase order.
  static const QColor kColours[PhasesModel::kPhaseCount] = {
      QColor(0xbb, 0xbb, 0xbb), QColor(0xdd, 0xaa, 0x33), QColor(0x44, 0x77, 0xaa),
      QColor(0xcc, 0x66, 0x77), QColor(0x44, 0xaa, 0x77)};
  auto* bars = new QHorizontalStackedBarSeries;
  for (int p = 0; p < PhasesModel::kPhaseCount; ++p) {
    const int column = PhasesModel::kFirstPhase + p;
    auto* set = new QBarSet(phases.headerData(column, Qt::Horizontal, Qt::DisplayRole)
                                .toString()
                                .remove(QStringLiteral(" ms")));
    set->setColor(kColours[p]);
    for (int row = 0; row < phases.rowCount(); ++row)
      *set << phases.index(row, column).data(SortRole).toDouble();  // unknown: 0, no segment
    bars->append(set);
  }
  QStringList categories;
  double max_ms = 0;
  for (int row = 0; row < phases.rowCount(); ++row) {
    categories << phases.index(row, PhasesModel::Stage).data().toString();
    max_ms = std::max(max_ms, phases.index(row, PhasesModel::Step).data(SortRole).toDouble());
  }
  auto* values = value_axis(QStringLiteral("ms"));
  round_range(values, max_ms);
  lay_out_horizontal(chart, bars, categories, values);
  return chart;
}

QChart* frames_chart(const FramesModel& frames) {
  const QString item = frames.item_name().isEmpty() ? QStringLiteral("items") : frames.item_name();
  QChart* chart =
      new_chart(QStringLiteral("Training and inference, measured and claimed (%1/s)").arg(item));
  if (frames.rowCount() == 0) {
    chart->setTitle(QStringLiteral("Training and inference: none in this run"));
    return chart;
  }
  struct Set {
    const char* label;
    int column;
    bool claimed;
    QColor colour;
  };
  const Set sets[] = {
      {"training", FramesModel::Training, false, QColor(0x44, 0x77, 0xaa)},
      {"training claimed", FramesModel::Training, true, QColor(0xaa, 0xc4, 0xe0)},
      {"inference", FramesModel::Inference, false, QColor(0x22, 0x88, 0x33)},
      {"inference claimed", FramesModel::Inference, true, QColor(0xa8, 0xdb, 0xa8)}};
  auto* bars = new QHorizontalBarSeries;
  double max_fps = 0;
  for (const Set& set_spec : sets) {
    auto* set = new QBarSet(QString::fromLatin1(set_spec.label));
    set->setColor(set_spec.colour);
    for (int row = 0; row < frames.rowCount(); ++row) {
      const double v = set_spec.claimed
                           ? frames.claimed_fps(row, set_spec.column)
                           : frames.index(row, set_spec.column).data(SortRole).toDouble();
      const double shown = std::isfinite(v) ? v : 0;  // unknown or no claim: no bar
      *set << shown;
      max_fps = std::max(max_fps, shown);
    }
    bars->append(set);
  }
  QStringList categories;
  for (int row = 0; row < frames.rowCount(); ++row)
    categories << frames.index(row, FramesModel::Stage).data().toString();
  auto* values = value_axis(item + QStringLiteral("/s"));
  round_range(values, max_fps);
  lay_out_horizontal(chart, bars, categories, values);
  return chart;
}

QChart* samples_histogram_chart(const StageRecord& stage) {
  const std::vector<double> samples = stage.samples_ms.value_or(std::vector<double>{});
  QChart* chart = new_chart(QStringLiteral("Samples of %1 (%2 samples, ms)")
                                .arg(display_text(stage.id))
                                .arg(samples.size()));
  const Histogram h = make_histogram(samples);
  if (h.counts.empty()) return chart;
  auto* set = new QBarSet(QStringLiteral("samples"));
  QStringList categories;
  int max_count = 0;
  for (size_t i = 0; i < h.counts.size(); ++i) {
    *set << h.counts[i];
    max_count = std::max(max_count, h.counts[i]);
    categories << format_ms(h.low + (static_cast<double>(i) + 0.5) * h.width);
  }
  auto* bars = new QBarSeries;
  bars->setBarWidth(0.95);
  bars->append(set);
  chart->addSeries(bars);
  chart->legend()->hide();
  auto* x = new QBarCategoryAxis;  // short numbers: level, whatever their count
  x->append(categories);
  x->setTitleText(QStringLiteral("bin centre, ms"));
  auto* y = value_axis(QStringLiteral("count"));
  // Ticks on whole counts: one per count when few, else Qt's nice numbers.
  y->setMax(max_count);
  if (max_count <= 10)
    y->setTickCount(max_count + 1);
  else
    y->applyNiceNumbers();
  y->setLabelFormat(QStringLiteral("%.0f"));
  chart->addAxis(x, Qt::AlignBottom);
  chart->addAxis(y, Qt::AlignLeft);
  bars->attachAxis(x);
  bars->attachAxis(y);
  return chart;
}

}  // namespace sb::viewer
