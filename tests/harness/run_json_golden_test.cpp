// The whole JSON the runner writes for one ladder, pinned line by line (as Google Benchmark pins
// its JSON output): the run record built from fixed per-stage states, so every number is
// deterministic. STAGEBENCH_UPDATE_GOLDEN=1 rewrites the golden file; review the diff.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "harness/stage_report.h"
#include "tests/common/golden.h"
#include "tests/harness/fakes.h"

namespace sb {
namespace {

StageState state(size_t index, const std::string& id, std::vector<double> samples_s,
                 std::vector<float> output, const RunnerOptions& opt) {
  StageState st;
  st.index = index;
  st.spec = {id, "Stage " + id, {"seed 000", "the document's words", std::nullopt}, {}};
  st.counts = {2e9, 1e8, 4, "sequences", "fp32"};
  st.samples_s = std::move(samples_s);
  st.output = std::move(output);
  st.has_output = !st.output.empty();
  st.rule = std::make_unique<StoppingRule>(opt);
  st.rule->done(SampleState{st.samples_s, 1.0});
  return st;
}

RunRecord golden_run() {
  RunnerOptions opt;
  opt.min_samples = 5;
  opt.max_samples = 6;
  opt.ceilings = DeviceCeilings{100, 10, {{"tf32", 400}}};
  std::vector<StageState> stages;
  stages.push_back(
      state(0, "baseline", {0.020, 0.021, 0.0205, 0.0202, 0.0201, 0.0203}, {1, 2, 3, 4}, opt));
  stages[0].collectors.push_back(std::make_unique<test::CountingCollector>());
  StageState fused =
      state(1, "fused", {0.010, 0.0105, 0.0102, 0.0101, 0.0103, 0.0104}, {1, 2, 3, 4.0001f}, opt);
  fused.spec.claim.speedup = 1.76;
  fused.spec.tolerance = {0.9999, "tf32"};
  fused.counts.precision = "tf32";
  fused.summaries = {{"graph", {{"passes", 2}}}};
  stages.push_back(std::move(fused));
  StageState skipped = state(2, "fp16", {}, {}, opt);
  skipped.phase = StageState::Phase::kSkipped;
  skipped.reason = "no cl_khr_fp16";
  stages.push_back(std::move(skipped));
  StageState failed = state(3, "int8", {0.01}, {}, opt);
  failed.phase = StageState::Phase::kFailed;
  failed.reason = "run: out of device memory";
  stages.push_back(std::move(failed));
  stages.push_back(state(4, "noisy", {0.01, 0.03, 0.01, 0.03, 0.01, 0.03}, {4, 3, 2, 1}, opt));
  return build_run({"enformer", "tiny", "cpu", "test cpu", "inference"},
                   {{"batch", 4}, {"length", 128}}, stages, opt, true);
}

// Floating-point values to 10 significant digits: the golden file pins the schema and the
// arithmetic, not the last bits that FMA contraction on another CPU may change.
nlohmann::json rounded(const nlohmann::json& j) {
  if (j.is_number_float()) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.10g", j.get<double>());
    return std::stod(buf);
  }
  if (!j.is_structured()) return j;
  nlohmann::json out = j;
  for (auto& [key, value] : out.items()) value = rounded(value);
  return out;
}

TEST(RunJson, MatchesTheGoldenFile) {
  const nlohmann::json run = golden_run();
  testing::expect_golden_file(std::string(SB_HARNESS_TEST_DIR) + "/golden/run.json",
                              rounded(run).dump(2) + "\n");
}

TEST(RunJson, ReadsBackToTheSameRecord) {
  const nlohmann::json run = golden_run();
  EXPECT_EQ(nlohmann::json(run.get<RunRecord>()), run);
}

}  // namespace
}  // namespace sb
