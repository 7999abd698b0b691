#include <gtest/gtest.h>

#include <QAbstractItemModelTester>
#include <QCoreApplication>
#include <QDirIterator>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>

#include "fixture.h"
#include "gui/model/document.h"
#include "gui/model/document_store.h"
#include "gui/model/run_list_model.h"
#include "qt_app.h"

namespace sb::viewer {
namespace {

TEST(DocumentStore, BadFilesAreNamedAndTheGoodOneStillLoads) {
  test::core_app();
  QTemporaryDir dir;
  const QString bad_json = dir.filePath("broken.json");
  const QString wrong_schema = dir.filePath("other.json");
  test::write_file(bad_json, "{\"schema\": \"stagebench/1\", \"runs\": [");
  test::write_file(wrong_schema, "{\"schema\": \"gbench\", \"runs\": []}");
  DocumentStore store;
  QSignalSpy failed(&store, &DocumentStore::load_failed);
  store.open(
      {bad_json, QString::fromStdString(test::fixture_path("two_backends.json")), wrong_schema});
  ASSERT_TRUE(store.wait_idle(20000));
  ASSERT_EQ(store.documents().size(), 1u);
  EXPECT_TRUE(store.documents()[0].path.endsWith("two_backends.json"));
  EXPECT_EQ(store.runs().size(), 2u);
  ASSERT_EQ(failed.count(), 2);
  QStringList messages;
  for (const auto& args : failed) messages << args.at(1).toString();
  messages.sort();
  EXPECT_TRUE(messages[0].startsWith(bad_json + ": not valid JSON")) << messages[0].toStdString();
  EXPECT_TRUE(messages[1].startsWith(wrong_schema + ": not a stagebench/1 document"))
      << messages[1].toStdString();
  EXPECT_TRUE(messages[1].contains("schema: unsupported \"gbench\""));
}

TEST(DocumentStore, ReloadsAFileThatChangesOnDisk) {
  test::core_app();
  QTemporaryDir dir;
  const QString path = dir.filePath("run.json");
  auto doc = test::fixture_json("two_backends.json");
  test::write_file(path, QByteArray::fromStdString(doc.dump()));
  DocumentStore store;
  RunListModel runs(&store);
  QAbstractItemModelTester tester(&runs, QAbstractItemModelTester::FailureReportingMode::Fatal);
  store.open({path});
  ASSERT_TRUE(store.wait_idle(20000));
  ASSERT_EQ(runs.rowCount(), 2);
  EXPECT_EQ(runs.index(1, RunListModel::Backend).data().toString(), "opencl");
  EXPECT_EQ(runs.index(0, RunListModel::Stages).data().toString(), "2/5 ok");

  QSignalSpy loaded(&store, &DocumentStore::document_loaded);
  doc["runs"].erase(1);
  // As the harness writes: a new file renamed over the old one.
  test::write_file(path + ".tmp", QByteArray::fromStdString(doc.dump()));
  ASSERT_TRUE(QFile::remove(path));
  ASSERT_TRUE(QFile::rename(path + ".tmp", path));
  ASSERT_TRUE(loaded.wait(10000));
  ASSERT_TRUE(store.wait_idle(20000));
  EXPECT_EQ(store.documents().size(), 1u);
  EXPECT_EQ(runs.rowCount(), 1);
}

// The viewer reads what the CLI reads: every stagebench/1 result committed under results/
// opens, its runs and stages all there.
TEST(DocumentStore, EveryCommittedResultLoads) {
  QDirIterator it(QStringLiteral(SB_RESULTS_DIR), {QStringLiteral("*.json")}, QDir::Files,
                  QDirIterator::Subdirectories);
  int loaded = 0;
  while (it.hasNext()) {
    const QString path = it.next();
    const nlohmann::json doc = nlohmann::json::parse(std::ifstream(path.toStdString()));
    if (!doc.is_object() || doc.value("schema", "") != "stagebench/1") continue;
    const LoadResult r = load_document(path);
    ASSERT_TRUE(r.ok()) << r.error.toStdString();
    ASSERT_EQ(r.document.runs.size(), doc["runs"].size()) << path.toStdString();
    for (size_t i = 0; i < r.document.runs.size(); ++i)
      EXPECT_EQ(r.document.runs[i].stages.size(), doc["runs"][i]["stages"].size())
          << path.toStdString();
    ++loaded;
  }
  EXPECT_GT(loaded, 10);
}

}  // namespace
}  // namespace sb::viewer
