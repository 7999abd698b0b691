#include <gtest/gtest.h>

#include <QFile>
#include <QStandardItemModel>
#include <QTemporaryDir>

#include "fixture.h"
#include "gui/model/batch_series.h"
#include "gui/model/context_summary.h"
#include "gui/model/document.h"
#include "gui/model/histogram.h"
#include "gui/model/table_export.h"

namespace sb::viewer {
namespace {

bool any_starts_with(const QStringList& list, const QString& prefix) {
  for (const QString& s : list)
    if (s.startsWith(prefix)) return true;
  return false;
}

TEST(ContextSummary, WarnsAboutMissingPmuAndInvalidStages) {
  const auto doc = test::document_record(test::fixture_json("two_backends.json"));
  const ContextSummary s = summarize_context(doc, doc.runs[0]);
  EXPECT_TRUE(any_starts_with(s.warnings, "no hardware PMU: PAPI_TOT_CYC"))
      << s.warnings.join("\n").toStdString();
  EXPECT_TRUE(s.warnings.contains("stage fused-attention invalid: noise 2.3% > 1.0%"));
  EXPECT_TRUE(any_starts_with(s.warnings, "stage bf16 invalid: correctness"));
  EXPECT_FALSE(any_starts_with(s.warnings, "software events"));  // perf::PAGE-FAULTS opened
  EXPECT_EQ(s.tiers, QStringList{"os"});  // "error" is not a tier that counted
  EXPECT_EQ(s.devices, QStringList{"Test GPU (Test Platform)"});
  EXPECT_TRUE(context_html(s).contains("no hardware PMU"));
  EXPECT_FALSE(any_starts_with(s.warnings, "busy cores"));
}

TEST(ContextSummary, WarnsWhenTheCoresWereBusy) {
  auto doc = test::fixture_json("two_backends.json");
  doc["context"]["threading"] = {{"oversubscribed", true},
                                 {"note", "1.0 of 2 cores busy before the run (oversubscribed)"}};
  const auto record = test::document_record(doc);
  const ContextSummary s = summarize_context(record, record.runs[0]);
  EXPECT_TRUE(
      s.warnings.contains("busy cores: 1.0 of 2 cores busy before the run (oversubscribed)"))
      << s.warnings.join("\n").toStdString();
}

// The viewer has no validator of its own: a file loads through schema's reader, and its
// problems are that reader's, named in the message with the file.
TEST(Document, NamesTheProblemAndTheFile) {
  auto doc = test::fixture_json("two_backends.json");
  QTemporaryDir dir;
  const QString path = dir.filePath("doc.json");
  auto load = [&](const nlohmann::json& d) {
    QFile f(path);
    EXPECT_TRUE(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(QByteArray::fromStdString(d.dump()));
    f.close();
    return load_document(path);
  };
  const LoadResult good = load(doc);
  ASSERT_TRUE(good.ok()) << good.error.toStdString();
  ASSERT_EQ(good.document.runs.size(), 2u);
  EXPECT_EQ(good.document.runs[1].stages[0].id, doc["runs"][1]["stages"][0]["id"]);
  doc["schema"] = "stagebench/0";
  doc["runs"][1]["stages"][0]["status"] = "great";
  const LoadResult bad = load(doc);
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.error, path +
                           ": not a stagebench/1 document:"
                           "\n  schema: unsupported \"stagebench/0\" (expected \"stagebench/1\")"
                           "\n  runs[1].stages[0].status: 'great' is not one of ok, skipped, "
                           "failed, invalid");
  const LoadResult missing = load_document("/nonexistent/x.json");
  EXPECT_FALSE(missing.ok());
  EXPECT_TRUE(missing.error.startsWith("/nonexistent/x.json: cannot open"));
}

TEST(Histogram, BinsCoverEverySample) {
  const Histogram h = make_histogram({1, 2, 2, 3, 4, 10, 10, 10, 10}, 3);
  ASSERT_EQ(h.counts.size(), 3u);
  EXPECT_DOUBLE_EQ(h.low, 1);
  EXPECT_DOUBLE_EQ(h.width, 3);
  EXPECT_EQ(h.counts, (std::vector<int>{4, 1, 4}));  // the maximum lands in the last bin
  EXPECT_EQ(make_histogram({5, 5, 5}).counts, std::vector<int>{3});
  EXPECT_TRUE(make_histogram({}).counts.empty());
}

RunRecord batch_run(int batch, double items_per_s, const char* backend = "cpu") {
  nlohmann::json stage = {
      {"id", "original"}, {"status", "ok"}, {"throughput", {{"items_per_s", items_per_s}}}};
  return test::run_record({{"model", "enformer"},
                           {"size", "tiny"},
                           {"backend", backend},
                           {"device", "d"},
                           {"mode", "inference"},
                           {"params", {{"batch", batch}}},
                           {"stages", {stage}}});
}

TEST(BatchSeries, OnePointPerBatchOfTheSameLadderSortedByBatch) {
  const auto b4 = batch_run(4, 40), b1 = batch_run(1, 12), other = batch_run(2, 99, "opencl");
  const auto series = batch_series({&b4, &b1, &other}, b1);
  ASSERT_EQ(series.size(), 1u);
  EXPECT_EQ(series[0].stage, "original");
  ASSERT_EQ(series[0].points.size(), 2);
  EXPECT_EQ(series[0].points[0], QPointF(1, 12));
  EXPECT_EQ(series[0].points[1], QPointF(4, 40));
  EXPECT_TRUE(batch_series({&b1, &other}, b1).empty());  // a single batch size is no sweep
}

TEST(BatchSeries, ARunsOwnSearchGivesItsCurveMemoryAndCap) {
  RunRecord run = batch_run(4, 40);
  EXPECT_FALSE(batch_search_curve(run).has_value());
  run.sections["batch_search"] = {
      {"stage", "original"},
      {"memory_cap_bytes", 3000000},
      {"largest_fitting", 5},
      {"best_throughput", 4},
      {"limit", "memory cap"},
      {"curve",
       {{{"batch", 4}, {"outcome", "fits"}, {"items_per_s", 40}, {"peak_bytes", 2000000}},
        {{"batch", 5}, {"outcome", "fits"}, {"items_per_s", 38}, {"peak_bytes", 2500000}},
        {{"batch", 6}, {"outcome", "over cap"}, {"items_per_s", 41}, {"peak_bytes", 3100000}},
        {{"batch", 8}, {"outcome", "predicted over cap"}, {"peak_bytes", 4000000}},
        {{"batch", 16}, {"outcome", "failed"}, {"reason", "allocation failed"}}}}};
  const auto c = batch_search_curve(run);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->stage, "original");
  EXPECT_DOUBLE_EQ(c->cap_mb, 3.0);
  EXPECT_EQ(c->best_throughput, 4);
  EXPECT_EQ(c->largest_fitting, 5);
  // Throughput only where the batch fits; memory wherever a probe ran, never a prediction.
  EXPECT_EQ(c->throughput, (QVector<QPointF>{{4, 40}, {5, 38}}));
  EXPECT_EQ(c->memory_mb, (QVector<QPointF>{{4, 2.0}, {5, 2.5}, {6, 3.1}}));
}

TEST(TableExport, MarkdownAndCsvOfASelection) {
  QStandardItemModel model(2, 2);
  model.setHorizontalHeaderLabels({"a", "b"});
  model.setItem(0, 0, new QStandardItem("x|y"));
  model.setItem(0, 1, new QStandardItem("1,5"));
  model.setItem(1, 0, new QStandardItem("say \"hi\""));
  model.setItem(1, 1, new QStandardItem("2"));
  EXPECT_EQ(table_markdown(model).toStdString(),
            "| a | b |\n|---|---|\n| x\\|y | 1,5 |\n| say \"hi\" | 2 |\n");
  EXPECT_EQ(table_csv(model).toStdString(), "a,b\nx|y,\"1,5\"\n\"say \"\"hi\"\"\",2\n");
  EXPECT_EQ(table_csv(model, {model.index(1, 1)}).toStdString(), "b\n2\n");
}

}  // namespace
}  // namespace sb::viewer
