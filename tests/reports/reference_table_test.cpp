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

// A training run whose peer timed the inference forward too (DynUNet's): a second table, its
// ratios to our stages' inference figures (summaries.inference), our best the fastest of a stage
// that passed, not the failed int8's.
nlohmann::json with_inference(nlohmann::json run) {
  const double ms[] = {8.0, 6.0, 5.0, 4.0, 2.0};  // per stage; int8 (invalid) the fastest
  for (size_t i = 0; i < run["stages"].size(); ++i)
    run["stages"][i]["summaries"] = {{"inference", {{"median_ms", ms[i]}, {"samples", 50}}}};
  run["reference"]["inference"] = {
      {"name", "PyTorch on this machine"},
      {"torch", "2.5.1+cu124"},
      {"device", "NVIDIA H100 80GB HBM3"},
      {"script", "scripts/reference/enformer_torch.py"},
      {"timing", "one no_grad forward, median of 50"},
      {"best", "compile"},
      {"variants",
       {{{"name", "fp32-eager"}, {"median_ms", 16.0}, {"samples", 50}, {"correct", true}},
        {{"name", "compile"}, {"median_ms", 5.0}, {"samples", 50}, {"correct", true}},
        {{"name", "cuda-graph"}, {"error", "not run: the peer's --deadline-s 9 was spent"}}}}};
  return run;
}

TEST(ReferenceTable, InferenceSectionBesideOurInferenceFigures) {
  const nlohmann::json run = with_inference(reference_fixture()["runs"][1]);
  const sb::ReferenceTable t = sb::reference_inference_table(run);
  EXPECT_EQ(t.section, "inference");
  EXPECT_EQ(t.best, "compile");
  EXPECT_EQ(t.best_stage, "fp16");
  ASSERT_EQ(t.rows.size(), 3u);
  EXPECT_EQ(t.rows[1].label, "PyTorch on this machine: compile (best)");
  EXPECT_DOUBLE_EQ(t.rows[1].vs_best, 4.0 / 5.0);  // ours 4 ms against PyTorch's 5
  EXPECT_DOUBLE_EQ(t.rows[0].vs_stage0, 8.0 / 16.0);
  EXPECT_EQ(t.rows[2].status, "failed");
  // The training table is unchanged by the section: its ratios stay the step times'.
  EXPECT_DOUBLE_EQ(sb::reference_table(run).rows[0].vs_best,
                   run["stages"][3]["time"]["median_ms"].get<double>() / 42.5);
  sb::testing::expect_golden_file(SB_REPORTS_TEST_DIR "/golden/reference_inference.md",
                                  sb::reference_table_text(run));
  EXPECT_NE(sb::reference_table_text(run).find("#### PyTorch on this machine: inference"),
            std::string::npos);
  // Without the section there is no second table.
  EXPECT_EQ(sb::reference_table_text(reference_fixture()["runs"][1])
                .find("#### PyTorch on this machine: inference"),
            std::string::npos);
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
