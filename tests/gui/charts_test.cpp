// The viewer's charts as a reader sees them: a golden dump of every chart (axes, ranges, tick
// labels, series) per fixture, and no text drawn elided at the window size the viewer opens at.
#include <gtest/gtest.h>

#include <QApplication>
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>

#include "fixture.h"
#include "gui/widgets/chart_dump.h"
#include "gui/widgets/charts_view.h"
#include "gui/widgets/main_window.h"
#include "gui/widgets/run_browser.h"
#include "tests/common/golden.h"
#include "widgets_app.h"

namespace sb::viewer {
namespace {

// two_backends.json with a batch search on its first run (the shape `run --batch auto` writes),
// so that the batch chart draws its search, memory and cap.
nlohmann::json with_batch_search() {
  nlohmann::json doc = test::fixture_json("two_backends.json");
  doc["runs"][0]["batch_search"] = {
      {"stage", "original"},
      {"memory_basis", "host_tensor_peak_bytes"},
      {"memory_cap_bytes", 8388608},
      {"cap_source", "--memory-cap"},
      {"largest_fitting", 12},
      {"best_throughput", 4},
      {"first_not_fitting", 13},
      {"limit", "memory cap"},
      {"probes", 6},
      {"curve",
       {{{"batch", 1}, {"outcome", "fits"}, {"items_per_s", 17080}, {"peak_bytes", 1055488}},
        {{"batch", 2}, {"outcome", "fits"}, {"items_per_s", 18440}, {"peak_bytes", 1700000}},
        {{"batch", 4}, {"outcome", "fits"}, {"items_per_s", 18660}, {"peak_bytes", 3000000}},
        {{"batch", 8}, {"outcome", "fits"}, {"items_per_s", 17830}, {"peak_bytes", 5600000}},
        {{"batch", 12}, {"outcome", "fits"}, {"items_per_s", 16130}, {"peak_bytes", 8200000}},
        {{"batch", 13}, {"outcome", "over cap"}, {"items_per_s", 13540}, {"peak_bytes", 8850000}},
        {{"batch", 16}, {"outcome", "predicted over cap"}, {"peak_bytes", 10800000}}}}};
  return doc;
}

QString dump_all(ChartsView& charts) {
  QString out;
  for (const QtCharts::QChartView* view : charts.chart_views())
    out += chart_dump(*view->chart()) + QLatin1Char('\n');
  return out;
}

TEST(Charts, GoldenDumpOfEveryChartPerFixture) {
  test::widgets_app();
  struct Case {
    const char* golden;
    nlohmann::json doc;
  };
  for (const Case& c :
       {Case{"charts_two_backends.golden.txt", with_batch_search()},
        Case{"charts_train.golden.txt", test::fixture_json("train.json")},
        Case{"charts_dynunet.golden.txt", test::fixture_json("dynunet_train.json")}}) {
    ChartsView charts;
    charts.set_run(test::run_record(c.doc["runs"][0]), {});
    sb::testing::expect_golden_file(test::fixture_path(c.golden), dump_all(charts).toStdString());
  }
}

// The window size the viewer opens at (gui/main.cpp) with its default font.
TEST(Charts, NoChartElidesATextAtTheDefaultWindowSize) {
  test::widgets_app();
  QTemporaryDir dir;
  const QString batch = dir.filePath(QStringLiteral("batch_search.json"));
  {
    QFile f(batch);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write(QByteArray::fromStdString(with_batch_search().dump()));
  }
  MainWindow window;
  window.set_interactive(false);
  window.resize(1280, 800);
  window.show();
  window.open_files({batch, QString::fromStdString(test::fixture_path("train.json")),
                     QString::fromStdString(test::fixture_path("dynunet_train.json"))});
  ASSERT_TRUE(window.store()->wait_idle(20000));
  ASSERT_TRUE(window.show_view(QStringLiteral("charts")));
  int checked = 0;
  for (int row = 0; window.run_browser()->select_row(row); ++row) {
    QApplication::processEvents();
    for (const QString& key : ChartsView::chart_keys()) {
      if (!window.charts()->show_chart(key)) continue;
      for (int i = 0; i < 3; ++i) QApplication::processEvents();
      for (const QtCharts::QChartView* view : window.charts()->chart_views()) {
        if (!view->isVisible()) continue;
        ++checked;
        EXPECT_TRUE(elided_texts(*view).isEmpty())
            << "row " << row << ", chart " << key.toStdString() << ": "
            << elided_texts(*view).join(QStringLiteral(" | ")).toStdString();
      }
    }
  }
  EXPECT_GE(checked, 10);  // 4 runs, 3-5 charts each
}

}  // namespace
}  // namespace sb::viewer
