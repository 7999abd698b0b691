// Device faults through the binary on PoCL (issue 16), made by the fault-injection switch
// (models/ops/opencl/fault_injection.h): a kernel whose launch or program build fails fails the
// stages that use it with the driver's message while the others are measured; a lost device
// fails what was not measured; the JSON stays valid; a bad switch is bad input (exit 2).
#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

#include "schema/document.h"
#include "tests/common/run_stagebench.h"
#include "tests/common/temp_dir.h"

namespace device_faults {

using sb::testing::run_stagebench;
using sb::testing::TempDir;

struct Faulted {
  int status = -1;
  std::string output;
  nlohmann::json stages;  // the stages of the written document's one run
};

// Enformer tiny on PoCL with STAGEBENCH_FAULT set for the child (popen inherits it).
Faulted run_faulted(const std::string& fault) {
  TempDir dir;
  const auto out = dir.file("faulted.json");
  setenv("STAGEBENCH_FAULT", fault.c_str(), 1);
  const auto r = run_stagebench(
      "run enformer --size tiny --backend opencl --max-time 1 "
      "--warmup 0 -q -o " +
      out.string());
  unsetenv("STAGEBENCH_FAULT");
  Faulted f{r.status, r.output, nlohmann::json::array()};
  if (std::filesystem::exists(out)) f.stages = sb::read_document(out)["runs"].at(0)["stages"];
  return f;
}

const nlohmann::json& stage(const Faulted& f, const std::string& id) {
  for (const auto& s : f.stages)
    if (s["id"] == id) return s;
  throw std::runtime_error("no stage " + id);
}

std::string first_reason(const nlohmann::json& s) {
  return s["reasons"].empty() ? "" : s["reasons"][0].get<std::string>();
}

TEST(DeviceFaults, AFailingLaunchFailsTheStagesThatUseItAndTheRestAreMeasured) {
  // gemm_epilogue is the portable GEMM's bias/activation pass: fp32 stages use it, the
  // reduced-precision ones fuse their epilogue.
  const Faulted f = run_faulted("launch:gemm_epilogue");
  ASSERT_EQ(f.status, 1) << f.output;  // a stage failed
  ASSERT_EQ(f.stages.size(), 8u) << f.output;
  const auto& original = stage(f, "original");
  EXPECT_EQ(original["status"], "failed");
  EXPECT_NE(first_reason(original).find("clEnqueueNDRangeKernel(gemm_epilogue)"),
            std::string::npos);
  EXPECT_NE(first_reason(original).find("injected by STAGEBENCH_FAULT"), std::string::npos);
  EXPECT_TRUE(original["samples_ms"].empty());
  const auto& bf16 = stage(f, "bf16");
  EXPECT_NE(bf16["status"], "failed") << first_reason(bf16);
  EXPECT_FALSE(bf16["samples_ms"].empty());
}

TEST(DeviceFaults, AProgramThatFailsToBuildIsTheStagesFailure) {
  const Faulted f = run_faulted("build:activation");
  ASSERT_EQ(f.status, 1) << f.output;
  const auto& original = stage(f, "original");
  EXPECT_EQ(original["status"], "failed");
  EXPECT_NE(first_reason(original).find("CL_BUILD_PROGRAM_FAILURE"), std::string::npos);
  EXPECT_NE(stage(f, "graph-compile")["status"], "failed");  // its fused kernels need no other
}

TEST(DeviceFaults, ALostDeviceFailsEveryStageNotMeasuredWithTheReason) {
  // Loading the weights takes some launches (layout conversions); 40 ends in stage 0's warm-up.
  // Samples measured before a loss are kept: RunnerDeviceLost in tests/harness.
  const Faulted f = run_faulted("lost:40");
  ASSERT_EQ(f.status, 1) << f.output;
  ASSERT_EQ(f.stages.size(), 8u);
  for (const auto& s : f.stages) {
    if (s["status"] == "skipped") continue;  // tf32 on PoCL: skipped before any launch
    EXPECT_EQ(s["status"], "failed") << s["id"];
    EXPECT_NE(first_reason(s).find("device lost"), std::string::npos) << first_reason(s);
  }
}

// Issue 29: a fault while the workload loads (ceilings, weights) used to end `--backend all` with
// no record of the OpenCL backend, and left an older -o in place under `--backend opencl`.
TEST(DeviceFaults, AFaultWhileLoadingIsAFailedRunInTheOutput) {
  TempDir dir;
  const auto out = dir.file("loaded.json");
  setenv("STAGEBENCH_FAULT", "alloc:1", 1);
  const auto all = run_stagebench(
      "run enformer --size tiny --backend all --max-time 1 --warmup 0 "
      "--stages original -q -o " +
      out.string());
  ASSERT_EQ(all.status, 1) << all.output;
  EXPECT_NE(all.output.find("backend opencl failed: loading the workload"), std::string::npos)
      << all.output;
  nlohmann::json runs = sb::read_document(out)["runs"];
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0]["backend"], "cpu");
  EXPECT_FALSE(runs[0]["stages"].empty());
  EXPECT_EQ(runs[1]["backend"], "opencl");
  EXPECT_EQ(runs[1]["status"], "failed");
  EXPECT_NE(runs[1]["reason"].get<std::string>().find("CL_MEM_OBJECT_ALLOCATION_FAILURE"),
            std::string::npos);
  // The file now holds a cpu run; an OpenCL-only run that fails while loading replaces it.
  const auto only = run_stagebench(
      "run enformer --size tiny --backend opencl --max-time 1 "
      "--warmup 0 -q -o " +
      out.string());
  unsetenv("STAGEBENCH_FAULT");
  ASSERT_EQ(only.status, 1) << only.output;
  runs = sb::read_document(out)["runs"];
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0]["backend"], "opencl");
  EXPECT_EQ(runs[0]["status"], "failed");
}

TEST(DeviceFaults, ABadSwitchIsBadInput) {
  const Faulted f = run_faulted("launch");
  EXPECT_EQ(f.status, 2) << f.output;
  EXPECT_NE(f.output.find("STAGEBENCH_FAULT: 'launch'"), std::string::npos) << f.output;
  // Found by the hostile-input campaign (issue 29): the second lost:N replaced the first.
  const Faulted twice = run_faulted("lost:1,lost:2");
  EXPECT_EQ(twice.status, 2) << twice.output;
  EXPECT_NE(twice.output.find("STAGEBENCH_FAULT: 'lost' is given twice"), std::string::npos)
      << twice.output;
}

// Found by the hostile-input campaign (issue 29): a bad STAGEBENCH_SLOW_OP threw inside every
// stage, which failed (exit 1) as if measured; a local-memory limit past 2^64 read as no limit.
TEST(DeviceFaults, BadFaultSwitchesAreBadInputBeforeMeasuring) {
  TempDir dir;
  const auto out = dir.file("slow.json");
  for (const char* spec : {"gemm:0", "gemm", "nosuch_op:2", "gemm:nan"}) {
    setenv("STAGEBENCH_SLOW_OP", spec, 1);
    const auto r = run_stagebench(
        "run gemm --size tiny --backend cpu --max-time 1 --warmup 0 "
        "--no-ceilings -q -o " +
        out.string());
    unsetenv("STAGEBENCH_SLOW_OP");
    EXPECT_EQ(r.status, 2) << spec << ": " << r.output;
    EXPECT_NE(r.output.find(std::string("STAGEBENCH_SLOW_OP='") + spec + "'"), std::string::npos)
        << r.output;
    EXPECT_FALSE(std::filesystem::exists(out)) << spec;
  }
  setenv("STAGEBENCH_CL_LOCAL_MEM_LIMIT", "99999999999999999999", 1);
  const auto r = run_stagebench(
      "run gemm --size tiny --backend opencl --max-time 1 --warmup 0 "
      "--no-ceilings -q -o " +
      out.string());
  unsetenv("STAGEBENCH_CL_LOCAL_MEM_LIMIT");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(
      r.output.find("STAGEBENCH_CL_LOCAL_MEM_LIMIT=99999999999999999999: expected a whole number "
                    "greater than zero"),
      std::string::npos)
      << r.output;
}

}  // namespace device_faults
