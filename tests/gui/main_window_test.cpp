#include <gtest/gtest.h>
#include <sys/stat.h>
#include <QApplication>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QTemporaryDir>
#include <QtCharts/QBarSeries>
#include <QtCharts/QBarSet>
#include <QtCharts/QChart>
#include <QtCharts/QHorizontalBarSeries>
#include <QtCharts/QHorizontalStackedBarSeries>

#include "fixture.h"
#include "gui/model/compare_model.h"
#include "gui/model/kernels_model.h"
#include "gui/model/ladder_model.h"
#include "gui/widgets/chart_export.h"
#include "gui/widgets/charts_view.h"
#include "gui/widgets/compare_view.h"
#include "gui/widgets/copyable_table_view.h"
#include "gui/widgets/drilldown_view.h"
#include "gui/widgets/ladder_view.h"
#include "gui/widgets/main_window.h"
#include "gui/widgets/run_browser.h"
#include "gui/widgets/screenshot.h"
#include "widgets_app.h"

namespace sb::viewer {
namespace {

QString fixture() {
  return QString::fromStdString(test::fixture_path("two_backends.json"));
}

TEST(MainWindow, OpensAFixtureAndSwitchesViews) {
  test::widgets_app();
  MainWindow window;
  window.set_interactive(false);
  window.resize(1000, 700);
  window.show();
  window.open_files({fixture(), "/nonexistent/missing.json"});
  ASSERT_TRUE(window.store()->wait_idle(20000));
  ASSERT_EQ(window.problems().size(), 1);
  EXPECT_TRUE(window.problems()[0].startsWith("/nonexistent/missing.json"));

  ASSERT_TRUE(window.run_browser()->select_row(1));  // the OpenCL run
  QApplication::processEvents();
  EXPECT_EQ(window.ladder()->model()->rowCount(), 2);
  EXPECT_EQ(window.drilldown()->current_stage(), 0);  // most kernel time
  EXPECT_EQ(window.drilldown()->kernels()->rowCount(), 2);
  for (const char* view : {"ladder", "charts", "drilldown", "compare"}) {
    EXPECT_TRUE(window.show_view(view)) << view;
    QApplication::processEvents();
  }
  EXPECT_FALSE(window.show_view("nonsense"));
  EXPECT_EQ(window.compare()->model()->rowCount(), 5);  // runs 0 and 1 by default
  const auto charts = window.charts()->chart_views();
  ASSERT_EQ(charts.size(), 3u);
  EXPECT_EQ(charts[0]->chart()->series().size(), 3);  // boxes, speedup line, its points
  EXPECT_TRUE(window.ladder()->table()->selection_markdown().startsWith("| # | stage |"));
}

TEST(ChartsView, ShowsThePhasesChartForATrainingRunOnly) {
  test::widgets_app();
  ChartsView charts;
  charts.set_run(test::run_record(test::fixture_json("train.json")["runs"][0]), {});
  const auto views = charts.chart_views();
  ASSERT_EQ(views.size(), 4u);
  EXPECT_EQ(views[3], charts.phases_view());
  EXPECT_TRUE(charts.shows(charts.phases_view()));
  ASSERT_EQ(views[3]->chart()->series().size(), 1);
  const auto* bars =
      qobject_cast<QtCharts::QHorizontalStackedBarSeries*>(views[3]->chart()->series()[0]);
  ASSERT_NE(bars, nullptr);
  ASSERT_EQ(bars->count(), 5);                        // a segment per phase
  EXPECT_EQ(bars->barSets()[0]->count(), 4);          // a bar per training stage
  EXPECT_EQ(bars->barSets()[2]->label(), "forward");  // the phases in order
  // The stages top to bottom: Qt draws the first value at the bottom, so amp (the ladder's
  // fourth) is the first value.
  EXPECT_DOUBLE_EQ(bars->barSets()[2]->at(0), 1.6);  // amp's forward ms
  charts.set_run(test::run_record(test::fixture_json("two_backends.json")["runs"][0]), {});
  EXPECT_EQ(charts.chart_views().size(), 3u);
  EXPECT_FALSE(charts.shows(charts.phases_view()));
  EXPECT_FALSE(charts.shows(charts.frames_view()));  // DeepFM and Enformer time no inference
}

TEST(ChartsView, ShowsSeed004sTableAndChartForARunThatTimedItsInference) {
  test::widgets_app();
  ChartsView charts;
  charts.set_run(test::run_record(test::fixture_json("dynunet_train.json")["runs"][0]), {});
  const auto views = charts.chart_views();
  ASSERT_EQ(views.size(), 5u);  // time, memory, batch, phases, frames
  EXPECT_EQ(views[4], charts.frames_view());
  EXPECT_TRUE(charts.shows(charts.frames_view()));
  EXPECT_TRUE(charts.shows(charts.frames_table()));
  EXPECT_EQ(charts.frames_table()->model()->rowCount(), 6);
  const auto* bars =
      qobject_cast<QtCharts::QHorizontalBarSeries*>(views[4]->chart()->series().at(0));
  ASSERT_NE(bars, nullptr);
  ASSERT_EQ(bars->count(), 4);  // training, its claim, inference, its claim
  EXPECT_EQ(bars->barSets()[3]->label(), "inference claimed");
  EXPECT_EQ(bars->barSets()[0]->count(), 6);
  EXPECT_TRUE(charts.frames_table()->selection_markdown().startsWith("| # | stage | training"));
  charts.set_run(test::run_record(test::fixture_json("train.json")["runs"][0]), {});
  EXPECT_FALSE(charts.shows(charts.frames_view()));
  EXPECT_FALSE(charts.shows(charts.frames_table()));
}

TEST(ChartExport, WritesPngAndSvgByTheSuffix) {
  test::widgets_app();
  ChartsView charts;
  const auto doc = test::fixture_json("two_backends.json");
  charts.set_run(test::run_record(doc["runs"][0]), {});
  charts.resize(800, 600);
  QTemporaryDir dir;
  QtCharts::QChartView& view = *charts.chart_views()[0];
  export_chart(view, dir.filePath("time.png"));
  EXPECT_FALSE(QImage(dir.filePath("time.png")).isNull());
  if (svg_export_available()) {
    export_chart(view, dir.filePath("time.svg"));
    QFile svg(dir.filePath("time.svg"));
    ASSERT_TRUE(svg.open(QIODevice::ReadOnly));
    EXPECT_TRUE(svg.readAll().contains("<svg"));
  }
  EXPECT_THROW(export_chart(view, "/nonexistent/dir/x.png"), std::runtime_error);
}

TEST(Screenshot, RunRowIsAWholeNumberAsGiven) {
  EXPECT_EQ(parse_run_row("0"), 0);
  EXPECT_EQ(parse_run_row("3"), 3);
  EXPECT_EQ(parse_run_row("-1"), -1);  // then "no run at row -1", exit 2
  for (const char* bad : {"abc", "", "0.5", "99999999999999999999", "1x"})
    EXPECT_FALSE(parse_run_row(bad).has_value()) << bad;
}

TEST(MainWindow, ScreenshotWritesANonEmptyPng) {
  test::widgets_app();
  QTemporaryDir dir;
  for (const char* view : {"ladder", "compare"}) {
    MainWindow window;
    ScreenshotRequest request;
    request.files = QStringList{fixture()};
    request.output = dir.filePath(QString(view) + ".png");
    request.view = view;
    request.size = QSize(900, 600);
    if (QString(view) == "compare") request.compare_with = fixture();
    ASSERT_EQ(take_screenshot(window, request), 0) << view;
    const QImage image(request.output);
    ASSERT_FALSE(image.isNull()) << view;
    EXPECT_EQ(image.size(), QSize(900, 600));
    // Not a blank image: more than one colour.
    const QRgb first = image.pixel(0, 0);
    bool varied = false;
    for (int y = 0; y < image.height() && !varied; y += 7)
      for (int x = 0; x < image.width() && !varied; x += 7) varied = image.pixel(x, y) != first;
    EXPECT_TRUE(varied) << view;
  }
}

// Issue 29: a failed encode wrote a 0-byte file over an older screenshot and exited 0.
TEST(Screenshot, AnImageThatCannotBeEncodedLeavesTheOlderFile) {
  test::widgets_app();
  QTemporaryDir dir;
  const QString path = dir.filePath("old.png");
  QImage old(16, 16, QImage::Format_RGB32);
  old.fill(Qt::red);
  save_png(old, path);
  const qint64 size = QFileInfo(path).size();
  ASSERT_GT(size, 0);
  // A null image: what grab() gives for a window it cannot render, and what the encoder refuses.
  EXPECT_THROW(save_png(QImage(), path), std::runtime_error);
  EXPECT_EQ(QFileInfo(path).size(), size);
  EXPECT_FALSE(QImage(path).isNull());
}

// Issue 29: a 1 MB stage id reached the compare view's problem label unelided and crashed the
// viewer in its paint event.
TEST(CompareView, AHugeStageIdIsElidedInTheProblemLine) {
  test::widgets_app();
  nlohmann::json doc = test::fixture_json("two_backends.json");
  doc["runs"][0]["stages"][1]["id"] = std::string(1000000, 'x');
  QTemporaryDir dir;
  const QString path = dir.filePath("huge-id.json");
  {
    QFile f(path);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write(QByteArray::fromStdString(doc.dump()));
  }
  MainWindow window;
  ScreenshotRequest request;
  request.files = QStringList{path};
  request.compare_with = fixture();
  request.output = dir.filePath("compare.png");
  request.view = "compare";
  request.size = QSize(900, 600);
  ASSERT_EQ(take_screenshot(window, request), 0);
  EXPECT_LT(window.compare()->model()->problem().size(), 2000);
}

}  // namespace
}  // namespace sb::viewer

namespace sb::viewer {
namespace {

// The drill-down draws the timeline written beside the result file (x.json, x.trace.json) for
// the run it shows, and says how to get one where there is none.
TEST(Drilldown, DrawsTheTimelineBesideTheResultFile) {
  test::widgets_app();
  QTemporaryDir dir;
  const QString result = dir.filePath(QStringLiteral("x.json"));
  ASSERT_TRUE(QFile::copy(fixture(), result));
  const nlohmann::json trace = {{"traceEvents",
                                 {{{"ph", "M"},
                                   {"pid", 1},
                                   {"tid", 0},
                                   {"name", "process_name"},
                                   {"args", {{"name", "enformer/tiny/cpu"}}}},
                                  {{"ph", "X"},
                                   {"pid", 1},
                                   {"tid", 1},
                                   {"name", "original"},
                                   {"cat", "sample"},
                                   {"ts", 0},
                                   {"dur", 100},
                                   {"args", {{"stage", "original"}}}},
                                  {{"ph", "X"},
                                   {"pid", 1},
                                   {"tid", 2},
                                   {"name", "forward"},
                                   {"cat", "host"},
                                   {"ts", 5},
                                   {"dur", 90},
                                   {"args", {{"stage", "original"}}}}}}};
  {
    QFile f(dir.filePath(QStringLiteral("x.trace.json")));
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write(QByteArray::fromStdString(trace.dump()));
  }
  MainWindow window;
  window.set_interactive(false);
  window.open_files({result});
  ASSERT_TRUE(window.store()->wait_idle(20000));
  ASSERT_TRUE(window.run_browser()->select_row(0));  // enformer/tiny/cpu
  QApplication::processEvents();
  window.drilldown()->select_stage(0);
  ASSERT_TRUE(window.drilldown()->timeline()->stage().has_value());
  EXPECT_EQ(window.drilldown()->timeline()->stage()->tracks.size(), 2u);
  window.drilldown()->select_stage(1);  // tf32: not captured
  EXPECT_FALSE(window.drilldown()->timeline()->stage().has_value());
  ASSERT_TRUE(window.run_browser()->select_row(1));  // enformer/tiny/opencl: not in the file
  QApplication::processEvents();
  EXPECT_FALSE(window.drilldown()->timeline()->stage().has_value());

  MainWindow plain;  // the fixture itself has no timeline beside it
  plain.set_interactive(false);
  plain.open_files({fixture()});
  ASSERT_TRUE(plain.store()->wait_idle(20000));
  ASSERT_TRUE(plain.run_browser()->select_row(0));
  QApplication::processEvents();
  EXPECT_FALSE(plain.drilldown()->timeline()->stage().has_value());
}

// Hostile timeline files beside a result: each named in the drill-down, none crashes or blocks
// the viewer (a FIFO would wait for a writer forever, deep nesting would overflow the parser's
// stack).
TEST(Drilldown, HostileTimelineFilesAreNamedNotFatal) {
  test::widgets_app();
  QTemporaryDir dir;
  const QString result = dir.filePath(QStringLiteral("x.json"));
  ASSERT_TRUE(QFile::copy(fixture(), result));
  const QString trace = dir.filePath(QStringLiteral("x.trace.json"));
  struct Case {
    const char* what;
    std::string bytes;  // empty: a FIFO
    const char* needle;
  };
  for (const Case& c :
       {Case{"truncated", "{\"traceEvents\": [", "x.trace.json"},
        Case{"not a trace", "{\"traceEvents\": 5}", "no \"traceEvents\" array"},
        Case{"deep", std::string(100000, '[') + std::string(100000, ']'), "nested deeper than"},
        Case{"fifo", "", "is a named pipe (FIFO)"}}) {
    QFile::remove(trace);
    if (c.bytes.empty()) {
      ASSERT_EQ(::mkfifo(trace.toLocal8Bit().constData(), 0600), 0);
    } else {
      QFile f(trace);
      ASSERT_TRUE(f.open(QIODevice::WriteOnly));
      f.write(QByteArray::fromStdString(c.bytes));
    }
    MainWindow window;
    window.set_interactive(false);
    window.open_files({result});
    ASSERT_TRUE(window.store()->wait_idle(20000)) << c.what;
    ASSERT_TRUE(window.run_browser()->select_row(0)) << c.what;
    QApplication::processEvents();
    EXPECT_FALSE(window.drilldown()->timeline()->stage().has_value()) << c.what;
    EXPECT_TRUE(window.drilldown()->timeline()->why_none().contains(QString::fromUtf8(c.needle)))
        << c.what << ": " << window.drilldown()->timeline()->why_none().toStdString();
  }
}

}  // namespace
}  // namespace sb::viewer
