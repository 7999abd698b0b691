// The journal: records round-trip, a torn last line is skipped and the next append starts a
// new line.
#include <gtest/gtest.h>

#include <fstream>

#include "harness/journal.h"
#include "tests/common/temp_dir.h"

namespace sb {
namespace {

// The smallest valid stagebench/1 run, told apart by params.n: a complete one, or a snapshot.
nlohmann::json run_n(int n, bool complete = true) {
  return {{"model", "m"},         {"size", "tiny"},
          {"backend", "cpu"},     {"device", "cpu"},
          {"mode", "inference"},  {"params", {{"n", n}}},
          {"complete", complete}, {"stages", nlohmann::json::array()}};
}

// The stub of a job that measured nothing.
nlohmann::json failed_run(int n) {
  nlohmann::json run = run_n(n);
  run["status"] = "failed";
  run["reason"] = "device lost";
  return run;
}

TEST(Journal, RecordsRoundTrip) {
  testing::TempDir dir;
  const auto path = dir.file("j.jsonl");
  {
    JournalWriter w(path);
    w.append({{"type", "start"}, {"jobs", {"a", "b"}}});
    w.append({{"type", "partial"}, {"key", "a"}, {"run", run_n(1, false)}});
    w.append({{"type", "complete"}, {"key", "a"}, {"run", run_n(2)}});
    w.append({{"type", "partial"}, {"key", "b"}, {"run", run_n(3, false)}});
    w.append({{"type", "partial"}, {"key", "c"}, {"run", run_n(4, false)}});
    w.append({{"type", "failed"}, {"key", "c"}, {"run", failed_run(5)}});
  }
  const JournalContents j = read_journal(path);
  EXPECT_TRUE(j.warnings.empty());
  ASSERT_EQ(j.starts.size(), 1u);
  ASSERT_EQ(j.complete.size(), 1u);
  EXPECT_EQ(j.complete.at("a")["params"]["n"], 2);
  EXPECT_EQ(j.complete_count.at("a"), 1u);
  EXPECT_EQ(j.partial.at("b")["params"]["n"], 3);
  // The sweep's own failed records are read (they were "unknown or incomplete", issue 29); a
  // key's last unfinished record is the one kept.
  EXPECT_EQ(j.failed.at("c")["params"]["n"], 5);
  EXPECT_EQ(j.partial.count("c"), 0u);
  EXPECT_EQ(j.lines, 6u);
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

// Records that cannot be what their type says: a "complete" record of a snapshot was taken as
// done (issue 29), a "partial" one of a finished run, a "failed" one of a measured run.
TEST(Journal, RecordsWhoseRunContradictsTheirTypeAreSkipped) {
  testing::TempDir dir;
  const auto path = dir.file("j.jsonl");
  {
    JournalWriter w(path);
    w.append({{"type", "complete"}, {"key", "a"}, {"run", run_n(1)}});
    w.append({{"type", "complete"}, {"key", "a"}, {"run", run_n(2, false)}});
    w.append({{"type", "partial"}, {"key", "b"}, {"run", run_n(3, true)}});
    w.append({{"type", "failed"}, {"key", "c"}, {"run", run_n(4)}});
  }
  const JournalContents j = read_journal(path);
  EXPECT_EQ(j.complete.at("a")["params"]["n"], 1) << "the earlier complete record stands";
  EXPECT_EQ(j.complete_count.at("a"), 1u);
  EXPECT_TRUE(j.partial.empty());
  EXPECT_TRUE(j.failed.empty());
  ASSERT_EQ(j.warnings.size(), 3u);
  EXPECT_NE(j.warnings[0].find("j.jsonl:2: complete record of a holds a run whose \"complete\" is "
                               "false, not true, skipped"),
            std::string::npos)
      << j.warnings[0];
  EXPECT_NE(j.warnings[1].find("j.jsonl:3"), std::string::npos) << j.warnings[1];
  EXPECT_NE(j.warnings[2].find("j.jsonl:4: failed record of c holds a run without \"status\""),
            std::string::npos)
      << j.warnings[2];
}

// A record naming a key twice ("type": "partial", then "type": "complete") read as its last.
TEST(Journal, ALineNamingAKeyTwiceIsSkipped) {
  testing::TempDir dir;
  const auto path = dir.file("j.jsonl");
  nlohmann::json rec = {{"key", "a"}, {"run", run_n(1, false)}};
  std::string line = rec.dump();
  line.insert(1, R"("type": "partial", "type": "complete", )");
  std::ofstream(path) << line << "\n";
  const JournalContents j = read_journal(path);
  EXPECT_TRUE(j.complete.empty());
  EXPECT_TRUE(j.partial.empty());
  ASSERT_EQ(j.warnings.size(), 1u);
  EXPECT_NE(j.warnings[0].find("j.jsonl:1: duplicate key \"type\""), std::string::npos)
      << j.warnings[0];
}

// The caller's check (the sweep's: is this run its key's job's?) skips a record like a torn line.
TEST(Journal, ACheckRefusingARecordSkipsIt) {
  testing::TempDir dir;
  const auto path = dir.file("j.jsonl");
  {
    JournalWriter w(path);
    w.append({{"type", "complete"}, {"key", "a"}, {"run", run_n(1)}});
    w.append({{"type", "complete"}, {"key", "a"}, {"run", run_n(2)}});
  }
  const JournalContents j =
      read_journal(path, [](const std::string&, const nlohmann::json& run) -> std::string {
        return run["params"]["n"] == 2 ? "is not its job's" : "";
      });
  EXPECT_EQ(j.complete.at("a")["params"]["n"], 1);
  ASSERT_EQ(j.warnings.size(), 1u);
  EXPECT_NE(j.warnings[0].find("j.jsonl:2: complete record of a is not its job's, skipped"),
            std::string::npos)
      << j.warnings[0];
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
