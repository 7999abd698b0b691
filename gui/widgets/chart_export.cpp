#include "gui/widgets/chart_export.h"

#include <stdexcept>

#include <QFileDialog>
#include <QMessageBox>
#include <QPainter>
#include <QSaveFile>
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
  // QSaveFile: written to a temporary file and renamed over the path on commit, like every
  // stagebench output, so a full disk keeps the previous export.
  QSaveFile file(path);
  const auto fail = [&] {
    return std::runtime_error("cannot write " + path.toStdString() + ": " +
                              file.errorString().toStdString());
  };
  if (!file.open(QIODevice::WriteOnly)) throw fail();
  if (path.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive)) {
#ifdef STAGEBENCH_HAVE_QTSVG
    QSvgGenerator svg;
    svg.setOutputDevice(&file);
    svg.setSize(view.size());
    svg.setViewBox(view.rect());
    svg.setTitle(view.chart()->title());
    QPainter painter;
    if (!painter.begin(&svg)) throw fail();
    view.render(&painter);
    painter.end();
    if (!file.commit()) throw fail();
    return;
#else
    throw std::runtime_error("cannot write " + path.toStdString() +
                             ": built without QtSvg (libqt5svg5-dev)");
#endif
  }
  if (!view.grab().save(&file, "PNG") || !file.commit()) throw fail();
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
