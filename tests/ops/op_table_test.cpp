// The op table (op_case.h) on every backend: one test per (backend, op) running each of the op's
// cases, so a backend's programs are built once per process. Every op of Backend must have a
// case, and every case must reach the op it names. Under Oclgrind (scripts/oclgrind-ci.sh) a
// case also fails on any report the simulator logs while it runs.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <map>
#include <regex>
#include <set>
#include <tuple>

#include "models/ops/cpu/cpu_backend.h"
#include "tests/ops/op_case.h"
#include "tests/ops/recording_backend.h"
#include "tests/ops/simulator_log.h"
#include "tests/ops/test_backends.h"

namespace sb::testing {
namespace {

using Param = std::tuple<std::string, int>;  // backend, op

class OpTable : public ::testing::TestWithParam<Param> {};

// STAGEBENCH_OP_CASES=REGEX runs only the cases whose "op/case" it matches (regex_search), to
// reduce a failure to one case, or to time cases one by one.
bool case_selected(const OpCase& c) {
  static const char* env = std::getenv("STAGEBENCH_OP_CASES");
  if (env == nullptr || *env == '\0') return true;
  static const std::regex pattern(env);
  return std::regex_search(std::string(op_name(c.op)) + "/" + c.name, pattern);
}

// Launches per kernel so far, to tell which kernels a case ran.
std::map<std::string, uint64_t> launches(Backend& be) {
  std::map<std::string, uint64_t> out;
  if (KernelLog* log = be.kernel_log()) {
    log->drain();
    for (const auto& [name, totals] : log->kernels()) out[name] = totals.launches;
  }
  return out;
}

std::string joined(const std::set<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : " ") + n;
  return out;
}

// Under the simulator: fails `op_case` on every report it caused that no suppression covers,
// naming the kernels those reports name.
void expect_no_reports(const std::string& op_case, const std::string& log) {
  static const Suppressions suppressions;
  static const std::regex kernel(R"(Kernel: (\w+))");
  std::string failing;
  std::set<std::string> kernels;
  std::map<int, int> suppressed;  // by suppression line
  for (const SimulatorReport& r : split_reports(log)) {
    if (const int line = suppressions.match(op_case, r)) {
      ++suppressed[line];
      continue;
    }
    failing += "\n" + r.text;
    for (auto it = std::sregex_iterator(r.text.begin(), r.text.end(), kernel);
         it != std::sregex_iterator(); ++it)
      kernels.insert((*it)[1]);
  }
  for (const auto& [line, count] : suppressed)
    std::cout << "[SUPPRESSED] " << count << " reports on " << op_case << " ("
              << suppressions.path() << ":" << line << ")" << std::endl;
  EXPECT_TRUE(failing.empty()) << "Oclgrind reported on " << op_case << " (kernels: "
                               << (kernels.empty() ? "none named" : joined(kernels))
                               << "):" << excerpt(failing);
}

TEST_P(OpTable, MatchesTheReference) {
  const auto& [backend, index] = GetParam();
  const Op op = static_cast<Op>(index);
  std::string why;
  Backend* be = test_backend(backend, &why);
  if (be == nullptr) GTEST_SKIP() << why;
  const SimulatorLog simulator;
  if (static bool listed = false; simulator.active() && !listed) {
    // What the pass must see launched: scripts/oclgrind-ci.sh compares it with the CASE lines.
    const std::vector<std::string> kernels = program_kernels(*be);
    listed = !kernels.empty();
    if (listed)
      std::cout << "[ PROGRAM  ] " << joined({kernels.begin(), kernels.end()}) << std::endl;
  }
  int cases = 0, ran = 0;
  for (const OpCase& c : op_cases()) {
    if (c.op != op) continue;
    ++cases;
    if (!case_selected(c)) continue;
    if (c.needs) {
      if (const std::string reason = c.needs(*be); !reason.empty()) {
        std::cout << "[ SKIPPED  ] case " << c.name << ": " << reason << "\n";
        continue;
      }
    }
    SCOPED_TRACE("case " + c.name);
    ++ran;
    const uint64_t mark = simulator.mark();
    const auto before = launches(*be);
    const auto start = std::chrono::steady_clock::now();
    try {
      for (const Check& check : c.run(*be)) {
        const std::string failure = compare(check);
        EXPECT_TRUE(failure.empty()) << failure;
      }
      be->synchronize();                 // whatever the case queued has run before its log is read
    } catch (const std::exception& e) {  // named here, where the case is known
      ADD_FAILURE() << "threw: " << e.what();
    }
    if (!simulator.active()) continue;
    const std::string op_case = std::string(op_name(op)) + "/" + c.name;
    expect_no_reports(op_case, simulator.since(mark));
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - start);
    std::set<std::string> ran_kernels;
    for (const auto& [name, count] : launches(*be))
      if (count > (before.count(name) ? before.at(name) : 0)) ran_kernels.insert(name);
    std::cout << "[   CASE   ] " << op_case << " (" << ms.count() << " ms): " << joined(ran_kernels)
              << std::endl;
  }
  ASSERT_GT(cases, 0) << "no case covers " << op_name(op) << ": add one to the table";
  if (ran == 0)
    GTEST_SKIP() << "no case of " << op_name(op) << " ran: each needs what " << be->device()
                 << " lacks, or STAGEBENCH_OP_CASES left it out";
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
  // By the relative L2 error, a zero reference holds only an exact zero.
  EXPECT_EQ(compare({"y", {0.f, 0.f}, {0.0, 0.0}, Precision::f16}), "");
  EXPECT_NE(compare({"y", {0.f, 1e-9f}, {0.0, 0.0}, Precision::f16}), "");
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
