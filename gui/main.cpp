// stagebench-viewer [FILE...]: browse stagebench/1 results (docs/viewer.md).
#include <cstdio>
#include <cstring>

#include <QApplication>
#include <QCommandLineParser>
#include <QFont>

#include "gui/widgets/main_window.h"
#include "gui/widgets/screenshot.h"

namespace {

// Screenshots and --help/--version need no display.
bool runs_headless(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (std::strcmp(a, "--screenshot") == 0 || std::strncmp(a, "--screenshot=", 13) == 0 ||
        std::strcmp(a, "-h") == 0 || std::strcmp(a, "--help") == 0 ||
        std::strcmp(a, "--help-all") == 0 || std::strcmp(a, "-v") == 0 ||
        std::strcmp(a, "--version") == 0)
      return true;
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  // Render offscreen unless the caller chose a platform.
  if (runs_headless(argc, argv) && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
    qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("stagebench"));
  QApplication::setApplicationName(QStringLiteral("stagebench-viewer"));
  QApplication::setApplicationVersion(QStringLiteral("0.1.0"));

  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral("Browse stagebench/1 result files."));
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addPositionalArgument(QStringLiteral("FILE"), QStringLiteral("result JSON files"),
                               QStringLiteral("[FILE...]"));
  const QCommandLineOption screenshot(QStringLiteral("screenshot"),
                                      QStringLiteral("render a view to FILE.png and exit"),
                                      QStringLiteral("FILE.png"));
  const QCommandLineOption view(
      QStringLiteral("view"),
      QStringLiteral("view for --screenshot: ladder, charts[:time|memory|batch|phases|frames], "
                     "drilldown or compare"),
      QStringLiteral("VIEW"), QStringLiteral("ladder"));
  const QCommandLineOption compare(QStringLiteral("compare"),
                                   QStringLiteral("compare the first FILE's first run with this "
                                                  "file's first run"),
                                   QStringLiteral("OTHER.json"));
  const QCommandLineOption run(QStringLiteral("run"),
                               QStringLiteral("row of the run list to show (default 0)"),
                               QStringLiteral("ROW"), QStringLiteral("0"));
  parser.addOptions({screenshot, view, compare, run});
  parser.process(app);

  sb::viewer::MainWindow window;
  if (parser.isSet(screenshot)) {
    sb::viewer::ScreenshotRequest request;
    request.files = parser.positionalArguments();
    request.output = parser.value(screenshot);
    request.view = parser.value(view);
    request.compare_with = parser.value(compare);
    const std::optional<int> row = sb::viewer::parse_run_row(parser.value(run));
    if (!row) {
      std::fprintf(stderr, "--run '%s' is not a row number (0 is the first run)\n",
                   qPrintable(parser.value(run)));
      return 2;
    }
    request.run_row = *row;
    // Screenshots go into documentation: a compact font shows more of the table.
    QFont font = QApplication::font();
    font.setPointSizeF(9);
    QApplication::setFont(font);
    QApplication::setFont(font, "QHeaderView");
    return sb::viewer::take_screenshot(window, request);
  }
  QStringList files = parser.positionalArguments();
  if (parser.isSet(compare)) files << parser.value(compare);
  window.resize(1280, 800);
  window.show();
  window.open_files(files);
  return app.exec();
}
