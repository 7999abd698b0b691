// The knob reader (models/ops/knobs.h): a knob's table, its value when unset or empty,
// and the std::invalid_argument a value outside the table throws, which the CLI reports as bad
// input (exit 2; harness/cli/app.cpp). No device: tests/ops/opencl_knobs_test.cpp checks that
// the backend's knobs refuse a bad value when it is made.
#include "models/ops/knobs.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "tests/ops/refusal.h"
#include "tests/ops/test_env.h"

namespace sb {
namespace {

enum class Mode : uint8_t { ring, lines, off };

Mode parse_mode(const char* value) {
  return parse_knob("STAGEBENCH_TEST_MODE", value, Mode::ring,
                    {{"ring", Mode::ring}, {"lines", Mode::lines}, {"off", Mode::off}});
}

using testing::refusal;

TEST(Knobs, ATableMapsEachNameToItsValue) {
  EXPECT_EQ(parse_mode("ring"), Mode::ring);
  EXPECT_EQ(parse_mode("lines"), Mode::lines);
  EXPECT_EQ(parse_mode("off"), Mode::off);
}

TEST(Knobs, UnsetOrEmptyGivesTheDefaultEvenWhenTheTableDoesNotNameIt) {
  EXPECT_EQ(parse_mode(nullptr), Mode::ring);
  EXPECT_EQ(parse_mode(""), Mode::ring);
  // STAGEBENCH_CONV_IGEMM_TILE's shape: unset means "no forced tile", a value no name gives.
  const auto tile = [](const char* v) {
    return parse_knob("STAGEBENCH_TEST_TILE", v, 0, {{"128", 128}, {"256", 256}});
  };
  EXPECT_EQ(tile(nullptr), 0);
  EXPECT_EQ(tile(""), 0);
  EXPECT_EQ(tile("256"), 256);
}

TEST(Knobs, AValueOutsideTheTableNamesTheVariableTheValueAndEveryName) {
  EXPECT_EQ(refusal([] { parse_mode("sideways"); }),
            "STAGEBENCH_TEST_MODE=sideways: expected ring, lines or off");
  // Names are matched whole and case and all: no prefix, no padding, no other case.
  for (const char* bad : {"Ring", "RING", "rin", "rings", " ring", "ring ", "1"})
    EXPECT_NE(refusal([bad] { parse_mode(bad); }), "") << "'" << bad << "' accepted";
  const auto two = [] {
    parse_knob("STAGEBENCH_TEST_TWO", "3", false, {{"1", true}, {"0", false}});
  };
  EXPECT_EQ(refusal(two), "STAGEBENCH_TEST_TWO=3: expected 1 or 0");
  const auto one = [] { parse_knob("STAGEBENCH_TEST_ONE", "no", true, {{"yes", true}}); };
  EXPECT_EQ(refusal(one), "STAGEBENCH_TEST_ONE=no: expected yes");
}

TEST(Knobs, OnOffTakesOnAndOffWithEitherDefault) {
  EXPECT_TRUE(parse_on_off_knob("STAGEBENCH_TEST_SWITCH", nullptr));
  EXPECT_TRUE(parse_on_off_knob("STAGEBENCH_TEST_SWITCH", ""));
  EXPECT_FALSE(parse_on_off_knob("STAGEBENCH_TEST_SWITCH", nullptr, false));
  EXPECT_FALSE(parse_on_off_knob("STAGEBENCH_TEST_SWITCH", "", false));
  EXPECT_TRUE(parse_on_off_knob("STAGEBENCH_TEST_SWITCH", "on", false));
  EXPECT_FALSE(parse_on_off_knob("STAGEBENCH_TEST_SWITCH", "off"));
  // auto is the kernel-path knobs' word (parse_auto_off_knob), not a plain switch's; 1 and 0
  // neither.
  for (const char* bad : {"auto", "1", "0", "true", "OFF"})
    EXPECT_EQ(refusal([bad] { parse_on_off_knob("STAGEBENCH_TEST_SWITCH", bad); }),
              std::string("STAGEBENCH_TEST_SWITCH=") + bad + ": expected on or off");
}

// The kernel-path knobs (gemm_path.h, conv_path.h): auto and on both leave the choice to the
// device and the call.
enum class PathKnob : uint8_t { automatic, off };

TEST(Knobs, AutoOffKnobsTakeAutoOrOnForTheAutomaticChoice) {
  for (const char* v : {static_cast<const char*>(nullptr), "", "auto", "on"})
    EXPECT_EQ(parse_auto_off_knob<PathKnob>("STAGEBENCH_TEST_PATH", v), PathKnob::automatic)
        << (v ? v : "unset");
  EXPECT_EQ(parse_auto_off_knob<PathKnob>("STAGEBENCH_TEST_PATH", "off"), PathKnob::off);
  EXPECT_EQ(refusal([] { parse_auto_off_knob<PathKnob>("STAGEBENCH_TEST_PATH", "1"); }),
            "STAGEBENCH_TEST_PATH=1: expected auto, on or off");
}

constexpr const char* kVariable = "STAGEBENCH_TEST_KNOBS_READER";

TEST(Knobs, ReadersTakeTheEnvironmentsValue) {
  ::unsetenv(kVariable);
  EXPECT_TRUE(read_on_off_knob(kVariable));
  EXPECT_EQ(read_knob(kVariable, Mode::lines, {{"off", Mode::off}}), Mode::lines);
  {
    const testing::ScopedEnv env(kVariable, "off");
    EXPECT_FALSE(read_on_off_knob(kVariable));
    EXPECT_EQ(read_knob(kVariable, Mode::lines, {{"off", Mode::off}}), Mode::off);
  }
  EXPECT_EQ(std::getenv(kVariable), nullptr);  // unset again, as it was
  const testing::ScopedEnv env(kVariable, "of");
  {
    const testing::ScopedEnv inner(kVariable, "on");
    EXPECT_TRUE(read_on_off_knob(kVariable));
  }  // the value it replaced comes back
  EXPECT_EQ(refusal([] { read_on_off_knob(kVariable); }),
            std::string(kVariable) + "=of: expected on or off");
}

TEST(Knobs, NumberKnobsTakeAPositiveNumberAndRefuseAnythingElse) {
  for (const char* v : {static_cast<const char*>(nullptr), ""})
    EXPECT_EQ(parse_positive_number_knob("STAGEBENCH_TEST_NUMBER", v, 0.0), 0.0);
  EXPECT_EQ(parse_positive_number_knob("STAGEBENCH_TEST_NUMBER", "2.5", 0.0), 2.5);
  EXPECT_EQ(parse_positive_number_knob("STAGEBENCH_TEST_NUMBER", "40", 0.0), 40.0);
  // atof read each of these as a number (0, 12, inf) and silently chose another path.
  for (const char* bad : {"abc", "12x", "0", "-3", "inf", "nan", "1e999", " "})
    EXPECT_EQ(
        refusal([bad] { parse_positive_number_knob("STAGEBENCH_TEST_NUMBER", bad, 1.0); }),
        std::string("STAGEBENCH_TEST_NUMBER=") + bad + ": expected a number greater than zero");
}

TEST(Knobs, CountKnobsTakeAWholePositiveNumber) {
  EXPECT_EQ(parse_positive_count_knob("STAGEBENCH_TEST_COUNT", nullptr, 1056), 1056);
  EXPECT_EQ(parse_positive_count_knob("STAGEBENCH_TEST_COUNT", "", 1056), 1056);
  EXPECT_EQ(parse_positive_count_knob("STAGEBENCH_TEST_COUNT", "264", 1056), 264);
  for (const char* bad : {"2.5", "abc", "0", "-1", "99999999999999999999", "7 "})
    EXPECT_EQ(refusal([bad] { parse_positive_count_knob("STAGEBENCH_TEST_COUNT", bad, 1); }),
              std::string("STAGEBENCH_TEST_COUNT=") + bad +
                  ": expected a whole number greater than zero");
  const testing::ScopedEnv env(kVariable, "12");
  EXPECT_EQ(read_positive_count_knob(kVariable, 1), 12);
  EXPECT_EQ(read_positive_number_knob(kVariable, 1.0), 12.0);
}

}  // namespace
}  // namespace sb
