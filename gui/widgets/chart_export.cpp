#include "gui/widgets/chart_export.h"

#include <stdexcept>

#include <QFileDialog>
#include <QMessageBox>
#include <QPainter>
#ifdef STAGEBENCH_HAVE_QTSVG
#include <QSvgGenerator>
#endif

namespace sb::viewer {

bool svg_export_available() {
#ifdef STAGEBENCH_HAVE_QTSVG
  return true;
#else
  return false;
#endif
}

void export_chart(QtCharts::QChartView& view, const QString& path) {
  if (path.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive)) {
#ifdef STAGEBENCH_HAVE_QTSVG
    QSvgGenerator svg;
    svg.setFileName(path);
    svg.setSize(view.size());
    svg.setViewBox(view.rect());
    svg.setTitle(view.chart()->title());
    QPainter painter;
    if (!painter.begin(&svg)) throw std::runtime_error("cannot write " + path.toStdString());
    view.render(&painter);
    painter.end();
    return;
#else
    throw std::runtime_error("cannot write " + path.toStdString() +
                             ": built without QtSvg (libqt5svg5-dev)");
#endif
  }
  if (!view.grab().save(path, "PNG"))
    throw std::runtime_error("cannot write " + path.toStdString());
}

void export_chart_interactively(QtCharts::QChartView& view) {
  const QString filter = svg_export_available()
                             ? QObject::tr("PNG image (*.png);;SVG image (*.svg)")
                             : QObject::tr("PNG image (*.png)");
  const QString path =
      QFileDialog::getSaveFileName(&view, QObject::tr("Export chart"), QString(), filter);
  if (path.isEmpty()) return;
  try {
    export_chart(view, path);
  } catch (const std::exception& e) {
    QMessageBox::warning(&view, QObject::tr("Export failed"), QString::fromUtf8(e.what()));
  }
}

}  // namespace sb::viewer
