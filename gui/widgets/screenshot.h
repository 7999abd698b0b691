#pragma once
// `stagebench-viewer --screenshot FILE.png`: load the files, show one view, save the window as
// a PNG and exit. Works headless (QT_QPA_PLATFORM=offscreen).
#include <QSize>
#include <QString>
#include <QStringList>

class QWidget;

namespace sb::viewer {

class MainWindow;

struct ScreenshotRequest {
  QStringList files;
  QString output;           // the PNG to write
  QString view = "ladder";  // ladder, charts, drilldown, compare
  QString compare_with;     // a second file: compare its first run with the first file's
  int run_row = 0;          // which run of the run list to show
  QSize size = QSize(1440, 800);
};

// Saves the widget as a PNG, reducing colours when the plain image would be large (screenshots
// go into the repository). Throws std::runtime_error naming the file when it cannot be written.
void save_widget_png(QWidget& widget, const QString& path);

// Returns the process exit code: 0 on success; otherwise prints why to stderr.
int take_screenshot(MainWindow& window, const ScreenshotRequest& request);

}  // namespace sb::viewer
