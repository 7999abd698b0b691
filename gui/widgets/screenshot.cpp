#include "gui/widgets/screenshot.h"

#include <cstdio>
#include <stdexcept>

#include <QApplication>
#include <QBuffer>
#include <QFileInfo>
#include <QImage>
#include <QSaveFile>
#include <QWidget>

#include "gui/widgets/charts_view.h"
#include "gui/widgets/compare_view.h"
#include "gui/widgets/main_window.h"
#include "gui/widgets/run_browser.h"

namespace sb::viewer {
namespace {

constexpr int kSmallPngBytes = 140 * 1000;

// Empty when the encoder fails; the caller then writes nothing.
QByteArray png_bytes(const QImage& image) {
  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  if (!image.save(&buffer, "PNG", 0)) return {};  // quality 0: the strongest compression
  return bytes;
}

void fail(const QString& message) {
  std::fprintf(stderr, "%s\n", qPrintable(message));
}

}  // namespace

std::optional<int> parse_run_row(const QString& text) {
  bool ok = false;
  const int row = text.toInt(&ok);
  return ok ? std::optional<int>(row) : std::nullopt;
}

void save_png(const QImage& image, const QString& path) {
  if (image.isNull())
    throw std::runtime_error("cannot render the window for " + path.toStdString());
  QByteArray bytes = png_bytes(image);
  if (bytes.size() > kSmallPngBytes) {
    const QByteArray reduced =
        png_bytes(image.convertToFormat(QImage::Format_Indexed8, Qt::ThresholdDither));
    if (!reduced.isEmpty()) bytes = reduced;
  }
  // An encoder that failed gave no bytes: writing them would replace an older PNG with an empty
  // file and report success.
  if (bytes.isEmpty())
    throw std::runtime_error("cannot encode " + path.toStdString() + " as PNG (" +
                             std::to_string(image.width()) + " x " +
                             std::to_string(image.height()) + " pixels)");
  // QSaveFile: a temporary file renamed over the path on commit, like every stagebench output,
  // so a full disk keeps the previous image.
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit())
    throw std::runtime_error("cannot write " + path.toStdString() + ": " +
                             file.errorString().toStdString());
}

void save_widget_png(QWidget& widget, const QString& path) {
  save_png(widget.grab().toImage(), path);
}

int take_screenshot(MainWindow& window, const ScreenshotRequest& request) {
  window.set_interactive(false);
  QStringList files = request.files;
  if (!request.compare_with.isEmpty()) files << request.compare_with;
  // One at a time, so that the run list keeps the command line's order.
  DocumentStore* store = window.store();
  for (const QString& file : files) {
    window.open_files({file});
    if (!store->wait_idle(120000)) {
      fail(QStringLiteral("timed out loading %1").arg(file));
      return 1;
    }
  }
  for (const QString& problem : window.problems()) fail(problem);
  if (store->documents().empty()) {
    fail(QStringLiteral("no document could be loaded"));
    return 1;
  }
  // "charts:batch": the charts view with one chart's tab (ChartsView::chart_keys()).
  const QString view = request.view.section(QLatin1Char(':'), 0, 0);
  const QString chart = request.view.section(QLatin1Char(':'), 1);
  if (!window.show_view(view) || (!chart.isEmpty() && view != QLatin1String("charts"))) {
    fail(QStringLiteral("unknown view '%1' (ladder, charts, charts:CHART, drilldown, compare)")
             .arg(request.view));
    return 2;
  }
  window.resize(request.size);
  window.show();
  if (!window.run_browser()->select_row(request.run_row)) {
    fail(QStringLiteral("no run at row %1").arg(request.run_row));
    return 2;
  }
  if (!chart.isEmpty() && !window.charts()->show_chart(chart)) {
    fail(QStringLiteral("no chart '%1' for this run (%2; phases and frames only where the run "
                        "has them)")
             .arg(chart, ChartsView::chart_keys().join(QStringLiteral(", "))));
    return 2;
  }
  if (!request.compare_with.isEmpty()) {
    const int base = store->index_of(QFileInfo(request.files.value(0)).absoluteFilePath());
    const int candidate = store->index_of(QFileInfo(request.compare_with).absoluteFilePath());
    if (base < 0 || candidate < 0) {
      fail(QStringLiteral("--compare needs both files loaded"));
      return 1;
    }
    window.compare()->set_pair({base, 0}, {candidate, 0});
  }
  for (int i = 0; i < 5; ++i) QApplication::processEvents();
  try {
    save_widget_png(window, request.output);
  } catch (const std::exception& e) {
    fail(QString::fromUtf8(e.what()));
    return 1;
  }
  return 0;
}

}  // namespace sb::viewer
