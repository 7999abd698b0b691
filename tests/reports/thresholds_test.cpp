// The thresholds file: good rules parse into what they say, bad ones fail naming the line.
#include <gtest/gtest.h>

#include "reports/thresholds.h"

namespace {

std::string error_of(const std::string& text) {
  try {
    sb::parse_thresholds(text);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(Thresholds, GoodRules) {
  const auto rules = sb::parse_thresholds(
      "# gate for the nightly run\n"
      "\n"
      "enformer/cpu/*/time: +5%\n"
      "*/*/*/cosine: >= 0.9999   # any stage\n"
      "enformer/*/graph-compile/speedup_vs_baseline: >= 1.3\n"
      "enformer/*/graph-compile/speedup: -10%\n"
      "enformer/tiny/opencl/fused-*/memory: < 2e9\n"
      "  */*/*/throughput: 3%  \r\n");
  ASSERT_EQ(rules.size(), 6u);
  EXPECT_EQ(rules[0].line, 3);
  EXPECT_EQ(rules[0].text, "enformer/cpu/*/time: +5%");
  EXPECT_EQ(rules[0].model, "enformer");
  EXPECT_EQ(rules[0].size, "*");
  EXPECT_EQ(rules[0].backend, "cpu");
  EXPECT_EQ(rules[0].stage, "*");
  EXPECT_EQ(rules[0].metric, "time");
  EXPECT_EQ(rules[0].kind, sb::RuleKind::relative);
  EXPECT_DOUBLE_EQ(rules[0].value, 0.05);

  EXPECT_EQ(rules[1].kind, sb::RuleKind::at_least);
  EXPECT_FALSE(rules[1].strict);
  EXPECT_DOUBLE_EQ(rules[1].value, 0.9999);
  EXPECT_EQ(rules[1].text, "*/*/*/cosine: >= 0.9999");

  EXPECT_EQ(rules[2].metric, "speedup_vs_baseline");
  EXPECT_DOUBLE_EQ(rules[2].value, 1.3);
  EXPECT_EQ(rules[3].metric, "speedup_vs_baseline");  // "speedup" is an alias
  EXPECT_EQ(rules[3].kind, sb::RuleKind::relative);
  EXPECT_DOUBLE_EQ(rules[3].value, -0.10);  // signed in the direction that is worse

  EXPECT_EQ(rules[4].size, "tiny");
  EXPECT_EQ(rules[4].backend, "opencl");
  EXPECT_EQ(rules[4].kind, sb::RuleKind::at_most);
  EXPECT_TRUE(rules[4].strict);
  EXPECT_DOUBLE_EQ(rules[4].value, 2e9);

  EXPECT_EQ(rules[5].line, 8);
  EXPECT_DOUBLE_EQ(rules[5].value, -0.03);  // unsigned: the worse direction of throughput

  EXPECT_TRUE(sb::rule_matches(rules[4], "enformer", "tiny", "opencl", "fused-gelu", "memory"));
  EXPECT_FALSE(sb::rule_matches(rules[4], "enformer", "base", "opencl", "fused-gelu", "memory"));
  EXPECT_FALSE(sb::rule_matches(rules[4], "enformer", "tiny", "opencl", "original", "memory"));
  EXPECT_FALSE(sb::rule_matches(rules[4], "enformer", "tiny", "opencl", "fused-gelu", "time"));
  EXPECT_TRUE(sb::parse_thresholds("").empty());
  EXPECT_TRUE(sb::parse_thresholds("# only a comment").empty());
}

TEST(Thresholds, BadRulesNameTheLine) {
  struct Case {
    std::string text, needle;
  };
  for (const Case& c : {
           Case{"enformer/cpu/*/time +5%",
                "line 1: expected 'model/backend/stage/metric: threshold'"},
           Case{"# c\nenformer/cpu/time: +5%", "line 2: pattern 'enformer/cpu/time' has 3 fields"},
           Case{"\n\n*/*/*/tim: +5%", "line 3: unknown metric 'tim'"},
           Case{"*/*/*/time: fast", "line 1: bad threshold 'fast'"},
           Case{"*/*/*/time: -5%", "line 1: time gets worse upward: write +5%, not -5%"},
           Case{"*/*/*/speedup: +5%", "line 1: speedup_vs_baseline gets worse downward"},
           Case{"*/*/*/cosine: >= abc", "line 1: bad number 'abc'"},
           Case{"*/*/*/cosine: >= 1e999", "line 1: bad number '1e999'"},
           Case{"*/*/*/cosine:", "line 1: missing threshold"},
           Case{"*//*/cosine: >= 1", "line 1: empty field"},
           Case{"*/*/*/time: +5e9%", "out of range"},
           Case{"*/*/*/*: +5%", "unknown metric '*'"},
       }) {
    const std::string e = error_of(c.text);
    EXPECT_NE(e.find(c.needle), std::string::npos) << c.text << " -> " << e;
  }
}

TEST(Thresholds, GlobMatch) {
  EXPECT_TRUE(sb::glob_match("*", ""));
  EXPECT_TRUE(sb::glob_match("*", "anything"));
  EXPECT_TRUE(sb::glob_match("fused-*", "fused-gelu"));
  EXPECT_TRUE(sb::glob_match("*-compile", "graph-compile"));
  EXPECT_TRUE(sb::glob_match("a*b*c", "axxbyyc"));
  EXPECT_FALSE(sb::glob_match("a*b*c", "axxbyy"));
  EXPECT_FALSE(sb::glob_match("cpu", "opencl"));
  EXPECT_FALSE(sb::glob_match("fused-*", "fused"));
  // Pathological patterns stay fast (no exponential backtracking).
  EXPECT_FALSE(sb::glob_match(std::string(200, '*') + "b", std::string(5000, 'a')));
}

}  // namespace
