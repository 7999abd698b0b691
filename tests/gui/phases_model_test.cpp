// The training step's phases of a run (PhasesModel): a row per training stage with phases, none
// for inference, and a golden dump of the text every column shows.
#include <gtest/gtest.h>
#include <QAbstractItemModelTester>

#include "fixture.h"
#include "gui/model/ladder_model.h"
#include "gui/model/phases_model.h"
#include "gui/model/roles.h"
#include "gui/model/table_export.h"
#include "tests/common/golden.h"

namespace sb::viewer {
namespace {

// deepfm in "mode": "train": baseline, vectorized-fm, preallocated-loss (invalid: its loss
// curve), amp (2 skipped steps), autotune (skipped, no summaries), preprocess (a data phase).
const nlohmann::json& train_run() {
  static const nlohmann::json doc = test::fixture_json("train.json");
  return doc["runs"][0];
}

TEST(PhasesModel, PassesTheModelTesterThroughResets) {
  PhasesModel model;
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
  model.set_run(test::run_record(train_run()));
  EXPECT_EQ(model.rowCount(), 4);
  EXPECT_TRUE(model.has_phases());
  EXPECT_EQ(model.columnCount(), PhasesModel::ColumnCount);
  model.set_run(
      test::run_record(test::fixture_json("two_backends.json")["runs"][0]));  // inference: no rows
  EXPECT_EQ(model.rowCount(), 0);
  EXPECT_FALSE(model.has_phases());
  model.set_run(test::run_record(train_run()));
  EXPECT_EQ(model.rowCount(), 4);
  model.set_run(test::run_record(nlohmann::json::object()));
  EXPECT_EQ(model.rowCount(), 0);
}

TEST(PhasesModel, MatchesTheGoldenDump) {
  PhasesModel model;
  model.set_run(test::run_record(train_run()));
  sb::testing::expect_golden_file(test::fixture_path("phases_train.golden.md"),
                                  table_markdown(model).toStdString());
}

TEST(PhasesModel, ValuesAreTheMillisecondsAndSharesOfTheStep) {
  PhasesModel model;
  model.set_run(test::run_record(train_run()));
  // Only the training stages with phases, keeping their ladder index.
  EXPECT_EQ(model.index(3, PhasesModel::Stage).data().toString(), "amp");
  EXPECT_EQ(model.index(3, PhasesModel::Index).data().toString(), "3");
  EXPECT_DOUBLE_EQ(model.index(3, PhasesModel::Forward).data(SortRole).toDouble(), 1.6);
  EXPECT_EQ(model.index(3, PhasesModel::Forward).data().toString(), "1.60 (26%)");
  EXPECT_NEAR(model.index(0, PhasesModel::Step).data(SortRole).toDouble(), 11.95, 1e-12);
  EXPECT_DOUBLE_EQ(model.index(0, PhasesModel::Step).data(BarRole).toDouble(), 1.0);
  EXPECT_DOUBLE_EQ(model.index(3, PhasesModel::Activations).data(SortRole).toDouble(), 4194304);
  EXPECT_TRUE(model.index(0, PhasesModel::Data)
                  .data(Qt::ToolTipRole)
                  .toString()
                  .startsWith("data: 1.0% of the step"));
  EXPECT_FALSE(model.index(0, PhasesModel::Forward).data(BarRole).isValid());
}

TEST(LadderModel, TrainingStagesShowTheLossCheck) {
  LadderModel model;
  model.set_run(test::run_record(train_run()));
  EXPECT_EQ(model.index(1, LadderModel::Correctness).data().toString(),
            QString::fromUtf8("pass loss Δ 3.2e-6, cos 0.999999"));
  EXPECT_EQ(model.index(2, LadderModel::Correctness).data().toString(),
            QString::fromUtf8("FAIL loss Δ 0.05, cos 0.999100"));
  EXPECT_EQ(model.index(5, LadderModel::Correctness).data().toString(), "pass 1.00000000");
}

}  // namespace
}  // namespace sb::viewer
