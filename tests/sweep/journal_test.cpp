// The journal: records round-trip, a torn last line is skipped and the next append starts a
// new line.
#include <gtest/gtest.h>

#include <fstream>

#include "harness/journal.h"
#include "tests/common/temp_dir.h"

namespace sb {
namespace {

TEST(Journal, RecordsRoundTrip) {
  testing::TempDir dir;
  const auto path = dir.file("j.jsonl");
  {
    JournalWriter w(path);
    w.append({{"type", "start"}, {"jobs", {"a", "b"}}});
    w.append({{"type", "partial"}, {"key", "a"}, {"run", {{"n", 1}}}});
    w.append({{"type", "complete"}, {"key", "a"}, {"run", {{"n", 2}}}});
    w.append({{"type", "partial"}, {"key", "b"}, {"run", {{"n", 3}}}});
  }
  const JournalContents j = read_journal(path);
  EXPECT_TRUE(j.warnings.empty());
  ASSERT_EQ(j.starts.size(), 1u);
  ASSERT_EQ(j.complete.size(), 1u);
  EXPECT_EQ(j.complete.at("a")["n"], 2);
  EXPECT_EQ(j.complete_count.at("a"), 1u);
  EXPECT_EQ(j.partial.at("b")["n"], 3);
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
    w.append({{"type", "complete"}, {"key", "a"}, {"run", {{"n", 1}}}});
  }
  std::ofstream(path, std::ios::app) << R"({"type": "complete", "key": "b", "ru)";  // a kill
  {
    JournalWriter w(path);
    w.append({{"type", "complete"}, {"key", "c"}, {"run", {{"n", 3}}}});
  }
  const JournalContents j = read_journal(path);
  EXPECT_EQ(j.complete.count("a"), 1u);
  EXPECT_EQ(j.complete.count("b"), 0u);
  EXPECT_EQ(j.complete.count("c"), 1u) << "the record after the torn line survives";
  ASSERT_EQ(j.warnings.size(), 1u);
  EXPECT_NE(j.warnings[0].find("j.jsonl:2"), std::string::npos) << j.warnings[0];
}

}  // namespace
}  // namespace sb
