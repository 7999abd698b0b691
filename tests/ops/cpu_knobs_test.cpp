// Every knob the CPU backend reads when it is made refuses a value it does not know: making the
// backend throws std::invalid_argument naming the variable and the value, which the CLI reports
// as bad input (exit 2) before anything is measured. Until 2026-11-29 STAGEBENCH_CPU_F32_GEMM and
// STAGEBENCH_CPU_F32_LINEAR took any value but "eigen" as the default path, and the knobs their
// ops read once (dropout, the parallel grain, sum_axis1's blocks, the host pool) threw only at
// that op's first call, in the middle of a run. Those are read uncached here, so the test holds
// in one process whatever ran before it.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "models/ops/cpu/cpu_backend.h"
#include "tests/ops/test_env.h"

namespace sb::testing {
namespace {

class OpsCpuKnobs : public ::testing::TestWithParam<const char*> {};

// A value each knob names (not its default where it has another).
const char* accepted_value(const std::string& variable) {
  if (variable.find("F32_") != std::string::npos) return "eigen";
  if (variable.find("GRAIN") != std::string::npos) return "8192";
  if (variable.find("SUM_BLOCK") != std::string::npos) return "64";
  if (variable.find("OP_TIMES") != std::string::npos) return "on";
  if (variable.find("ITEMS_COST") != std::string::npos) return "macs";
  if (variable.find("PARALLEL_SPLIT") != std::string::npos) return "even";
  return "off";
}

TEST_P(OpsCpuKnobs, AnUnknownValueFailsTheBackend) {
  const char* variable = GetParam();
  const ScopedEnv env(variable, "eign");
  try {
    make_cpu_backend();
    ADD_FAILURE() << variable << "=eign accepted";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(std::string(variable) + "=eign"), std::string::npos) << what;
  }
}

TEST_P(OpsCpuKnobs, ItsNamedValuesAreAccepted) {
  const char* variable = GetParam();
  for (const char* value : {"", accepted_value(variable)}) {
    const ScopedEnv env(variable, value);
    EXPECT_NO_THROW(make_cpu_backend()) << variable << "=" << value;
  }
}

INSTANTIATE_TEST_SUITE_P(
    ReadWhenMade, OpsCpuKnobs,
    ::testing::Values("STAGEBENCH_CPU_F32_GEMM", "STAGEBENCH_CPU_F32_LINEAR",
                      "STAGEBENCH_CPU_OP_TIMES", "STAGEBENCH_CPU_GEMM_BIAS",
                      "STAGEBENCH_CPU_FUSED_DROPOUT", "STAGEBENCH_CPU_PARALLEL_GRAIN",
                      "STAGEBENCH_CPU_SUM_BLOCK", "STAGEBENCH_CPU_POOL",
                      "STAGEBENCH_CPU_ATTENTION_BF16", "STAGEBENCH_CPU_ATTENTION_ONEDNN",
                      "STAGEBENCH_CPU_BATCHED_GRID", "STAGEBENCH_CPU_SMALL_ITEMS_COST",
                      "STAGEBENCH_CPU_DICE_BLOCKS", "STAGEBENCH_CPU_PARALLEL_SPLIT"),
    [](const ::testing::TestParamInfo<const char*>& info) {
      return std::string(info.param).substr(std::string("STAGEBENCH_").size());
    });

}  // namespace
}  // namespace sb::testing
