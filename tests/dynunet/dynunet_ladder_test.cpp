// Every DynUNet stage at tiny, on every backend built here, against the baseline's training
// trace within the stage's docs/method.md bounds; the backends against each other; inference
// the same on every stage; and training that learns the spheres.
#include <gtest/gtest.h>

#include <cmath>

#include "harness/correctness.h"
#include "models/dynunet/workload.h"
#include "models/registry.h"
#include "tests/common/backend_or_null.h"

namespace sb::dynunet {
namespace {

using sb::testing::backend_or_null;

WorkloadOptions tiny() {
  WorkloadOptions o;
  o.size = "tiny";
  return o;
}

class DynUnetLadder : public ::testing::TestWithParam<std::string> {};

// tiny's lr (1e-2) turns bf16's gradient rounding into whole +-lr sign steps in AdamW's first
// updates: where a stage runs in bf16 (the cpu backend's oneDNN convolutions), the ladder trains
// at the documented lr (1e-3), that of small and full, and each stage's inference is held to its
// own basis (a bf16 stage's forward runs bf16 convolutions).
TEST_P(DynUnetLadder, EveryStageMatchesItsBaseline) {
  std::string why;
  auto backend = backend_or_null(GetParam(), &why);
  if (!backend) GTEST_SKIP() << GetParam() << " backend unavailable: " << why;
  WorkloadOptions options = tiny();
  if (backend->name() == "cpu" && backend->unsupported_reason(Precision::bf16).empty())
    options.lr = 1e-3f;
  DynUnetWorkload w(options, std::move(backend));
  w.prepare(kBaseline);
  w.run(kBaseline);  // timed steps before the check must not change what it sees
  const TrainTrace reference = *w.train_trace(kBaseline);
  ASSERT_EQ(reference.loss.size(), static_cast<size_t>(w.config().check_steps));
  EXPECT_EQ(reference.params.size(), static_cast<size_t>(w.parameters().count()));
  for (double l : reference.loss) EXPECT_TRUE(std::isfinite(l));
  const std::vector<float> logits = w.infer(kBaseline);
  int checked = 0;
  for (size_t s = 1; s < kStageCount; ++s) {
    const std::string id = ladder()[s].id;
    if (const std::string skip = w.skip_reason(s); !skip.empty()) {
      EXPECT_GT(skip.size(), 10u) << id << ": a skip needs a reason";
      continue;
    }
    w.prepare(s);
    w.run(s);
    const auto trace = w.train_trace(s);
    ASSERT_TRUE(trace) << id;
    const auto r = compare_training(*trace, reference, ladder()[s].tolerance);
    EXPECT_TRUE(r.pass) << GetParam() << " stage " << id << ": " << r.reason;
    // After the check both stages hold the same trained parameters: the same inference as the
    // baseline's right after its own check.
    const auto inf = compare(w.infer(s), logits, ladder()[s].tolerance);
    EXPECT_TRUE(inf.pass) << GetParam() << " stage " << id << " inference: " << inf.reason;
    const nlohmann::json sum = w.summaries(s);
    EXPECT_EQ(sum["phases_ms"].size(), 5u) << id;
    EXPECT_GT(sum["inference"]["fps"].get<double>(), 0) << id;
    EXPECT_GT(sum["memory_split_bytes"]["optimizer_state"].get<double>(),
              sum["memory_split_bytes"]["parameters"].get<double>())
        << id << ": AdamW keeps two moments per parameter";
    ++checked;
    w.release(s);
  }
  EXPECT_GE(checked, 5);  // channels-last, compile, fused-optimizer, checkpointing, dataloader
  EXPECT_EQ(logits.size(), static_cast<size_t>(w.config().batch * w.config().voxels()));
}

INSTANTIATE_TEST_SUITE_P(Backends, DynUnetLadder, ::testing::ValuesIn(backend_names()));

TEST(DynUnetBackends, TrainTheSameLossCurve) {
  std::string why;
  auto opencl = backend_or_null("opencl", &why);
  if (!opencl) GTEST_SKIP() << "opencl backend unavailable: " << why;
  DynUnetWorkload cpu(tiny(), make_backend("cpu", ""));
  DynUnetWorkload cl(tiny(), std::move(opencl));
  cpu.prepare(kBaseline);
  cl.prepare(kBaseline);
  const auto r = compare_training(*cl.train_trace(kBaseline), *cpu.train_trace(kBaseline),
                                  ladder()[kBaseline].tolerance);
  EXPECT_TRUE(r.pass) << r.reason;
}

// Checkpointing keeps fewer activations between the passes, and the fused blocks fewer than
// the separate passes.
TEST(DynUnetMemory, CheckpointingAndFusionKeepLess) {
  DynUnetWorkload w(tiny(), make_backend("cpu", ""));
  auto activations = [&](size_t s) {
    w.prepare(s);
    const double a = w.summaries(s)["memory_split_bytes"]["activations"].get<double>();
    w.release(s);
    return a;
  };
  const double base = activations(kBaseline), fused = activations(kCompile),
               ckpt = activations(kCheckpointing);
  EXPECT_LT(fused, 0.8 * base);
  EXPECT_LT(ckpt, 0.6 * fused);
}

// The cpu backend has bf16 convolutions (oneDNN) where the CPU has avx512_bf16: the bf16-mixed
// stage runs there, in bf16 (it was skipped before dynbf40), and the later stages with it.
TEST(DynUnetCpuBf16, MixedPrecisionRunsWhereTheCpuHasBf16) {
  DynUnetWorkload w(tiny(), make_backend("cpu", ""));
  const std::string why = make_backend("cpu", "")->unsupported_reason(Precision::bf16);
  if (!why.empty()) {
    EXPECT_FALSE(w.skip_reason(kMixedPrecision).empty());
    GTEST_SKIP() << "no bf16 on this CPU: " << why;
  }
  EXPECT_EQ(w.skip_reason(kMixedPrecision), "");
  EXPECT_EQ(w.switches(kMixedPrecision).precision, Precision::bf16);
  EXPECT_EQ(w.switches(kDataloader).precision, Precision::bf16);
}

// The spheres are learnable: sixty steps bring the Dice loss well below its start.
TEST(DynUnetLearning, DiceFallsWellBelowTheStart) {
  DynUnetWorkload w(tiny(), make_backend("cpu", ""));
  w.prepare(kCompile);
  constexpr int64_t kSteps = 60, kWindow = 10;
  w.train(kCompile, kSteps);
  const auto& l = w.last_loss_parts();
  ASSERT_EQ(l.size(), static_cast<size_t>(kSteps));
  double first = 0, last = 0;
  for (int64_t s = 0; s < kWindow; ++s) {
    first += l[s].dice;
    last += l[kSteps - 1 - s].dice;
  }
  EXPECT_LT(last, 0.7 * first) << first / kWindow << " -> " << last / kWindow;
}

TEST(DynUnetLadderSpec, StagesAndSwitches) {
  ASSERT_EQ(ladder().size(), static_cast<size_t>(kStageCount));
  const Switches base = switches_for(kBaseline, Precision::bf16);
  EXPECT_EQ(base.layout, Layout3d::ncdhw);
  EXPECT_FALSE(base.fused_norm || base.flat_optimizer || base.checkpoint || base.prefetch);
  const Switches ckpt = switches_for(kCheckpointing, Precision::bf16);
  EXPECT_TRUE(ckpt.checkpoint && ckpt.fused_norm && ckpt.flat_optimizer);
  EXPECT_EQ(ckpt.layout, Layout3d::ndhwc);
  const Switches last = switches_for(kDataloader, Precision::bf16);
  EXPECT_FALSE(last.checkpoint) << "the seed's 'all optimizations' row has no checkpointing";
  EXPECT_TRUE(last.prefetch);
  EXPECT_NEAR(*ladder()[kDataloader].claim.speedup, 5.3 / 2.1, 1e-9);
  EXPECT_FALSE(inference_claim(kCheckpointing));
}

}  // namespace
}  // namespace sb::dynunet
