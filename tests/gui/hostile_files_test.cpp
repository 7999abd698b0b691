// Hostile files in the viewer (issue 16): each becomes a message naming the file, loaded on the
// worker thread like any other, and the good file beside it still opens. Long text is elided in
// the tables; absurd sizes are refused.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <QCoreApplication>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>

#include "fixture.h"
#include "gui/model/document.h"
#include "gui/model/document_store.h"
#include "gui/model/json_values.h"
#include "gui/model/ladder_model.h"
#include "qt_app.h"

namespace sb::viewer {
namespace {

TEST(HostileViewer, EveryBadFileIsAMessageAndTheGoodOneStillLoads) {
  test::core_app();
  QTemporaryDir dir;
  const QString big = dir.filePath("big.json");
  const QString deep = dir.filePath("deep.json");
  const QString fifo = dir.filePath("pipe.json");
  test::write_file(big, "{\"x\":1e999}");  // out_of_range used to escape the loader: terminate()
  test::write_file(
      deep, QByteArray(100000, '[') + QByteArray(100000, ']'));  // used to overflow the stack
  ASSERT_EQ(::mkfifo(fifo.toLocal8Bit().constData(), 0600), 0);  // used to block the loader
  DocumentStore store;
  QSignalSpy failed(&store, &DocumentStore::load_failed);
  store.open({big, deep, fifo, QString::fromStdString(test::fixture_path("two_backends.json"))});
  ASSERT_TRUE(store.wait_idle(20000));
  ASSERT_EQ(store.documents().size(), 1u);
  ASSERT_EQ(failed.count(), 3);
  QStringList messages;
  for (const auto& args : failed) messages << args.at(1).toString();
  messages.sort();
  EXPECT_TRUE(messages[0].startsWith(big + ": a number is outside the range"))
      << messages[0].toStdString();
  EXPECT_TRUE(messages[1].startsWith(deep + ": nested deeper than 128 levels"))
      << messages[1].toStdString();
  EXPECT_TRUE(messages[2].startsWith(fifo + ": not a regular file")) << messages[2].toStdString();
}

// Found by the hostile-input campaign (issue 29): each loaded and drew as a measured run, and
// `--screenshot` exited 0. The viewer reads through the CLI's reader, which refuses them all.
TEST(HostileViewer, ImpossibleSamplesAndCompletenessAreProblems) {
  const nlohmann::json doc = test::fixture_json("two_backends.json");
  QTemporaryDir dir;
  const QString path = dir.filePath("bad.json");
  struct Case {
    const char* pointer;
    nlohmann::json value;
    const char* problem;
  };
  for (const Case& c :
       {Case{"/runs/0/stages/0/samples_ms",
             {1.0, -2.0},
             "runs[0].stages[0].samples_ms[1]: a wall time cannot be negative, got -2.0"},
        Case{"/runs/0/stages/0/samples_ms",
             {{1.0}},
             "runs[0].stages[0].samples_ms[0]: expected a number, got array"},
        Case{"/runs/0/complete", "yes",
             "runs[0].complete: expected a boolean or null, got string"}}) {
    nlohmann::json bad = doc;
    bad[nlohmann::json::json_pointer(c.pointer)] = c.value;
    test::write_file(path, QByteArray::fromStdString(bad.dump()));
    const LoadResult r = load_document(path);
    EXPECT_EQ(r.error, path + ": not a stagebench/1 document:\n  " + c.problem) << c.pointer;
  }
}

TEST(HostileViewer, LongTextIsElided) {
  const std::string id(1 << 20, 'x');
  const QString shown = display_text(id);
  EXPECT_LT(shown.size(), 400);
  EXPECT_TRUE(shown.endsWith(QStringLiteral("... (1048576 bytes)"))) << shown.toStdString();
  EXPECT_EQ(display_text("fused-attention"), QStringLiteral("fused-attention"));
  // A cut never splits a UTF-8 sequence: 'é' is two bytes, and 129 of them straddle the limit.
  std::string accents;
  for (int i = 0; i < 129; ++i) accents += "\xc3\xa9";
  EXPECT_FALSE(display_text(accents).contains(QChar(0xFFFD)));

  nlohmann::json run = test::fixture_json("two_backends.json")["runs"][0];
  run["stages"][0]["id"] = id;
  LadderModel model;
  model.set_run(test::run_record(run));
  for (int column = 0; column < model.columnCount(); ++column) {
    for (int role : {int(Qt::DisplayRole), int(Qt::ToolTipRole)}) {
      const QVariant v = model.data(model.index(0, column), role);
      EXPECT_LT(v.toString().size(), 2000) << "column " << column << " role " << role;
    }
  }
}

TEST(HostileViewer, AbsurdSizesAreRefusedWithAMessage) {
  test::core_app();
  nlohmann::json doc = test::fixture_json("two_backends.json");
  const nlohmann::json stage = doc["runs"][0]["stages"][0];
  doc["runs"][0]["stages"] = nlohmann::json::array();
  for (int i = 0; i < 2000; ++i) doc["runs"][0]["stages"].push_back(stage);  // 4x the bound
  QTemporaryDir dir;
  const QString path = dir.filePath("many.json");
  test::write_file(path, QByteArray::fromStdString(doc.dump()));
  const LoadResult r = load_document(path);
  EXPECT_FALSE(r.ok());
  EXPECT_TRUE(r.error.startsWith(path + ": runs[0] has 2000 stages, more than the viewer shows"))
      << r.error.toStdString();

  // Many runs of a real ladder's size are fine up to the total bound.
  doc["runs"][0]["stages"] = nlohmann::json::array({stage});
  const nlohmann::json run = doc["runs"][0];
  doc["runs"] = nlohmann::json::array();
  for (int i = 0; i < 1500; ++i) doc["runs"].push_back(run);
  EXPECT_EQ(document_too_large(test::document_record(doc)), "");
  for (auto& r : doc["runs"])
    r["stages"] = nlohmann::json::array({stage, stage, stage, stage, stage, stage, stage});
  const std::string why = document_too_large(test::document_record(doc));
  EXPECT_EQ(why.rfind("10500 stages, more than the viewer shows", 0), 0u) << why;
}

}  // namespace
}  // namespace sb::viewer
