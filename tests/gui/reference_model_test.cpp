// "PyTorch on this machine" in the viewer (ReferenceModel): the rows the reports show under the
// ladder, from the reports' fixture after `stagebench peer` (tests/reports/fixtures/
// reference.json), under the model tester, with numbers behind the text and a golden dump.
#include <cmath>
#include <fstream>

#include <gtest/gtest.h>
#include <QAbstractItemModelTester>

#include "fixture.h"
#include "gui/model/reference_model.h"
#include "gui/model/roles.h"
#include "gui/model/table_export.h"
#include "tests/common/golden.h"

namespace sb::viewer {
namespace {

const nlohmann::json& peer_run() {
  static const nlohmann::json doc = [] {
    std::ifstream in(test::fixture_path("../../reports/fixtures/reference.json"));
    return nlohmann::json::parse(in);
  }();
  return doc["runs"][1];  // opencl
}

TEST(ReferenceModel, PassesTheModelTesterThroughResets) {
  ReferenceModel model;
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
  model.set_run(test::run_record(peer_run()));
  EXPECT_EQ(model.rowCount(), 4);
  EXPECT_TRUE(model.has_rows());
  model.set_run(
      test::run_record(test::fixture_json("two_backends.json")["runs"][0]));  // no peer block
  EXPECT_FALSE(model.has_rows());
  EXPECT_TRUE(model.legend().isEmpty());
  model.set_run(test::run_record(nlohmann::json::object()));
  EXPECT_EQ(model.rowCount(), 0);
}

TEST(ReferenceModel, MatchesTheGoldenDump) {
  ReferenceModel model;
  model.set_run(test::run_record(peer_run()));
  sb::testing::expect_golden_file(test::fixture_path("reference.golden.md"),
                                  table_markdown(model).toStdString());
}

TEST(ReferenceModel, SortsByTheNumbers) {
  ReferenceModel model;
  model.set_run(test::run_record(peer_run()));
  EXPECT_EQ(model.index(0, ReferenceModel::Variant).data().toString(),
            "PyTorch on this machine: fp32-eager");
  EXPECT_DOUBLE_EQ(model.index(0, ReferenceModel::Time).data(SortRole).toDouble(), 42.5);
  EXPECT_DOUBLE_EQ(model.index(0, ReferenceModel::Time).data(BarRole).toDouble(), 1.0);
  const double stage0 = peer_run()["stages"][0]["time"]["median_ms"].get<double>();
  EXPECT_DOUBLE_EQ(model.index(2, ReferenceModel::VsStage0).data(SortRole).toDouble(),
                   stage0 / 18.7);
  EXPECT_FALSE(model.index(3, ReferenceModel::Time).data(SortRole).isValid());  // failed
  EXPECT_TRUE(model.index(3, ReferenceModel::Variant)
                  .data(Qt::ToolTipRole)
                  .toString()
                  .contains("C++ compiler"));
  EXPECT_TRUE(model.legend().contains("PyTorch's own variants"));
}

}  // namespace
}  // namespace sb::viewer
