#include <gtest/gtest.h>
#include <QAbstractItemModelTester>
#include <QBrush>

#include "fixture.h"
#include "gui/model/compare_model.h"
#include "gui/model/counters_model.h"
#include "gui/model/kernels_model.h"
#include "gui/model/roles.h"

namespace sb::viewer {
namespace {

using Fatal = QAbstractItemModelTester::FailureReportingMode;

const nlohmann::json& doc() {
  static const nlohmann::json d = test::fixture_json("two_backends.json");
  return d;
}

TEST(CountersModel, ListsCountersWithTierAndError) {
  CountersModel model;
  QAbstractItemModelTester tester(&model, Fatal::Fatal);
  model.set_stage(test::stage_record(doc()["runs"][0]["stages"][0]));
  ASSERT_EQ(model.rowCount(), 2);
  EXPECT_EQ(model.index(0, CountersModel::Name).data().toString(), "os::cpu_time_ns");
  EXPECT_EQ(model.index(0, CountersModel::Tier).data().toString(), "os");
  EXPECT_DOUBLE_EQ(model.index(0, CountersModel::Value).data(SortRole).toDouble(), 2.0e7);
  EXPECT_EQ(model.index(1, CountersModel::Tier).data().toString(), "error");
  EXPECT_EQ(model.index(1, CountersModel::Value).data().toString(), "-");
  EXPECT_EQ(model.index(1, CountersModel::Note).data().toString(), "event did not open");
  model.set_stage(test::stage_record(doc()["runs"][0]["stages"][1]));  // skipped: no counters
  EXPECT_EQ(model.rowCount(), 0);
}

TEST(KernelsModel, SharesAreOfTheStagesSummedSamples) {
  KernelsModel model;
  QAbstractItemModelTester tester(&model, Fatal::Fatal);
  const auto& stage = doc()["runs"][1]["stages"][0];  // samples 49, 50, 51.5, 50.5, 49.5
  model.set_stage(test::stage_record(stage));
  ASSERT_EQ(model.rowCount(), 2);
  EXPECT_EQ(model.index(0, KernelsModel::Name).data().toString(), "gemm");  // largest first
  EXPECT_NEAR(model.stage_wall_ms(), 250.5, 1e-9);
  EXPECT_NEAR(model.index(0, KernelsModel::Share).data(SortRole).toDouble(), 150.0 / 250.5, 1e-9);
  EXPECT_NEAR(model.index(0, KernelsModel::MeanUs).data(SortRole).toDouble(), 3000.0, 1e-9);
  EXPECT_EQ(model.index(1, KernelsModel::TotalMs).data().toString(), "20.00");
  model.set_stage(test::stage_record(doc()["runs"][0]["stages"][0]));  // CPU stage: opencl is null
  EXPECT_EQ(model.rowCount(), 0);
}

TEST(CompareModel, JoinsStagesByIdAndColoursByVerdict) {
  CompareModel model;
  QAbstractItemModelTester tester(&model, Fatal::Fatal);
  const RunRecord cpu = test::run_record(doc()["runs"][0]);
  const RunRecord ocl = test::run_record(doc()["runs"][1]);
  model.set_runs(cpu, ocl);
  // The base's 5 stages; the candidate has no stage of its own.
  ASSERT_EQ(model.rowCount(), 5);
  EXPECT_EQ(model.index(0, CompareModel::Stage).data().toString(), "original");
  EXPECT_EQ(model.index(0, CompareModel::DeltaMs).data().toString(), "-50.00");
  EXPECT_DOUBLE_EQ(model.index(0, CompareModel::Ratio).data(SortRole).toDouble(), 0.5);
  EXPECT_EQ(model.index(1, CompareModel::CandidateStatus).data().toString(), "-");
  EXPECT_EQ(model.index(2, CompareModel::CandidateMs).data().toString(), "25.00");
  // Five samples each, 2x apart: the time verdict is decided, and the candidate is faster.
  const QString verdict = model.index(0, CompareModel::Verdict).data().toString();
  EXPECT_EQ(verdict, "faster") << model.problem().toStdString();
  const auto brush = model.index(0, CompareModel::Ratio).data(Qt::BackgroundRole).value<QBrush>();
  EXPECT_EQ(brush.color(), CompareModel::verdict_colour("faster"));
  EXPECT_FALSE(model.index(0, CompareModel::Stage).data(Qt::BackgroundRole).isValid());

  model.set_runs(ocl, cpu);  // reversed: slower, and stages only cpu has appended
  EXPECT_EQ(model.rowCount(), 5);
  EXPECT_EQ(model.index(0, CompareModel::Verdict).data().toString().left(6), "slower");
  EXPECT_EQ(model.index(2, CompareModel::Stage).data().toString(), "tf32");
}

}  // namespace
}  // namespace sb::viewer
