#include "gui/widgets/main_window.h"

#include <filesystem>

#include <QApplication>
#include <QDesktopServices>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QListWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTabWidget>
#include <QUrl>

#include "gui/model/json_values.h"
#include "gui/widgets/charts_view.h"
#include "gui/widgets/compare_view.h"
#include "gui/widgets/drilldown_view.h"
#include "gui/widgets/ladder_view.h"
#include "gui/widgets/run_browser.h"
#include "layout/data_dirs.h"
#include "schema/user_file.h"

namespace sb::viewer {
namespace {

constexpr int kMaxRecent = 8;
const char* const kViewNames[] = {"ladder", "charts", "drilldown", "compare"};

QStringList json_paths(const QMimeData* mime) {
  QStringList paths;
  for (const QUrl& url : mime->urls())
    if (url.isLocalFile()) paths << url.toLocalFile();
  return paths;
}

}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent),
      runs_(new RunBrowser(&store_)),
      tabs_(new QTabWidget),
      ladder_(new LadderView),
      charts_(new ChartsView),
      drilldown_(new DrilldownView),
      compare_(new CompareView(&store_)),
      problem_list_(new QListWidget),
      problem_dock_(new QDockWidget(tr("Problems"), this)),
      progress_(new QProgressBar),
      progress_label_(new QLabel) {
  setWindowTitle(tr("stagebench viewer"));
  setAcceptDrops(true);
  tabs_->addTab(ladder_, tr("Ladder"));
  tabs_->addTab(charts_, tr("Charts"));
  tabs_->addTab(drilldown_, tr("Drill-down"));
  tabs_->addTab(compare_, tr("Compare"));
  auto* splitter = new QSplitter(Qt::Horizontal);
  splitter->addWidget(runs_);
  splitter->addWidget(tabs_);
  splitter->setStretchFactor(1, 1);
  splitter->setSizes({380, 900});
  setCentralWidget(splitter);

  problem_list_->setWordWrap(true);
  problem_dock_->setWidget(problem_list_);
  problem_dock_->setObjectName(QStringLiteral("problems"));
  addDockWidget(Qt::BottomDockWidgetArea, problem_dock_);
  problem_dock_->hide();

  progress_->setRange(0, 0);  // busy indicator: loads report no fraction
  progress_->setMaximumWidth(160);
  statusBar()->addPermanentWidget(progress_label_);
  statusBar()->addPermanentWidget(progress_);
  progress_->hide();
  progress_label_->hide();

  build_menus();
  connect(runs_, &RunBrowser::run_selected, this, &MainWindow::show_run);
  connect(ladder_, &LadderView::stage_activated, this, [this](int stage) {
    drilldown_->select_stage(stage);
    tabs_->setCurrentWidget(drilldown_);
  });
  connect(&store_, &DocumentStore::load_failed, this, &MainWindow::on_load_failed);
  connect(&store_, &DocumentStore::pending_changed, this, &MainWindow::on_pending_changed);
  connect(&store_, &DocumentStore::document_loaded, this, [this](int index) {
    // A result file rewritten on disk comes with its timeline rewritten: read it again.
    timelines_.erase(timeline_path_for(store_.documents()[static_cast<size_t>(index)].path));
    statusBar()->showMessage(
        tr("Loaded %1").arg(store_.documents()[static_cast<size_t>(index)].path), 5000);
  });
}

void MainWindow::build_menus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(
      tr("&Open..."), this,
      [this] {
        const QStringList paths =
            QFileDialog::getOpenFileNames(this, tr("Open stagebench results"), QString(),
                                          tr("stagebench JSON (*.json);;All files (*)"));
        open_files(paths);
      },
      QKeySequence::Open);
  recent_menu_ = file->addMenu(tr("Open &Recent"));
  rebuild_recent_menu();
  file->addAction(
      tr("&Reload all"), this,
      [this] {
        QStringList paths;
        for (const auto& d : store_.documents()) paths << d.path;
        store_.open(paths);
      },
      QKeySequence::Refresh);
  file->addSeparator();
  file->addAction(tr("&Quit"), qApp, &QApplication::quit, QKeySequence::Quit);

  QMenu* view = menuBar()->addMenu(tr("&View"));
  for (int i = 0; i < tabs_->count(); ++i)
    view->addAction(
        tabs_->tabText(i), this, [this, i] { tabs_->setCurrentIndex(i); },
        QKeySequence(static_cast<int>(Qt::CTRL) | (Qt::Key_1 + i)));
  view->addAction(problem_dock_->toggleViewAction());

  // The guide is docs/viewer.md: in the source tree beside a build, or under the installed
  // prefix's share/doc/stagebench (layout/data_dirs.h), whichever this binary came with.
  QMenu* help = menuBar()->addMenu(tr("&Help"));
  help->addAction(tr("Viewer &guide"), this, [this] {
    const auto dir = layout::find(layout::DataDir::Docs, "viewer.md");
    if (!dir) {
      QMessageBox::information(this, tr("Viewer guide"),
                               tr("docs/viewer.md is neither in this source tree nor under "
                                  "this installation's share/doc/stagebench."));
      return;
    }
    const auto path = std::filesystem::absolute(*dir / "viewer.md");
    QDesktopServices::openUrl(QUrl::fromLocalFile(QString::fromStdString(path.string())));
  });
}

void MainWindow::open_files(const QStringList& paths) {
  if (paths.isEmpty()) return;
  store_.open(paths);
  remember_recent(paths);
}

bool MainWindow::show_view(const QString& name) {
  for (int i = 0; i < 4; ++i) {
    if (name == QLatin1String(kViewNames[i])) {
      tabs_->setCurrentIndex(i);
      return true;
    }
  }
  return false;
}

void MainWindow::show_timeline(RunRef ref) {
  const QString path =
      timeline_path_for(store_.documents()[static_cast<size_t>(ref.document)].path);
  auto cached = timelines_.find(path);
  if (cached == timelines_.end()) {
    std::pair<TimelineFile, QString> entry;
    if (!QFileInfo::exists(path)) {
      entry.second = tr("No timeline: %1 does not exist. Run with --timeline %1 to capture one "
                        "sample per stage.")
                         .arg(QFileInfo(path).fileName());
    } else {
      // As the result files are read: a FIFO or device refused, the nesting checked before the
      // recursive parser sees it, every problem named.
      try {
        entry.first = read_timeline(read_json_file(path.toStdString()));
      } catch (const std::exception& e) {
        entry.second = tr("%1 is not a timeline: %2").arg(path, QString::fromUtf8(e.what()));
      }
    }
    cached = timelines_.emplace(path, std::move(entry)).first;
  }
  const RunRecord& run = store_.run(ref);
  const QString name =
      QStringLiteral("%1/%2/%3")
          .arg(display_text(run.model), display_text(run.size), display_text(run.backend));
  const auto& [file, why_none] = cached->second;
  const auto stages = file.find(name);
  if (stages != file.end())
    drilldown_->set_timeline(stages->second, {});
  else
    drilldown_->set_timeline(
        {}, why_none.isEmpty()
                ? tr("%1 holds no run named %2.").arg(QFileInfo(path).fileName(), name)
                : why_none);
}

void MainWindow::show_run(RunRef ref) {
  if (!ref.valid()) return;
  const RunRecord& run = store_.run(ref);
  std::vector<const RunRecord*> all;
  for (RunRef r : store_.runs()) all.push_back(&store_.run(r));
  ladder_->set_run(run);
  charts_->set_run(run, all);
  drilldown_->set_run(run);
  show_timeline(ref);
  setWindowTitle(
      tr("stagebench viewer - %1 / %2 / %3")
          .arg(display_text(run.model), display_text(run.size), display_text(run.backend)));
}

void MainWindow::on_load_failed(const QString& path, const QString& message) {
  problems_ << message;
  auto* item = new QListWidgetItem(message, problem_list_);
  item->setForeground(QColor(0xc0, 0x1c, 0x1c));
  problem_dock_->show();
  statusBar()->showMessage(tr("Could not load %1").arg(path), 10000);
  if (interactive_) {
    auto* box = new QMessageBox(QMessageBox::Warning, tr("Could not load a file"), message,
                                QMessageBox::Ok, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setModal(false);
    box->show();
  }
}

void MainWindow::on_pending_changed(int pending) {
  progress_->setVisible(pending > 0);
  progress_label_->setVisible(pending > 0);
  progress_label_->setText(tr("loading %n file(s)", nullptr, pending));
}

void MainWindow::remember_recent(const QStringList& paths) {
  QSettings settings;
  QStringList recent = settings.value(QStringLiteral("recent")).toStringList();
  for (const QString& p : paths) {
    const QString absolute = QFileInfo(p).absoluteFilePath();
    recent.removeAll(absolute);
    recent.prepend(absolute);
  }
  while (recent.size() > kMaxRecent) recent.removeLast();
  settings.setValue(QStringLiteral("recent"), recent);
  rebuild_recent_menu();
}

void MainWindow::rebuild_recent_menu() {
  recent_menu_->clear();
  const QStringList recent = QSettings().value(QStringLiteral("recent")).toStringList();
  for (const QString& p : recent) recent_menu_->addAction(p, this, [this, p] { open_files({p}); });
  recent_menu_->setEnabled(!recent.isEmpty());
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (!json_paths(event->mimeData()).isEmpty()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  open_files(json_paths(event->mimeData()));
  event->acceptProposedAction();
}

}  // namespace sb::viewer
