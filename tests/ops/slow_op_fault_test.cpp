// STAGEBENCH_SLOW_OP (models/ops/slow_op_fault.h): the knob the CI time gate is proved with.
// Its parse refuses what it cannot honour, and a slowed op takes FACTOR times its own time.
#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>
#include <string>

#include "models/ops/slow_op_fault.h"
#include "tests/ops/test_backends.h"

namespace {

std::string parse_error(const char* spec) {
  try {
    sb::SlowOpFault::parse(spec);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(SlowOpFault, ParsesAnOpAndAFactor) {
  EXPECT_FALSE(sb::SlowOpFault::parse(""));
  const auto f = sb::SlowOpFault::parse("linear:1.3");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->op, sb::Op::linear);
  EXPECT_DOUBLE_EQ(f->factor, 1.3);
  EXPECT_EQ(sb::SlowOpFault::parse("add_layernorm:2")->op, sb::Op::add_layernorm);
}

TEST(SlowOpFault, RefusesWhatItCannotHonour) {
  EXPECT_NE(parse_error("linear").find("no ':'"), std::string::npos);
  EXPECT_NE(parse_error("adamw:2").find("'adamw' is not an op whose front honours"),
            std::string::npos);
  EXPECT_NE(parse_error("nonsense:2").find("STAGEBENCH_SLOW_OP='nonsense:2'"), std::string::npos);
  for (const char* bad : {"linear:", "linear:0.5", "linear:x", "linear:inf", "linear:nan",
                          "linear:1.5x", "linear:1e9"})
    EXPECT_NE(parse_error(bad).find("is not a number in [1, 1000]"), std::string::npos) << bad;
}

TEST(SlowOpFault, AnOpTakesFactorTimesItsOwnTime) {
  std::string why;
  sb::Backend* cpu = sb::testing::test_backend("cpu", &why);
  ASSERT_NE(cpu, nullptr) << why;
  using clock = std::chrono::steady_clock;
  const auto own = std::chrono::milliseconds(20);
  const sb::SlowOpFault fault{sb::Op::linear, 2.5};
  // run_slowed times from after its own synchronize; one here first, so that the backend's
  // first synchronize (0.2 ms under ASan on 2026-11-29) is not counted as the op's time.
  cpu->synchronize();
  const clock::time_point start = clock::now();
  clock::time_point op_end;
  sb::detail::run_slowed(*cpu, fault, [&] {
    const clock::time_point until = clock::now() + own;
    while (clock::now() < until) {
    }
    op_end = clock::now();
  });
  const clock::time_point end = clock::now();
  // The op's own time is at least 20 ms, so the whole call lasts at least 2.5 times that, and
  // the wait comes after the op.
  EXPECT_GE(end - start, own * 5 / 2);
  EXPECT_GE(end - op_end, (op_end - start) * 3 / 2 - std::chrono::microseconds(100));
}

}  // namespace
