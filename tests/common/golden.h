#pragma once
// Golden-file comparison, one rule for every suite: the committed text at `path` must equal what
// the code renders; STAGEBENCH_UPDATE_GOLDEN=1 rewrites the file instead (review the diff, then
// commit).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace sb::testing {

inline bool updating_golden() {
  const char* update = std::getenv("STAGEBENCH_UPDATE_GOLDEN");
  return update && std::string(update) == "1";
}

inline void expect_golden_file(const std::string& path, const std::string& actual) {
  if (updating_golden()) {
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

}  // namespace sb::testing
