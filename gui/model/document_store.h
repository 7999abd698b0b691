#pragma once
// The documents the viewer has open. Files load on worker threads (QtConcurrent); a file that
// changes on disk is reloaded (QFileSystemWatcher). A file that fails to load is reported
// through load_failed and leaves the other documents as they were.
#include <vector>

#include <QFileSystemWatcher>
#include <QObject>
#include <QSet>
#include <QString>
#include <QTimer>

#include "gui/model/document.h"

namespace sb::viewer {

struct LoadedDocument {
  QString path;  // absolute
  DocumentRecord document;
};

// One run of one document: indexes into DocumentStore::documents().
struct RunRef {
  int document = -1;
  int run = -1;
  bool valid() const { return document >= 0 && run >= 0; }
  bool operator==(const RunRef& o) const { return document == o.document && run == o.run; }
};

class DocumentStore : public QObject {
  Q_OBJECT

 public:
  explicit DocumentStore(QObject* parent = nullptr);

  // Starts loading each file; a file already open is reloaded in place.
  void open(const QStringList& paths);
  // Runs the event loop until no load is pending or timeout_ms passed; true when idle.
  bool wait_idle(int timeout_ms);

  int pending() const { return pending_; }
  const std::vector<LoadedDocument>& documents() const { return documents_; }
  int index_of(const QString& path) const;
  // All runs of all documents, in document then run order.
  std::vector<RunRef> runs() const;
  const RunRecord& run(RunRef ref) const;
  const DocumentRecord& document_of(RunRef ref) const;

 signals:
  void pending_changed(int pending);
  // A document was added (appended) or replaced in place after a reload.
  void document_loaded(int index);
  void load_failed(const QString& path, const QString& message);

 private:
  void start_load(const QString& path);
  void finish_load(const QString& path, int generation, const LoadResult& result);
  void on_file_changed(const QString& path);

  std::vector<LoadedDocument> documents_;
  QFileSystemWatcher watcher_;
  QSet<QString> changed_;  // reloads waiting for the debounce timer
  QTimer reload_timer_;
  QHash<QString, int> generation_;  // so a slow, stale load never overwrites a newer one
  int pending_ = 0;
};

}  // namespace sb::viewer
