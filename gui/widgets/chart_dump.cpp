#include "gui/widgets/chart_dump.h"

#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QGraphicsTextItem>
#include <QtCharts/QAbstractBarSeries>
#include <QtCharts/QBarCategoryAxis>
#include <QtCharts/QBarSet>
#include <QtCharts/QBoxPlotSeries>
#include <QtCharts/QBoxSet>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QLogValueAxis>
#include <QtCharts/QValueAxis>
#include <QtCharts/QXYSeries>

using namespace QtCharts;

namespace sb::viewer {
namespace {

QString num(double v) {
  return QString::asprintf("%.4g", v);
}

QString side(Qt::Alignment a) {
  if (a & Qt::AlignLeft) return QStringLiteral("left");
  if (a & Qt::AlignRight) return QStringLiteral("right");
  if (a & Qt::AlignTop) return QStringLiteral("top");
  return QStringLiteral("bottom");
}

// The tick labels a value axis draws: its tick count spread evenly over the range, in its
// label format.
QStringList value_ticks(const QValueAxis& axis) {
  QStringList labels;
  const int n = axis.tickCount();
  const QByteArray format = axis.labelFormat().toLatin1();
  for (int i = 0; i < n; ++i) {
    const double v = axis.min() + (axis.max() - axis.min()) * i / std::max(1, n - 1);
    labels << QString::asprintf(format.constData(), v);
  }
  return labels;
}

QString axis_line(const QAbstractAxis& axis) {
  QString line = QStringLiteral("axis %1 \"%2\"").arg(side(axis.alignment()), axis.titleText());
  if (const auto* v = qobject_cast<const QValueAxis*>(&axis))
    return line + QStringLiteral(" [%1, %2] ticks: %3")
                      .arg(num(v->min()), num(v->max()), value_ticks(*v).join(QStringLiteral(" ")));
  if (const auto* l = qobject_cast<const QLogValueAxis*>(&axis))
    return line +
           QStringLiteral(" log%1 [%2, %3]").arg(num(l->base()), num(l->min()), num(l->max()));
  if (const auto* c = qobject_cast<const QBarCategoryAxis*>(&axis))
    return line + QStringLiteral(" categories: ") +  // categories() is not const in Qt 5
           const_cast<QBarCategoryAxis*>(c)->categories().join(QStringLiteral(" | "));
  return line;
}

QString series_lines(const QAbstractSeries& series) {
  QString out = QStringLiteral("series \"%1\"").arg(series.name());
  if (const auto* xy = qobject_cast<const QXYSeries*>(&series)) {
    out += QStringLiteral(" points:");
    for (const QPointF& p : xy->pointsVector())
      out += QStringLiteral(" (%1, %2)").arg(num(p.x()), num(p.y()));
    return out + QLatin1Char('\n');
  }
  if (const auto* bars = qobject_cast<const QAbstractBarSeries*>(&series)) {
    out += QLatin1Char('\n');
    for (const QBarSet* set : bars->barSets()) {
      out += QStringLiteral("  bars \"%1\":").arg(set->label());
      for (int i = 0; i < set->count(); ++i) out += QLatin1Char(' ') + num(set->at(i));
      out += QLatin1Char('\n');
    }
    return out;
  }
  if (const auto* boxes = qobject_cast<const QBoxPlotSeries*>(&series)) {
    out += QLatin1Char('\n');
    for (const QBoxSet* box : boxes->boxSets()) {
      out += QStringLiteral("  box \"%1\":").arg(box->label());
      for (int i = 0; i < 5; ++i) out += QLatin1Char(' ') + num(box->at(i));
      out += QLatin1Char('\n');
    }
    return out;
  }
  return out + QLatin1Char('\n');
}

}  // namespace

QString chart_dump(const QChart& chart) {
  QString out = QStringLiteral("chart \"%1\"\n").arg(chart.title());
  for (const QAbstractAxis* axis : chart.axes()) out += axis_line(*axis) + QLatin1Char('\n');
  for (const QAbstractSeries* series : chart.series()) out += series_lines(*series);
  return out;
}

QStringList elided_texts(const QChartView& view) {
  QStringList elided;
  const QGraphicsScene* scene = view.scene();
  if (!scene) return elided;
  for (const QGraphicsItem* item : scene->items()) {
    if (!item->isVisible()) continue;
    QString text;
    if (const auto* t = dynamic_cast<const QGraphicsTextItem*>(item))
      text = t->toPlainText();
    else if (const auto* s = dynamic_cast<const QGraphicsSimpleTextItem*>(item))
      text = s->text();
    if (text.contains(QStringLiteral("...")) || text.contains(QChar(0x2026))) elided << text;
  }
  return elided;
}

}  // namespace sb::viewer
