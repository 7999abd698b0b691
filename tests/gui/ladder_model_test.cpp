#include <gtest/gtest.h>
#include <QAbstractItemModelTester>
#include <QFile>

#include "fixture.h"
#include "gui/model/ladder_model.h"
#include "gui/model/numeric_sort_proxy.h"
#include "gui/model/roles.h"
#include "gui/model/table_export.h"
#include "tests/common/golden.h"

namespace sb::viewer {
namespace {

const nlohmann::json& cpu_run() {
  static const nlohmann::json doc = test::fixture_json("two_backends.json");
  return doc["runs"][0];
}

TEST(LadderModel, PassesTheModelTesterThroughResets) {
  LadderModel model;
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
  model.set_run(test::run_record(cpu_run()));
  EXPECT_EQ(model.rowCount(), 5);
  EXPECT_EQ(model.columnCount(), LadderModel::ColumnCount);
  model.set_run(test::run_record(test::fixture_json("two_backends.json")["runs"][1]));
  EXPECT_EQ(model.rowCount(), 2);
  model.set_run(test::run_record(nlohmann::json::object()));
  EXPECT_EQ(model.rowCount(), 0);
}

// The golden dump pins the text every column shows; regenerate with STAGEBENCH_UPDATE_GOLDEN=1
// after a deliberate change and review the diff.
TEST(LadderModel, MatchesTheGoldenDump) {
  LadderModel model;
  model.set_run(test::run_record(cpu_run()));
  sb::testing::expect_golden_file(test::fixture_path("ladder_cpu.golden.md"),
                                  table_markdown(model).toStdString());
}

TEST(LadderModel, UnknownValuesShowAsDashAndBarsAreFractionsOfTheLargest) {
  LadderModel model;
  model.set_run(test::run_record(cpu_run()));
  EXPECT_EQ(model.index(1, LadderModel::Time).data().toString(), "-");
  EXPECT_FALSE(model.index(1, LadderModel::Time).data(SortRole).isValid());
  EXPECT_DOUBLE_EQ(model.index(0, LadderModel::Time).data(BarRole).toDouble(), 1.0);
  EXPECT_DOUBLE_EQ(model.index(3, LadderModel::Time).data(BarRole).toDouble(), 0.095);
  EXPECT_FALSE(model.index(0, LadderModel::Stage).data(BarRole).isValid());
  EXPECT_EQ(model.index(2, LadderModel::Status).data(Qt::ToolTipRole).toString(),
            "noise 2.3% > 1.0%");
}

std::vector<std::string> stage_order(const QAbstractItemModel& m) {
  std::vector<std::string> ids;
  for (int r = 0; r < m.rowCount(); ++r)
    ids.push_back(m.index(r, LadderModel::Stage).data().toString().toStdString());
  return ids;
}

TEST(NumericSortProxy, SortsNumbersAsNumbersAndUnknownFirst) {
  LadderModel model;
  model.set_run(test::run_record(cpu_run()));
  NumericSortProxy proxy;
  QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::Fatal);
  proxy.setSourceModel(&model);
  // Medians 100, -, 20, 9.5, 8: as text "100.0" would sort before "20.00" and "9.50".
  proxy.sort(LadderModel::Time, Qt::AscendingOrder);
  EXPECT_EQ(stage_order(proxy), (std::vector<std::string>{"tf32", "bf16", "fused-gelu",
                                                          "fused-attention", "original"}));
  proxy.sort(LadderModel::Speedup, Qt::DescendingOrder);
  EXPECT_EQ(stage_order(proxy).front(), "bf16");
  proxy.sort(LadderModel::Stage, Qt::AscendingOrder);
  EXPECT_EQ(stage_order(proxy).front(), "bf16");
}

TEST(NumericSortProxy, FiltersOnAnyColumn) {
  LadderModel model;
  model.set_run(test::run_record(cpu_run()));
  NumericSortProxy proxy;
  proxy.setSourceModel(&model);
  proxy.setFilterFixedString("INVALID");
  EXPECT_EQ(stage_order(proxy), (std::vector<std::string>{"fused-attention", "bf16"}));
  proxy.setFilterFixedString("skipped");
  EXPECT_EQ(stage_order(proxy), (std::vector<std::string>{"tf32"}));
}

}  // namespace
}  // namespace sb::viewer
