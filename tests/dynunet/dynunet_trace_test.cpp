// `stagebench export-steps dynunet`'s files, without PyTorch (CI has none): step 0's gradients are
// written under every parameter's name and shape, they are the gradients the first AdamW step
// used, and they are the loss's derivative (a central difference along them).
#include <gtest/gtest.h>

#include <cmath>

#include "models/dynunet/trace_export.h"
#include "models/dynunet/workload.h"
#include "models/io/safetensors.h"
#include "models/registry.h"
#include "tests/common/temp_dir.h"

namespace sb::dynunet {
namespace {

WorkloadOptions tiny_options(const std::filesystem::path& weights = {}) {
  WorkloadOptions o;
  o.size = "tiny";
  o.weights = weights;
  return o;
}

// Step 0's loss from the parameters in `file` (the first loss a trace records).
double loss_at(const std::filesystem::path& file) {
  DynUnetWorkload w(tiny_options(file), make_backend("cpu", ""));
  w.prepare(kBaseline);
  return w.train(kBaseline, 1).loss.at(0);
}

class DynUnetTrace : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new sb::testing::TempDir("sb_dyntrace_");
    DynUnetWorkload w(tiny_options(), make_backend("cpu", ""));
    export_trace(w, kBaseline, 1, dir_->path());
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static sb::testing::TempDir* dir_;
};
sb::testing::TempDir* DynUnetTrace::dir_ = nullptr;

TEST_F(DynUnetTrace, GradientsUnderEveryParametersNameAndShape) {
  const auto path = dir_->file("grads_step0.safetensors");
  ASSERT_TRUE(std::filesystem::exists(path)) << "trace wrote no step-0 gradients";
  const SafetensorsFile grads = SafetensorsFile::open(path);
  const Params init = Params::random(config_for("tiny"), 1);
  ASSERT_EQ(grads.names().size(), init.specs().size());
  for (size_t i = 0; i < init.specs().size(); ++i) {
    const auto& spec = init.specs()[i];
    EXPECT_EQ(grads.names()[i], spec.name);
    ASSERT_TRUE(grads.contains(spec.name)) << spec.name;
    EXPECT_EQ(grads.info(spec.name).dtype, "F32") << spec.name;
    EXPECT_EQ(grads.info(spec.name).shape, spec.shape) << spec.name;
    const TensorData g = grads.read(spec.name);
    double sq = 0;
    for (float v : g.values) {
      ASSERT_TRUE(std::isfinite(v)) << spec.name;
      sq += double(v) * v;
    }
    EXPECT_GT(sq, 0) << spec.name << ": every parameter has a gradient at step 0";
  }
  EXPECT_EQ(grads.metadata().at("steps"), "1");
}

// The first AdamW step from zero moments moves each parameter by lr g / (|g| + eps) after the
// decay: where |g| >> eps that is lr sign(g). The written gradients must be the ones it used
// (not another step's, not another tensor's).
TEST_F(DynUnetTrace, GradientsAreTheOnesTheFirstUpdateUsed) {
  const SafetensorsFile grads = SafetensorsFile::open(dir_->file("grads_step0.safetensors"));
  const SafetensorsFile init = SafetensorsFile::open(dir_->file("init.safetensors"));
  const SafetensorsFile trace = SafetensorsFile::open(dir_->file("trace.safetensors"));
  const Config c = config_for("tiny");
  int64_t checked = 0;
  for (const std::string& name : grads.names()) {
    const auto g = grads.read(name).values, p0 = init.read(name).values,
               p1 = trace.read(name).values;
    ASSERT_EQ(g.size(), p0.size()) << name;
    ASSERT_EQ(g.size(), p1.size()) << name;
    for (size_t i = 0; i < g.size(); ++i) {
      if (std::abs(g[i]) < 1e-4f) continue;  // there eps bends the step off lr sign(g)
      const double moved = (double(p0[i]) * (1.0 - double(c.lr) * c.weight_decay) - p1[i]) / c.lr;
      ASSERT_NEAR(moved, g[i] > 0 ? 1.0 : -1.0, 1e-3) << name << "[" << i << "]";
      ++checked;
    }
  }
  EXPECT_GT(checked, 1000);
}

// The loss's derivative along the written gradient is its norm: a central difference of the
// step-0 loss at init +- h g/|g|. A gradient that is scaled, permuted or another batch's fails.
TEST_F(DynUnetTrace, GradientsAreTheLossDerivative) {
  const SafetensorsFile grads = SafetensorsFile::open(dir_->file("grads_step0.safetensors"));
  const SafetensorsFile init = SafetensorsFile::open(dir_->file("init.safetensors"));
  double norm = 0;
  for (const std::string& name : grads.names())
    for (float v : grads.read(name).values) norm += double(v) * v;
  norm = std::sqrt(norm);
  ASSERT_GT(norm, 0);
  // h moves the loss by ~1e-2: well above fp32's rounding of a loss near 1, small enough that
  // the central difference's error (third order in h) stays far below the tolerance.
  const double h = 1e-2 / norm;
  auto shifted = [&](double sign) {
    std::vector<std::pair<std::string, TensorData>> tensors;
    for (const std::string& name : grads.names()) {
      TensorData p = init.read(name);
      const auto g = grads.read(name).values;
      for (size_t i = 0; i < g.size(); ++i)
        p.values[i] = static_cast<float>(p.values[i] + sign * h * g[i] / norm);
      tensors.emplace_back(name, std::move(p));
    }
    const auto path = dir_->file(sign > 0 ? "plus.safetensors" : "minus.safetensors");
    write_safetensors(path, tensors);
    return path;
  };
  const double derivative = (loss_at(shifted(+1)) - loss_at(shifted(-1))) / (2 * h);
  // Measured 0.99992 (2026-11-27): 2e-3 leaves 20x room and still fails a gradient 0.2% off.
  EXPECT_NEAR(derivative / norm, 1.0, 2e-3) << "d loss along g: " << derivative << ", |g| " << norm;
}

}  // namespace
}  // namespace sb::dynunet
