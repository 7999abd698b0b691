// The journal: records round-trip, a torn last line is skipped and the next append starts a
// new line.
#include <gtest/gtest.h>

#include <fstream>

#include "harness/journal.h"
#include "tests/common/temp_dir.h"

namespace sb {
namespace {

// The smallest valid stagebench/1 run, told apart by params.n.
nlohmann::json run_n(int n) {
  return {{"model", "m"},
          {"size", "tiny"},
          {"backend", "cpu"},
          {"device", "cpu"},
          {"mode", "inference"},
          {"params", {{"n", n}}},
          {"stages", nlohmann::json::array()}};
}

TEST(Journal, RecordsRoundTrip) {
  testing::TempDir dir;
  const auto path = dir.file("j.jsonl");
  {
    JournalWriter w(path);
    w.append({{"type", "start"}, {"jobs", {"a", "b"}}});
    w.append({{"type", "partial"}, {"key", "a"}, {"run", run_n(1)}});
    w.append({{"type", "complete"}, {"key", "a"}, {"run", run_n(2)}});
    w.append({{"type", "partial"}, {"key", "b"}, {"run", run_n(3)}});
  }
  const JournalContents j = read_journal(path);
  EXPECT_TRUE(j.warnings.empty());
  ASSERT_EQ(j.starts.size(), 1u);
  ASSERT_EQ(j.complete.size(), 1u);
  EXPECT_EQ(j.complete.at("a")["params"]["n"], 2);
  EXPECT_EQ(j.complete_count.at("a"), 1u);
  EXPECT_EQ(j.partial.at("b")["params"]["n"], 3);
}

TEST(Journal, MissingFileIsEmpty) {
  testing::TempDir dir;
  const JournalContents j = read_journal(dir.file("none.jsonl"));
  EXPECT_TRUE(j.complete.empty());
  EXPECT_TRUE(j.starts.empty());
}

TEST(Journal, TornLineIsSkippedAndTheNextRecordStartsANewLine) {
  testing::TempDir dir;
  const auto path = dir.file("j.jsonl");
  {
    JournalWriter w(path);
    w.append({{"type", "complete"}, {"key", "a"}, {"run", run_n(1)}});
  }
  std::ofstream(path, std::ios::app) << R"({"type": "complete", "key": "b", "ru)";  // a kill
  {
    JournalWriter w(path);
    w.append({{"type", "complete"}, {"key", "c"}, {"run", run_n(3)}});
  }
  const JournalContents j = read_journal(path);
  EXPECT_EQ(j.complete.count("a"), 1u);
  EXPECT_EQ(j.complete.count("b"), 0u);
  EXPECT_EQ(j.complete.count("c"), 1u) << "the record after the torn line survives";
  ASSERT_EQ(j.warnings.size(), 1u);
  EXPECT_NE(j.warnings[0].find("j.jsonl:2"), std::string::npos) << j.warnings[0];
}

// A "complete" record whose run is not a valid run (an empty object) used to make --resume
// finish at once and write an output that `report` rejects: it is skipped, so the job reruns.
TEST(Journal, InvalidRunIsSkippedWithItsLine) {
  testing::TempDir dir;
  const auto path = dir.file("j.jsonl");
  {
    JournalWriter w(path);
    w.append({{"type", "complete"}, {"key", "a"}, {"run", nlohmann::json::object()}});
    w.append({{"type", "complete"}, {"key", "b"}, {"run", run_n(2)}});
  }
  const JournalContents j = read_journal(path);
  EXPECT_EQ(j.complete.count("a"), 0u);
  EXPECT_EQ(j.complete.count("b"), 1u);
  ASSERT_EQ(j.warnings.size(), 1u);
  EXPECT_NE(j.warnings[0].find("j.jsonl:1"), std::string::npos) << j.warnings[0];
  EXPECT_NE(j.warnings[0].find("run.model: missing"), std::string::npos) << j.warnings[0];
}

// A line nested 100,000 deep crashed `sweep --resume` (stack overflow); it is skipped by name.
TEST(Journal, DeeplyNestedLineIsSkippedNotParsed) {
  testing::TempDir dir;
  const auto path = dir.file("j.jsonl");
  std::ofstream(path) << R"({"type": "complete", "key": "a", "run": )" << std::string(100000, '[')
                      << std::string(100000, ']') << "}\n";
  const JournalContents j = read_journal(path);
  EXPECT_TRUE(j.complete.empty());
  ASSERT_EQ(j.warnings.size(), 1u);
  EXPECT_NE(j.warnings[0].find("j.jsonl:1: nested deeper than"), std::string::npos)
      << j.warnings[0];
}

}  // namespace
}  // namespace sb
