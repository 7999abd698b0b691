// The Markdown and CSV reports of a fixed document against committed golden text, and the
// properties the golden files stand for (columns, verdicts, reasons). The golden tests read the
// committed fixtures/ladder.json (written once from fixture.h): parsed numbers are exact on every
// machine, whereas numbers computed at test time may differ in the last bit (FMA contraction).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <optional>

#include "schema/document.h"

#include "reports/ladder_table.h"
#include "reports/report.h"
#include "reports/report_summary.h"
#include "reports/stage_row.h"
#include "tests/common/golden.h"
#include "tests/reports/fixture.h"

namespace {

nlohmann::json committed_fixture() {
  std::ifstream in(std::string(SB_REPORTS_TEST_DIR) + "/fixtures/ladder.json");
  return nlohmann::json::parse(in);
}

std::vector<sb::ReportInput> fixture_inputs() {
  return {{"fixture.json", committed_fixture()}};
}

// A hand-written training run (deepfm, "mode": "train"): training stages with step phases and a
// memory split in their summaries and the loss-curve check, one stage failing it, a skipped
// stage, and a data-phase stage without phases.
nlohmann::json train_fixture() {
  std::ifstream in(std::string(SB_REPORTS_TEST_DIR) + "/fixtures/train.json");
  return nlohmann::json::parse(in);
}

std::vector<sb::ReportInput> train_inputs() {
  return {{"train.json", train_fixture()}};
}

TEST(ReportGolden, FixtureIsAValidDocument) {
  EXPECT_TRUE(sb::validate_document(committed_fixture()).empty());
}

TEST(ReportGolden, Markdown) {
  sb::testing::expect_golden_file(SB_REPORTS_TEST_DIR "/golden/report.md",
                                  sb::report_markdown(fixture_inputs()));
}

TEST(ReportGolden, Csv) {
  sb::testing::expect_golden_file(SB_REPORTS_TEST_DIR "/golden/report.csv",
                                  sb::report_csv(fixture_inputs()));
}

TEST(ReportGolden, TrainFixtureIsAValidDocument) {
  EXPECT_TRUE(sb::validate_document(train_fixture()).empty());
}

TEST(ReportGolden, TrainMarkdown) {
  sb::testing::expect_golden_file(SB_REPORTS_TEST_DIR "/golden/report_train.md",
                                  sb::report_markdown(train_inputs()));
}

TEST(ReportGolden, TrainCsv) {
  sb::testing::expect_golden_file(SB_REPORTS_TEST_DIR "/golden/report_train.csv",
                                  sb::report_csv(train_inputs()));
}

// The main job's closing lines (scripts/run-default.sh): the ladder and the training fixture.
TEST(ReportGolden, Summary) {
  std::vector<sb::ReportInput> inputs = fixture_inputs();
  inputs.push_back(train_inputs().front());
  sb::testing::expect_golden_file(SB_REPORTS_TEST_DIR "/golden/report_summary.txt",
                                  sb::report_summary(inputs));
}

TEST(Report, SummaryNamesTheFastestStageThatStandsNotTheFastest) {
  nlohmann::json doc = committed_fixture();
  nlohmann::json& stages = doc["runs"][0]["stages"];
  // The fastest stage, made invalid, must give way to the fastest ok one.
  size_t fastest = 1;
  for (size_t i = 1; i < stages.size(); ++i)
    if (stages[i]["status"] == "ok" && stages[i]["speedup"]["vs_baseline"].is_number() &&
        stages[i]["speedup"]["vs_baseline"].get<double>() >
            stages[fastest]["speedup"]["vs_baseline"].get<double>())
      fastest = i;
  const std::string id = stages[fastest]["id"];
  const std::string before = sb::report_summary({{"f.json", doc}});
  ASSERT_NE(before.find("fastest ok: " + id + " "), std::string::npos) << before;
  stages[fastest]["status"] = "invalid";
  const std::string after = sb::report_summary({{"f.json", doc}});
  EXPECT_EQ(after.find("fastest ok: " + id + " "), std::string::npos) << after;
  stages[0]["status"] = "invalid";
  EXPECT_NE(sb::report_summary({{"f.json", doc}}).find("no speedup stands: stage 0"),
            std::string::npos);
}

TEST(Report, TrainingRunShowsPhasesAfterTheLadderAndTheLossCheck) {
  const std::string md = sb::report_markdown(train_inputs());
  const size_t ladder = md.find("| # | stage");
  const size_t phases = md.find("#### Training step phases");
  ASSERT_NE(phases, std::string::npos) << md;
  EXPECT_LT(ladder, phases);
  for (const char* needle :
       {"### deepfm / tiny / cpu on Test CPU (2 threads) (train)", "loss Δ 0, cos 1.000000",
        "loss Δ 3.2e-6, cos 0.999999", "loss Δ 0.05, cos 0.999100 FAIL", "items: samples",
        "forward ms", "optimizer state MB", "4.10 (34%)",
        "amp: 2 of 120 steps skipped (loss scale "
        "65536)"})
    EXPECT_NE(md.find(needle), std::string::npos) << needle << "\n" << md;
  // Only training stages with phases get a row: not the skipped one, not the data phase.
  const std::string table = md.substr(phases);
  EXPECT_EQ(table.find("| autotune"), std::string::npos) << table;
  EXPECT_EQ(table.find("| preprocess"), std::string::npos) << table;
}

TEST(Report, InferenceRunsHaveNoPhasesAndNoTrainingCsvSection) {
  EXPECT_EQ(sb::report_markdown(fixture_inputs()).find("Training step phases"), std::string::npos);
  const std::string csv = sb::report_csv(fixture_inputs());
  EXPECT_EQ(csv.find("\n\n"), std::string::npos);
  EXPECT_EQ(csv.find("forward_ms"), std::string::npos);
}

TEST(Report, TrainCsvHasASecondSectionWithOneRowPerTrainingStage) {
  const std::string csv = sb::report_csv(train_inputs());
  const size_t gap = csv.find("\n\n");
  ASSERT_NE(gap, std::string::npos) << csv;
  const std::string section = csv.substr(gap + 2);
  size_t lines = 0;
  for (char c : section) lines += c == '\n';
  EXPECT_EQ(lines, 1u + 4);  // header + baseline, vectorized-fm, preallocated-loss, amp
  std::string header;
  for (const std::string& c : sb::report_csv_train_columns())
    header += (header.empty() ? "" : ",") + c;
  EXPECT_EQ(section.rfind(header + "\n", 0), 0u) << section;
  for (const char* c : {"data_ms", "optimizer_ms", "step_ms", "forward_share", "parameters_bytes",
                        "optimizer_state_bytes", "activations_bytes", "loss_max_rel",
                        "loss_tolerance", "skipped_steps"})
    EXPECT_NE(
        std::find(sb::report_csv_train_columns().begin(), sb::report_csv_train_columns().end(), c),
        sb::report_csv_train_columns().end())
        << c;
  // The first section is the usual one: a row per stage, the same columns.
  EXPECT_EQ(csv.rfind(sb::report_csv_columns().front() + ",", 0), 0u);
}

TEST(Report, MarkdownShowsWhatTheDocumentsShow) {
  const std::string md = sb::report_markdown(fixture_inputs());
  for (const char* needle :
       {"## fixture.json", "### enformer / tiny / cpu on Test CPU (2 threads)", "ours [95% CI]",
        "vs prev", "host RSS", "model peak", "items/s", "GFLOP/s", "of peak", "cosine", "claimed",
        "confirmed", "skipped: no fp16 on the cpu backend",
        "int8: invalid: correctness: cosine 0.98000000 < 0.99 (int8)", "FAIL",
        "graph-compile claim (seed 000)"})
    EXPECT_NE(md.find(needle), std::string::npos) << needle << "\n" << md;
  EXPECT_EQ(sb::render_report(fixture_inputs(), sb::ReportFormat::markdown), md);
}

TEST(Report, CsvHasOneRowPerStageAndStableColumns) {
  const std::string csv = sb::report_csv(fixture_inputs());
  size_t lines = 0;
  for (char c : csv) lines += c == '\n';
  EXPECT_EQ(lines, 1u + 2 * 5);  // header + two runs of five stages
  const auto& cols = sb::report_csv_columns();
  ASSERT_GE(cols.size(), 20u);
  EXPECT_EQ(cols.front(), "file");
  for (const char* c :
       {"median_ms", "speedup", "speedup_ci95_lo", "speedup_vs_previous", "host_rss_bytes",
        "model_peak_bytes", "items_per_s", "gflops", "roofline_frac", "cosine", "claim_speedup",
        "claim_verdict", "status", "reason"})
    EXPECT_NE(std::find(cols.begin(), cols.end(), c), cols.end()) << c;
}

TEST(Report, CsvQuotesCellsWithCommasQuotesAndNewlines) {
  nlohmann::json doc = sb::test::fixture_document();
  doc["runs"][0]["stages"][1]["id"] = "a,\"b\"\nc";
  const std::string csv = sb::report_csv({{"f.json", doc}});
  EXPECT_NE(csv.find("\"a,\"\"b\"\"\nc\""), std::string::npos) << csv;
}

TEST(Report, ModelPeakIsDeviceOnOpenClAndHostTensorsOnCpu) {
  const std::string csv = sb::report_csv(fixture_inputs());
  EXPECT_NE(csv.find(",22257536,host tensors,"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",22257536,device,"), std::string::npos) << csv;
}

TEST(Report, FormatNames) {
  EXPECT_EQ(sb::parse_report_format("md"), sb::ReportFormat::markdown);
  EXPECT_EQ(sb::parse_report_format("csv"), sb::ReportFormat::csv);
  EXPECT_EQ(sb::parse_report_format("html"), sb::ReportFormat::html);
  EXPECT_THROW(sb::parse_report_format("pdf"), std::invalid_argument);
}

TEST(Report, ClaimVerdictUsesTheInterval) {
  nlohmann::json s = {
      {"status", "ok"}, {"claim", {{"speedup", 2.0}}}, {"speedup", {{"ci95", {1.5, 1.9}}}}};
  // 2.0x widens to [1.8, 2.2].
  s["speedup"]["ci95"] = {1.5, 1.7};
  EXPECT_EQ(sb::claim_verdict(s, 1), "not reproduced (below)");
  s["speedup"]["ci95"] = {1.9, 2.1};
  EXPECT_EQ(sb::claim_verdict(s, 1), "confirmed");
  s["speedup"]["ci95"] = {2.3, 2.5};
  EXPECT_EQ(sb::claim_verdict(s, 1), "not reproduced (above)");
  // An interval that meets the claim but is not inside it is not a confirmation.
  s["speedup"]["ci95"] = {1.5, 1.9};
  EXPECT_EQ(sb::claim_verdict(s, 1), "inconclusive");
  s["speedup"]["ci95"] = {0.82, 2.1};  // wide: it holds the claim and much below it
  EXPECT_EQ(sb::claim_verdict(s, 1), "inconclusive");
  s["speedup"]["ci95"] = {1.9, 2.3};
  EXPECT_EQ(sb::claim_verdict(s, 1), "inconclusive");
  s["speedup"]["ci95"] = nullptr;
  EXPECT_EQ(sb::claim_verdict(s, 1), "");
}

// A claim given as a range is judged against the widened range: confirmed when the interval
// lies inside it.
TEST(Report, ClaimVerdictOnARange) {
  struct Case {
    std::string text;
    double speedup, lo, hi;
    std::string verdict;
  };
  for (const Case& c : {
           Case{"TensorRT FP16 3-6x, memory 35-50%", 3.0, 4.0, 4.4, "confirmed"},
           // 3-6x widens to [2.7, 6.6].
           Case{"TensorRT FP16 3-6x, memory 35-50%", 3.0, 5.8, 6.5, "confirmed"},
           Case{"TensorRT FP16 3-6x, memory 35-50%", 3.0, 5.8, 7.0, "inconclusive"},
           Case{"TensorRT FP16 3-6x, memory 35-50%", 3.0, 6.8, 7.0, "not reproduced (above)"},
           Case{"TensorRT FP16 3-6x, memory 35-50%", 3.0, 2.0, 2.6, "not reproduced (below)"},
           Case{"TensorRT FP16 3-6x, memory 35-50%", 3.0, 2.0, 2.9, "inconclusive"},
           Case{"ONNX Runtime 1.5-3x, memory 80-90%", 1.5, 2.5, 2.7, "confirmed"},
           // 10-15% faster: 1.10-1.15x widens to [1.05, 1.265] (half the gain below, not 10%).
           Case{"~10-15% faster forward pass", 1.10, 1.13, 1.14, "confirmed"},
           Case{"~10-15% faster forward pass", 1.10, 1.16, 1.20, "confirmed"},
           Case{"~10-15% faster forward pass", 1.10, 1.27, 1.30, "not reproduced (above)"},
           Case{"~10-15% faster forward pass", 1.10, 1.01, 1.04, "not reproduced (below)"},
           Case{"~10-15% faster forward pass", 1.10, 1.02, 1.08, "inconclusive"},
           Case{"throughput 300-600 samples/s", 3.0, 5.0, 5.5, "confirmed"},
           Case{"throughput 300-600 samples/s", 3.0, 6.7, 7.0, "not reproduced (above)"},
           Case{"2 to 4x", 2.0, 3.9, 4.3, "confirmed"},
           // A single figure stays a point; a range that does not start at the figure is not
           // the claim's (memory, another quantity).
           Case{"torch.compile: ~45%; all three: 1.76x total", 1.76, 1.8, 1.9, "confirmed"},
           Case{"torch.compile: ~45%; all three: 1.76x total", 1.76, 1.95, 2.0,
                "not reproduced (above)"},
           Case{"memory 80-90%", 1.5, 1.7, 1.8, "not reproduced (above)"},
       }) {
    const nlohmann::json s = {{"status", "ok"},
                              {"claim", {{"text", c.text}, {"speedup", c.speedup}}},
                              {"speedup", {{"ci95", {c.lo, c.hi}}}}};
    EXPECT_EQ(sb::claim_verdict(s, 2), c.verdict) << c.text << " [" << c.lo << ", " << c.hi << "]";
  }
  auto claim = [](const char* source, const char* text, std::optional<double> speedup) {
    sb::ClaimRecord c;
    c.source = source, c.text = text, c.speedup = speedup;
    return c;
  };
  const sb::ClaimRange r =
      sb::claim_range(claim("seed 003", "TensorRT FP16 3-6x, memory 35-50%", 3.0));
  EXPECT_DOUBLE_EQ(r.lo, 3.0);
  EXPECT_DOUBLE_EQ(r.hi, 6.0);
  const sb::ClaimRange pct =
      sb::claim_range(claim("seed 001", "~10-15% faster forward pass", 1.10));
  EXPECT_DOUBLE_EQ(pct.lo, 1.10);
  EXPECT_DOUBLE_EQ(pct.hi, 1.15);
  EXPECT_TRUE(std::isnan(sb::claim_range(claim("seed 001", "~20-30%", std::nullopt)).lo));
}

// Stage 0 is the reference and claims nothing; an invalid stage's speed is not a result.
TEST(Report, NoClaimVerdictForStageZeroOrAStageNotOk) {
  nlohmann::json s = {{"status", "ok"},
                      {"claim", {{"text", "baseline"}, {"speedup", 1.0}}},
                      {"speedup", {{"ci95", {0.99, 1.01}}}}};
  EXPECT_EQ(sb::claim_verdict(s, 0), "");
  EXPECT_EQ(sb::claim_verdict(s, 1), "confirmed");
  s["status"] = "invalid";
  EXPECT_EQ(sb::claim_verdict(s, 1), "");
  // In the rendered table: the fixture's stage 0 and its invalid int8 stage have claims.
  const std::string md = sb::report_markdown(fixture_inputs());
  EXPECT_EQ(md.find("| 3.50x   | not reproduced"), std::string::npos) << md;
  EXPECT_NE(md.find("| 3.50x   |"), std::string::npos) << md;
  EXPECT_EQ(md.find("| 1.00x   | confirmed"), std::string::npos) << md;
}

// A cumulative claim needs stage 0 ok and every step before it measured: otherwise the stage
// is not the documented combination and gets no verdict, with the reason in the notes.
TEST(Report, NoClaimVerdictWhenStageZeroOrAnEarlierStepIsMissing) {
  auto doc = fixture_inputs()[0].document;
  nlohmann::json& stages = doc["runs"][0]["stages"];  // original, fused-gelu, graph-compile, ...
  std::vector<std::string> ignored;
  auto verdict_of = [&](size_t i) {
    const sb::RunRecord run = sb::read_run(doc["runs"][0], "run", ignored);
    return sb::summarize_run(run).stages[i];
  };
  ASSERT_NE(verdict_of(2).claim_verdict, "");
  stages[1]["status"] = "skipped";
  EXPECT_EQ(verdict_of(2).claim_verdict, "");
  EXPECT_EQ(verdict_of(2).claim_unmet, "stage fused-gelu was skipped");
  stages[1]["status"] = "invalid";  // measured, only noisy: the step is in the stage
  EXPECT_NE(verdict_of(2).claim_verdict, "");
  stages[0]["status"] = "invalid";
  EXPECT_EQ(verdict_of(2).claim_verdict, "");
  EXPECT_EQ(verdict_of(2).claim_unmet, "stage 0 is invalid");
  const std::string md = sb::report_markdown({{"x.json", doc}});
  EXPECT_NE(md.find("(no verdict: stage 0 is invalid)"), std::string::npos) << md;
}

}  // namespace
