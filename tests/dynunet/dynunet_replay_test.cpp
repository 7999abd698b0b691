// DynUNet's graph-replay stage (issue 27 item 4): where the forward records (NVIDIA's bf16
// implicit GEMMs; PoCL with STAGEBENCH_F32_GEMM=portable), the replayed forward gives this stage's
// eager logits bit for bit and stage 0's within the stage's tolerance; where it does not (CLBlast's
// products, the cpu backend), the stage is skipped naming why.
#include <gtest/gtest.h>

#include <cstdlib>

#include "models/dynunet/workload.h"
#include "tests/common/backend_or_null.h"

namespace sb::dynunet {
namespace {

using sb::testing::backend_or_null;

WorkloadOptions tiny_replay() {
  WorkloadOptions o;
  o.size = "tiny";
  return o;
}

TEST(DynUnetGraphReplay, CpuSkipsNamingWhy) {
  DynUnetWorkload w(tiny_replay(), make_backend("cpu", ""));
  EXPECT_EQ(w.skip_reason(kGraphReplay),
            "the cpu backend launches no kernels: there is no launch list to record");
}

TEST(DynUnetGraphReplay, ClblastProductsSkipNamingTheLibraryCall) {
  std::string why;
  auto backend = backend_or_null("opencl", &why);
  if (!backend) GTEST_SKIP() << "opencl backend unavailable: " << why;
  DynUnetWorkload w(tiny_replay(), std::move(backend));
  if (w.switches(kGraphReplay).precision != Precision::f32)
    GTEST_SKIP() << "this device runs the reduced-precision convolutions on its own kernels";
  const std::string skip = w.skip_reason(kGraphReplay);
  EXPECT_NE(skip.find("library call"), std::string::npos) << skip;
}

// End to end at tiny size with every fp32 product on gemm_general (STAGEBENCH_F32_GEMM=portable):
// on PoCL the whole forward is then our own kernels, as the bf16 one is on NVIDIA.
TEST(DynUnetGraphReplay, ReplayedForwardMatchesEagerAndBaseline) {
  ::setenv("STAGEBENCH_F32_GEMM", "portable", 1);  // read when the backend is made
  std::string why;
  auto backend = backend_or_null("opencl", &why);
  ::unsetenv("STAGEBENCH_F32_GEMM");
  if (!backend) GTEST_SKIP() << "opencl backend unavailable: " << why;
  DynUnetWorkload w(tiny_replay(), std::move(backend));
  if (std::string skip = w.skip_reason(kGraphReplay); skip.find("OpenCL 2.1") != std::string::npos)
    GTEST_SKIP() << skip;
  ASSERT_EQ(w.skip_reason(kGraphReplay), "");
  // As the runner does: the training checks, then the summaries (stage 0's logits first).
  w.prepare(kBaseline);
  w.prepare(kGraphReplay);
  w.run(kGraphReplay);
  w.train_trace(kBaseline);
  w.train_trace(kGraphReplay);
  w.summaries(kBaseline);
  const nlohmann::json s = w.summaries(kGraphReplay);
  ASSERT_TRUE(s.contains("graph_replay")) << s.dump();
  const nlohmann::json& g = s["graph_replay"];
  EXPECT_GT(g["launches"].get<int64_t>(), 20) << g.dump();
  EXPECT_TRUE(g["vs_eager"]["bits_equal"].get<bool>()) << g.dump();
  EXPECT_TRUE(g["vs_baseline"]["within_tolerance"].get<bool>()) << g.dump();
  EXPECT_GT(g["events_off"]["replay"]["median_ms"].get<double>(), 0) << g.dump();
  EXPECT_GT(s["inference"]["fps"].get<double>(), 0);
}

}  // namespace
}  // namespace sb::dynunet
