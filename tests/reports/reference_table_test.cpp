// "PyTorch on this machine" under the ladder: the rows `stagebench peer`'s block adds to the
// Markdown and HTML reports, golden-tested on tests/reports/fixtures/reference.json (the ladder
// fixture after peer with canned variants, pinned by tests/cli/peer_cli_test.cpp), and the ratios
// to our stage 0 and fastest stage.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "reports/reference_table.h"
#include "reports/report.h"
#include "schema/document.h"
#include "tests/common/golden.h"

namespace {

nlohmann::json reference_fixture() {
  std::ifstream in(std::string(SB_REPORTS_TEST_DIR) + "/fixtures/reference.json");
  return nlohmann::json::parse(in);
}

TEST(ReferenceTable, FixtureIsAValidDocument) {
  EXPECT_TRUE(sb::validate_document(reference_fixture()).empty());
}

TEST(ReferenceTable, Markdown) {
  sb::testing::expect_golden_file(SB_REPORTS_TEST_DIR "/golden/report_reference.md",
                                  sb::report_markdown({{"reference.json", reference_fixture()}}));
}

TEST(ReferenceTable, HtmlRowsUnderTheLadder) {
  const std::string html = sb::report_html({{"reference.json", reference_fixture()}});
  // The reference tables of both runs, from the heading to the end of the notes.
  std::string fragments;
  for (size_t at = html.find("<h4>PyTorch on this machine</h4>"); at != std::string::npos;
       at = html.find("<h4>PyTorch on this machine</h4>", at + 1)) {
    const size_t end = html.find("</ul>\n", at);
    ASSERT_NE(end, std::string::npos);
    fragments += html.substr(at, end + 6 - at);
    // Under the ladder: after the run's ladder table, before its charts.
    EXPECT_LT(html.rfind("<table class=\"ladder\">", at), at);
    EXPECT_GT(html.find("<div class=\"charts\">", at), end);
  }
  sb::testing::expect_golden_file(SB_REPORTS_TEST_DIR "/golden/report_reference.html", fragments);
}

TEST(ReferenceTable, RatiosAreOurTimeOverPyTorchs) {
  const nlohmann::json run = reference_fixture()["runs"][1];  // opencl: stage 0 about 87.5 ms
  const sb::ReferenceTable t = sb::reference_table(run);
  ASSERT_EQ(t.rows.size(), 4u);
  const double stage0 = run["stages"][0]["time"]["median_ms"].get<double>();
  // Our best is the fastest ok stage: fp16, not the faster int8 that failed its check.
  const double best = run["stages"][3]["time"]["median_ms"].get<double>();
  EXPECT_EQ(t.best_stage, "fp16");
  EXPECT_EQ(t.rows[0].label, "PyTorch on this machine: fp32-eager");
  EXPECT_DOUBLE_EQ(t.rows[0].vs_stage0, stage0 / 42.5);
  EXPECT_DOUBLE_EQ(t.rows[0].vs_best, best / 42.5);
  EXPECT_EQ(t.rows[3].status, "failed");
  EXPECT_TRUE(std::isnan(t.rows[3].vs_stage0));
}

TEST(ReferenceTable, NoBlockNoRows) {
  nlohmann::json run = reference_fixture()["runs"][0];
  run.erase("reference");
  EXPECT_TRUE(sb::reference_table(run).rows.empty());
  EXPECT_EQ(sb::reference_table_text(run), "");
  // A malformed block shows what is well-formed and never throws.
  run["reference"] = {{"variants", {{{"name", "x"}, {"median_ms", "fast"}}, 7}}};
  EXPECT_EQ(sb::reference_table(run).rows.size(), 1u);
  EXPECT_FALSE(
      sb::validate_document(
          {{"schema", "stagebench/1"}, {"context", nlohmann::json::object()}, {"runs", {run}}})
          .empty());
}

}  // namespace
