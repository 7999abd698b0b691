// What the Oclgrind pass (scripts/oclgrind-ci.sh) relies on in the op table: reports split one
// by one from the simulator's log, suppressed only by a matching case and report, and gradient
// checks that take a few coordinates and compare just those.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "tests/common/temp_dir.h"
#include "tests/ops/gradient_check.h"
#include "tests/ops/simulator_log.h"
#include "tests/ops/test_env.h"

namespace sb::testing {
namespace {

// As Oclgrind 21.10 writes them: a blank line, the first line, details indented by a tab.
const char* kLog =
    "\nRead-write data race at global memory address 0x7000000002a30\n"
    "\tKernel: add_layernorm_rows\n\t\n\tFirst entity:  Global(320,0,0)\n\n"
    "\nUninitialized value written to global memory address 0x7f000000000000\n"
    "\tKernel: adamw\n\tEntity: Global(0,0,0) Local(0,0,0) Group(0,0,0)\n\n";

TEST(OclgrindSupport, ReportsSplitAtTheirFirstLines) {
  const auto reports = split_reports(kLog);
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_EQ(reports[0].headline, "Read-write data race at global memory address 0x7000000002a30");
  EXPECT_NE(reports[0].text.find("Kernel: add_layernorm_rows"), std::string::npos);
  EXPECT_EQ(reports[1].text.find("add_layernorm_rows"), std::string::npos);
}

TEST(OclgrindSupport, ASuppressionCoversItsCasesAndReportsOnly) {
  const TempDir dir;
  const std::string path = dir.write(
      "suppressions.txt", "# the evidence\n\n^flat_parts/adamw_over_parts$ uninitialized\n");
  const ScopedEnv env("STAGEBENCH_OCLGRIND_SUPPRESSIONS", path);
  const Suppressions suppressions;
  const auto reports = split_reports(kLog);
  EXPECT_EQ(suppressions.match("flat_parts/adamw_over_parts", reports[1]), 3);
  EXPECT_EQ(suppressions.match("flat_parts/adamw_over_parts", reports[0]), 0);  // a race
  EXPECT_EQ(suppressions.match("adamw/one_step", reports[1]), 0);               // another case
  dir.write("suppressions.txt", "^only_a_case_regex\n");
  EXPECT_THROW(Suppressions{}, std::invalid_argument);
}

TEST(OclgrindSupport, SampledGradientsCompareTheSampledCoordinatesOnly) {
  const Vec x{0.5f, -1.f, 2.f, 1.5f, -0.5f};
  const auto sum_of_squares = [](const Vec& v) {
    double s = 0;
    for (float e : v) s += double(e) * e;
    return s;
  };
  Vec wrong_middle{1.f, -2.f, 99.f, 3.f, -1.f};  // 2x, but for coordinate 2
  {
    const ScopedEnv env("STAGEBENCH_GRADIENT_SAMPLES", "2");
    const DVec numeric = numeric_gradient(x, sum_of_squares);
    EXPECT_NEAR(numeric[0], 1.0, 1e-3);
    EXPECT_NEAR(numeric[4], -1.0, 1e-3);
    EXPECT_TRUE(std::isnan(numeric[2]));
    EXPECT_EQ(compare(gradient_matches("dx", wrong_middle, numeric)), "");
    Vec wrong_last = wrong_middle;
    wrong_last[2] = 4.f, wrong_last[4] = 5.f;
    EXPECT_NE(compare(gradient_matches("dx", wrong_last, numeric)), "");
  }
  const DVec every = numeric_gradient(x, sum_of_squares);  // unset: every coordinate
  EXPECT_NE(compare(gradient_matches("dx", wrong_middle, every)), "");
}

}  // namespace
}  // namespace sb::testing
