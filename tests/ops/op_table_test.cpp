// The op table (op_case.h) on every backend: one test per (backend, op) running each of the op's
// cases, so a backend's programs are built once per process. Every op of Backend must have a
// case, and every case must reach the op it names.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <set>
#include <tuple>

#include "models/ops/cpu/cpu_backend.h"
#include "tests/ops/op_case.h"
#include "tests/ops/recording_backend.h"
#include "tests/ops/test_backends.h"

namespace sb::testing {
namespace {

using Param = std::tuple<std::string, int>;  // backend, op

class OpTable : public ::testing::TestWithParam<Param> {};

TEST_P(OpTable, MatchesTheReference) {
  const auto& [backend, index] = GetParam();
  const Op op = static_cast<Op>(index);
  std::string why;
  Backend* be = test_backend(backend, &why);
  if (be == nullptr) GTEST_SKIP() << why;
  int cases = 0, ran = 0;
  for (const OpCase& c : op_cases()) {
    if (c.op != op) continue;
    ++cases;
    if (c.needs) {
      if (const std::string reason = c.needs(*be); !reason.empty()) {
        std::cout << "[ SKIPPED  ] case " << c.name << ": " << reason << "\n";
        continue;
      }
    }
    SCOPED_TRACE("case " + c.name);
    ++ran;
    for (const Check& check : c.run(*be)) {
      const std::string failure = compare(check);
      EXPECT_TRUE(failure.empty()) << failure;
    }
  }
  ASSERT_GT(cases, 0) << "no case covers " << op_name(op) << ": add one to the table";
  if (ran == 0)
    GTEST_SKIP() << "every case of " << op_name(op) << " needs what " << be->device() << " lacks";
}

std::vector<Param> params() {
  std::vector<Param> p;
  for (const std::string& backend : backend_names())
    for (int op = 0; op < kOpCount; ++op) p.emplace_back(backend, op);
  return p;
}

INSTANTIATE_TEST_SUITE_P(Backends, OpTable, ::testing::ValuesIn(params()),
                         [](const ::testing::TestParamInfo<Param>& info) {
                           return std::get<0>(info.param) + "_" +
                                  std::string(op_name(static_cast<Op>(std::get<1>(info.param))));
                         });

// Names are the tests' suffixes: unique within their op, and gtest-friendly.
TEST(OpTableCoverage, CaseNamesAreUniquePerOp) {
  std::set<std::pair<Op, std::string>> seen;
  for (const OpCase& c : op_cases()) {
    EXPECT_TRUE(seen.emplace(c.op, c.name).second) << op_name(c.op) << " " << c.name;
    EXPECT_EQ(c.name.find_first_of(" /"), std::string::npos) << c.name;
  }
}

TEST(OpTableCoverage, CompareFlagsWhatIsOutOfTolerance) {
  EXPECT_EQ(compare({"y", {1.f, 2.f}, {1.0, 2.00001}}), "");
  EXPECT_NE(compare({"y", {1.f, 2.f}, {1.0, 2.001}}), "");
  EXPECT_NE(compare({"y", {1.f, std::nanf("")}, {1.0, 2.0}}), "");
  EXPECT_NE(compare({"y", {1.f}, {1.0, 2.0}}), "");
  EXPECT_EQ(compare({"y", {1.f, 2.f}, {1.0, 2.01}, Precision::f16}), "");
  EXPECT_NE(compare({"y", {1.f, 2.f}, {1.0, 2.1}, Precision::f16}), "");
}

// Run through a recording backend, every case must reach the op it names (on the cpu backend,
// which runs every precision it supports; a case it cannot run is reported, not checked).
TEST(OpTableCoverage, EveryCaseReachesItsOp) {
  std::unique_ptr<Backend> cpu = make_cpu_backend();
  RecordingBackend recording(*cpu);
  std::set<Op> covered;
  for (const OpCase& c : op_cases()) {
    if (c.needs && !c.needs(recording).empty()) continue;
    recording.clear();
    c.run(recording);
    EXPECT_TRUE(recording.reached().count(c.op))
        << "case " << op_name(c.op) << "/" << c.name << " never reaches " << op_name(c.op);
    covered.insert(c.op);
  }
  for (int op = 0; op < kOpCount; ++op)
    EXPECT_TRUE(covered.count(static_cast<Op>(op)))
        << "no case runs " << op_name(static_cast<Op>(op)) << " on the cpu backend";
}

}  // namespace
}  // namespace sb::testing
