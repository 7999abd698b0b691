#pragma once
// `stagebench-viewer --screenshot FILE.png`: load the files, show one view, save the window as
// a PNG and exit. Works headless (QT_QPA_PLATFORM=offscreen).
#include <optional>

#include <QSize>
#include <QString>
#include <QStringList>

class QImage;
class QWidget;

namespace sb::viewer {

class MainWindow;

struct ScreenshotRequest {
  QStringList files;
  QString output;  // the PNG to write
  QString view =
      "ladder";  // ladder, charts, charts:CHART (ChartsView::chart_keys()), drilldown, compare
  QString compare_with;  // a second file: compare its first run with the first file's
  int run_row = 0;       // which run of the run list to show
  QSize size = QSize(1440, 800);
};

// Saves the image as a PNG, whole or not at all: a null image or one the encoder refuses throws
// std::runtime_error naming the file, and an older file of that name stays as it was.
void save_png(const QImage& image, const QString& path);

// Saves the widget as a PNG, reducing colours when the plain image would be large (screenshots
// go into the repository). Throws std::runtime_error naming the file when it cannot be written.
void save_widget_png(QWidget& widget, const QString& path);

// `--run ROW` as given: a whole number, or nullopt. QString::toInt read "abc", "" and "0.5" as
// row 0 and the screenshot went ahead, exit 0 (the hostile-input campaign, issue 29).
std::optional<int> parse_run_row(const QString& text);

// Returns the process exit code: 0 on success; otherwise prints why to stderr.
int take_screenshot(MainWindow& window, const ScreenshotRequest& request);

}  // namespace sb::viewer
