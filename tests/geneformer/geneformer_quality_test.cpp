// Calibration and the task-level accuracy check (perturbation ranking agreement).
#include <gtest/gtest.h>

#include "harness/correctness.h"
#include "models/geneformer/workload.h"
#include "models/registry.h"

namespace sb::geneformer {
namespace {

TEST(GeneformerCalibration, RecordsEveryLinearInputRange) {
  WorkloadOptions o;
  o.size = "tiny";
  GeneformerWorkload w(o, make_backend("cpu", ""));
  const Switches sw = w.switches(kEngineInt8);
  const Calibration c =
      calibrate(w.config(), w.parameters(), w.backend(), sw, CalibrationSet{3, 2, 99});
  ASSERT_EQ(c.ranges.size(), 8u);  // qkv, out, intermediate, output of both layers
  for (const auto& [site, r] : c.ranges) {
    EXPECT_LT(r.first, r.second) << site;
    if (site.ends_with(".output")) {
      EXPECT_GE(r.first, 0.f) << site << ": its input is a ReLU output";
    }
  }
  EXPECT_EQ(c.record["cells"], 6);
  EXPECT_EQ(c.record["seed"], 99);
  // More calibration data can only widen a min-max range.
  const Calibration more =
      calibrate(w.config(), w.parameters(), w.backend(), sw, CalibrationSet{6, 2, 99});
  for (const auto& [site, r] : c.ranges) {
    EXPECT_LE(more.ranges.at(site).first, r.first);
    EXPECT_GE(more.ranges.at(site).second, r.second);
  }
  // A model without ranges cannot be calibrated int8.
  EXPECT_THROW(Model(w.config(), w.parameters(), w.backend(), sw), std::invalid_argument);
}

TEST(GeneformerCalibration, ANarrowRangeClipsAndHurts) {
  WorkloadOptions o;
  o.size = "tiny";
  GeneformerWorkload w(o, make_backend("cpu", ""));
  Backend& be = w.backend();
  if (const std::string why = be.unsupported_reason(Precision::int8); !why.empty())
    GTEST_SKIP() << why;
  const DeviceCells cells = upload(be, w.cells());
  const Switches sw = w.switches(kEngineInt8);
  const Calibration c = calibrate(w.config(), w.parameters(), be, sw, CalibrationSet{2, 2, 5});
  Model eager(w.config(), w.parameters(), be, Switches{});
  const auto want = be.download(eager.forward(cells).cell_embedding);
  Model good(w.config(), w.parameters(), be, sw, &c.ranges);
  const auto r = compare(be.download(good.forward(cells).cell_embedding), want, {0.99, "int8"});
  EXPECT_TRUE(r.pass) << r.cosine;
  InputRanges narrow = c.ranges;
  for (auto& [site, range] : narrow) range = {range.first * 0.02f, range.second * 0.02f};
  Model clipped(w.config(), w.parameters(), be, sw, &narrow);
  const auto bad =
      compare(be.download(clipped.forward(cells).cell_embedding), want, {0.99, "int8"});
  EXPECT_LT(bad.cosine, r.cosine) << "clipping to 2% of the range changed nothing";
}

TEST(GeneformerPerturbation, RankAgreement) {
  EXPECT_DOUBLE_EQ(spearman({1, 2, 3, 4}, {10, 20, 30, 40}), 1.0);
  EXPECT_DOUBLE_EQ(spearman({1, 2, 3, 4}, {4, 3, 2, 1}), -1.0);
  EXPECT_NEAR(spearman({1, 2, 2, 3}, {1, 2, 3, 4}), 0.9487, 1e-4);  // ties averaged
  EXPECT_DOUBLE_EQ(top_k_overlap({9, 1, 8, 2}, {7, 0, 6, 1}, 2), 1.0);
  EXPECT_DOUBLE_EQ(top_k_overlap({9, 1, 8, 2}, {7, 0, 1, 6}, 2), 0.5);
  EXPECT_DOUBLE_EQ(top_k_overlap({9, 1, 8, 2}, {0, 7, 1, 6}, 2), 0.0);
  EXPECT_THROW(spearman({1}, {1}), std::invalid_argument);
}

TEST(GeneformerPerturbation, DeletionsMoveTheEmbedding) {
  WorkloadOptions o;
  o.size = "tiny";
  GeneformerWorkload w(o, make_backend("cpu", ""));
  const PerturbationEffects e =
      perturbation_effects(w.model(kEager), w.backend(), w.cells(), 0, 8, 3);
  ASSERT_EQ(e.shifts.size(), 8u);
  double total = 0;
  for (double s : e.shifts) {
    EXPECT_GE(s, -1e-6);
    total += s;
  }
  EXPECT_GT(total, 1e-6) << "deleting genes moved nothing";
  const nlohmann::json j = agreement_json(e, e);
  EXPECT_DOUBLE_EQ(j["spearman_vs_baseline"].get<double>(), 1.0);
  EXPECT_EQ(j["top_k"], 2);
}

}  // namespace
}  // namespace sb::geneformer
