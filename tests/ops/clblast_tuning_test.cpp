// The CLBlast tuning cache (models/ops/opencl/clblast_tuning.h): where it lives, that it reads
// back what was written and refuses a damaged or foreign file by name, and that an OpenCL backend
// applies it as it starts, says so, and still computes the same GEMMs; a damaged cache is ignored
// with its reason; and the verdict that keeps a tuning only where none of the GEMMs that judge it
// got slower. The tuners themselves (`stagebench tune`) compile hundreds of kernels and are run
// on the GPU machine, not here.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "models/ops/opencl/clblast_tuning.h"
#include "models/ops/opencl/device_select.h"
#include "models/ops/opencl/opencl_backend.h"
#include "tests/common/temp_dir.h"
#include "tests/ops/op_case.h"

namespace sb::testing {
namespace {

// STAGEBENCH_CACHE_DIR pointed at a fresh directory for one test.
class CacheDir {
 public:
  CacheDir() { setenv("STAGEBENCH_CACHE_DIR", dir_.path().c_str(), 1); }
  ~CacheDir() { unsetenv("STAGEBENCH_CACHE_DIR"); }
  const std::filesystem::path& path() const { return dir_.path(); }

 private:
  TempDir dir_;
};

cl::Device first_device(std::string* why) {
  try {
    return select_opencl_device("");
  } catch (const std::exception& e) {
    *why = e.what();
    return {};
  }
}

TEST(ClblastTuning, CachePathIsPerDeviceUnderTheCacheDir) {
  CacheDir cache;
  const auto p = clblast_tuning_path("NVIDIA H100 80GB HBM3 | 580.159.04");
  EXPECT_EQ(p.parent_path(), cache.path());
  EXPECT_EQ(p.filename(), "clblast-NVIDIA_H100_80GB_HBM3___580.159.04.json");
}

TEST(ClblastTuning, ReadsBackWhatWasWrittenAndRefusesForeignOrDamagedFiles) {
  CacheDir cache;
  const auto path = cache.path() / "t.json";
  EXPECT_FALSE(load_clblast_tuning(path, "dev | 1").has_value());  // none yet
  ClblastTuning t;
  t.device = "dev | 1";
  t.kernels["Xgemm"] = {{"MWG", 64}, {"NWG", 64}};
  t.provenance = {{"fraction", 0.05}};
  save_clblast_tuning(path, t);
  const auto back = load_clblast_tuning(path, "dev | 1");
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->kernels, t.kernels);
  EXPECT_EQ(back->provenance["fraction"], 0.05);
  try {
    load_clblast_tuning(path, "other | 2");
    FAIL() << "a tuning of another device was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("tuned on 'dev | 1'"), std::string::npos) << e.what();
  }
  for (const char* bad : {"{", "[]", R"({"device":"dev | 1","kernels":{"Xgemm":{"MWG":-1}}})",
                          R"({"device":"dev | 1","kernels":{"Xgemm":{}}})"}) {
    std::ofstream(path) << bad;
    EXPECT_THROW(load_clblast_tuning(path, "dev | 1"), std::invalid_argument) << bad;
  }
}

TEST(ClblastTuning, JudgingGemmsIncludeTheModelsShapesAroundTheTunedSquare) {
  const auto g = tuning_gemms(2048);
  ASSERT_GE(g.size(), 3u);
  EXPECT_EQ(g[0].label(), "2048x2048x2048");   // the shape the tuner searched at comes first
  EXPECT_EQ(g[2].label(), "2048x2048x64 x8");  // attention's scores, batched over heads
  EXPECT_EQ(g[3].label(), "2048x64x2048 x8");  // and its context product
  EXPECT_DOUBLE_EQ(g[2].flops(), 2.0 * 2048 * 2048 * 64 * 8);
  EXPECT_EQ(tuning_gemms(32)[2].k, 32u);  // never a head wider than the edge
}

TEST(ClblastTuning, ATuningIsKeptOnlyIfNoJudgingGemmGotSlower) {
  const auto g = tuning_gemms(256);
  const std::vector<double> before = {1.0, 1.0, 1.0, 1.0};
  EXPECT_EQ(tuning_rejection(g, before, {0.8, 0.9, 1.0, 1.01}), "");  // within 2%, faster overall
  // What the H200's first tuning did: faster on the square, batched scores 2.6x slower.
  EXPECT_EQ(tuning_rejection(g, before, {0.95, 1.0, 2.64, 1.0}),
            "slower on 256x256x64 x8 (2.64x the time)");
  EXPECT_EQ(tuning_rejection(g, before, {1.0, 1.0, 1.0, 1.0}), "no faster than CLBlast's defaults");
  EXPECT_THROW(tuning_rejection(g, before, {1.0}), std::invalid_argument);
}

TEST(ClblastTuning, ABackendAppliesTheCachedTuningAndSaysSo) {
  std::string why;
  const cl::Device device = first_device(&why);
  if (!device()) GTEST_SKIP() << why;
  CacheDir cache;
  const std::string key = clblast_device_key(device);
  // CLBlast's own parameters, written as a tuning: valid on this device by construction.
  ClblastTuning t;
  t.device = key;
  t.kernels["Xgemm"] = clblast_current_parameters(device, "Xgemm");
  save_clblast_tuning(clblast_tuning_path(key), t);
  auto be = make_opencl_backend("");
  EXPECT_NE(be->library_tuning().find("CLBlast tuned on this device: "), std::string::npos)
      << be->library_tuning();
  // fp32 GEMMs go through CLBlast: still the right answer with the tuning applied.
  const std::vector<float> x = {1, 2, 3, 4, 5, 6}, w = {1, 0, 1, 0, 1, 1};  // y = x W^T
  const Weight weight = be->prepare_weight(w, 2, 3, Precision::f32);
  Tensor tx = be->upload(x, {2, 3}), ty = be->empty({2, 2});
  be->linear(tx, weight, ty);
  EXPECT_EQ(be->download(ty), (std::vector<float>{4, 5, 10, 11}));

  setenv("STAGEBENCH_CLBLAST_TUNING", "off", 1);
  EXPECT_NE(make_opencl_backend("")->library_tuning().find("STAGEBENCH_CLBLAST_TUNING=off"),
            std::string::npos);
  unsetenv("STAGEBENCH_CLBLAST_TUNING");

  std::ofstream(clblast_tuning_path(key)) << "{ damaged";
  const auto damaged = make_opencl_backend("")->library_tuning();
  EXPECT_NE(damaged.find("cached tuning ignored"), std::string::npos) << damaged;
}

}  // namespace
}  // namespace sb::testing
