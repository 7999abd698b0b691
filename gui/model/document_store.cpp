#include "gui/model/document_store.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QtConcurrent/QtConcurrentRun>

#include "gui/model/document.h"

namespace sb::viewer {

DocumentStore::DocumentStore(QObject* parent) : QObject(parent) {
  // The writer renames a finished temporary file over the result: wait for the burst of
  // change events to settle before reading.
  reload_timer_.setSingleShot(true);
  reload_timer_.setInterval(250);
  connect(&watcher_, &QFileSystemWatcher::fileChanged, this, &DocumentStore::on_file_changed);
  connect(&reload_timer_, &QTimer::timeout, this, [this] {
    const auto paths = changed_.values();
    changed_.clear();
    for (const QString& p : paths)
      if (QFileInfo::exists(p)) start_load(p);
  });
}

void DocumentStore::open(const QStringList& paths) {
  for (const QString& p : paths) start_load(QFileInfo(p).absoluteFilePath());
}

bool DocumentStore::wait_idle(int timeout_ms) {
  QElapsedTimer clock;
  clock.start();
  while (pending_ > 0 && clock.elapsed() < timeout_ms)
    QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
  return pending_ == 0;
}

int DocumentStore::index_of(const QString& path) const {
  for (size_t i = 0; i < documents_.size(); ++i)
    if (documents_[i].path == path) return static_cast<int>(i);
  return -1;
}

std::vector<RunRef> DocumentStore::runs() const {
  std::vector<RunRef> refs;
  for (size_t d = 0; d < documents_.size(); ++d) {
    for (size_t r = 0; r < documents_[d].document.runs.size(); ++r)
      refs.push_back({static_cast<int>(d), static_cast<int>(r)});
  }
  return refs;
}

const RunRecord& DocumentStore::run(RunRef ref) const {
  return document_of(ref).runs.at(static_cast<size_t>(ref.run));
}

const DocumentRecord& DocumentStore::document_of(RunRef ref) const {
  return documents_.at(static_cast<size_t>(ref.document)).document;
}

void DocumentStore::start_load(const QString& path) {
  const int generation = ++generation_[path];
  ++pending_;
  emit pending_changed(pending_);
  auto* watcher = new QFutureWatcher<LoadResult>(this);
  connect(watcher, &QFutureWatcher<LoadResult>::finished, this, [this, watcher, path, generation] {
    finish_load(path, generation, watcher->result());
    watcher->deleteLater();
  });
  watcher->setFuture(QtConcurrent::run(load_document, path));
}

void DocumentStore::finish_load(const QString& path, int generation, const LoadResult& result) {
  --pending_;
  if (generation == generation_.value(path)) {
    if (!result.ok()) {
      emit load_failed(path, result.error);
    } else {
      int index = index_of(path);
      if (index < 0) {
        documents_.push_back({path, result.document});
        index = static_cast<int>(documents_.size()) - 1;
      } else {
        documents_[static_cast<size_t>(index)].document = result.document;
      }
      // A rename over the file drops it from the watcher: watch it again.
      if (!watcher_.files().contains(path)) watcher_.addPath(path);
      emit document_loaded(index);
    }
  }
  emit pending_changed(pending_);
}

void DocumentStore::on_file_changed(const QString& path) {
  if (index_of(path) < 0) return;
  changed_.insert(path);
  reload_timer_.start();
}

}  // namespace sb::viewer
