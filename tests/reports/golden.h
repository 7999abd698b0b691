#pragma once
// Golden-file comparison: the committed text under tests/reports/golden/ must equal what the code
// renders; STAGEBENCH_UPDATE_GOLDEN=1 rewrites the file instead (review the diff, then commit).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace sb::test {

inline void expect_golden(const std::string& name, const std::string& actual) {
  const std::string path = std::string(SB_REPORTS_TEST_DIR) + "/golden/" + name;
  const char* update = std::getenv("STAGEBENCH_UPDATE_GOLDEN");
  if (update && std::string(update) == "1") {
    std::ofstream(path, std::ios::binary) << actual;
    GTEST_SKIP() << "rewrote " << path;
  }
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << "missing golden file " << path << " (run with STAGEBENCH_UPDATE_GOLDEN=1)";
  std::ostringstream expected;
  expected << in.rdbuf();
  EXPECT_EQ(actual, expected.str())
      << "rendered text differs from " << path << " (STAGEBENCH_UPDATE_GOLDEN=1 rewrites it)";
}

}  // namespace sb::test
