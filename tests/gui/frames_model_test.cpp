// Seed 004's training and inference table of a run (FramesModel): a row per stage that timed
// its inference, none for other runs, the numbers behind the text, the claimed throughput the
// chart draws, and a golden dump of what every column shows.
#include <cmath>

#include <gtest/gtest.h>
#include <QAbstractItemModelTester>

#include "fixture.h"
#include "gui/model/frames_model.h"
#include "gui/model/roles.h"
#include "gui/model/table_export.h"
#include "tests/common/golden.h"

namespace sb::viewer {
namespace {

// DynUNet tiny on the CPU: baseline, bf16-mixed (skipped), channels-last, compile,
// fused-optimizer, gradient-checkpointing (no speedup claim), graph-replay (skipped),
// dataloader; each stage's summaries carry its inference pass.
const nlohmann::json& dynunet_run() {
  static const nlohmann::json doc = test::fixture_json("dynunet_train.json");
  return doc["runs"][0];
}

TEST(FramesModel, PassesTheModelTesterThroughResets) {
  FramesModel model;
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
  model.set_run(test::run_record(dynunet_run()));
  EXPECT_EQ(model.rowCount(), 6);  // the two skipped stages have no row
  EXPECT_TRUE(model.has_rows());
  model.set_run(
      test::run_record(test::fixture_json("train.json")["runs"][0]));  // DeepFM: no inference pass
  EXPECT_FALSE(model.has_rows());
  model.set_run(test::run_record(nlohmann::json::object()));
  EXPECT_EQ(model.rowCount(), 0);
  model.set_run(test::run_record(dynunet_run()));
  EXPECT_EQ(model.rowCount(), 6);
}

TEST(FramesModel, MatchesTheGoldenDump) {
  FramesModel model;
  model.set_run(test::run_record(dynunet_run()));
  sb::testing::expect_golden_file(test::fixture_path("frames_dynunet.golden.md"),
                                  table_markdown(model).toStdString());
}

TEST(FramesModel, ValuesAreThroughputsAndChangesAsFractions) {
  FramesModel model;
  model.set_run(test::run_record(dynunet_run()));
  const auto& stages = dynunet_run()["stages"];
  const double base_train = stages[0]["throughput"]["items_per_s"].get<double>();
  const double base_infer = stages[0]["summaries"]["inference"]["fps"].get<double>();
  EXPECT_EQ(model.item_name(), "volumes");
  EXPECT_EQ(model.index(1, FramesModel::Stage).data().toString(), "channels-last");
  EXPECT_EQ(model.index(1, FramesModel::Index).data(SortRole).toInt(), 2);
  EXPECT_DOUBLE_EQ(model.index(0, FramesModel::Training).data(SortRole).toDouble(), base_train);
  EXPECT_DOUBLE_EQ(model.index(0, FramesModel::Inference).data(SortRole).toDouble(), base_infer);
  // channels-last's claim folds in the skipped bf16 stage's: 15.1 / 8.2 inference FPS.
  EXPECT_NEAR(model.index(1, FramesModel::InferenceClaimed).data(SortRole).toDouble(),
              15.1 / 8.2 - 1, 1e-9);
  EXPECT_TRUE(model.index(1, FramesModel::InferenceClaimed).data().toString().startsWith("+84"));
  // The chart's claimed bar: the baseline's measured throughput times the cumulative claim.
  EXPECT_NEAR(model.claimed_fps(1, FramesModel::Inference), base_infer * 15.1 / 8.2, 1e-9);
  EXPECT_TRUE(std::isnan(model.claimed_fps(4, FramesModel::Training)));  // checkpointing
  EXPECT_DOUBLE_EQ(model.index(0, FramesModel::Training).data(BarRole).toDouble() <= 1.0, 1.0);
  // The baseline row has no change of its own: unknown sorts first.
  EXPECT_FALSE(model.index(0, FramesModel::TrainingClaimed).data(SortRole).isValid());
}

}  // namespace
}  // namespace sb::viewer
