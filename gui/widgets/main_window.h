#pragma once
// The viewer's window: run browser on the left, the selected run's views in tabs on the right,
// a problems list for files that failed to load, File > Open / Open Recent / Reload, and drag
// and drop of JSON files.
#include <QMainWindow>

#include <map>
#include <utility>

#include "gui/model/document_store.h"
#include "gui/model/timeline.h"

class QLabel;
class QListWidget;
class QMenu;
class QProgressBar;
class QTabWidget;

namespace sb::viewer {

class ChartsView;
class CompareView;
class DrilldownView;
class LadderView;
class RunBrowser;

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  explicit MainWindow(QWidget* parent = nullptr);

  void open_files(const QStringList& paths);
  // "ladder", "charts", "drilldown" or "compare"; false for any other name.
  bool show_view(const QString& name);
  // Whether a failed load also pops up a (non-modal) message box; the problems list always
  // gets it.
  void set_interactive(bool interactive) { interactive_ = interactive; }
  QStringList problems() const { return problems_; }

  DocumentStore* store() { return &store_; }
  RunBrowser* run_browser() const { return runs_; }
  LadderView* ladder() const { return ladder_; }
  ChartsView* charts() const { return charts_; }
  DrilldownView* drilldown() const { return drilldown_; }
  CompareView* compare() const { return compare_; }

 protected:
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  void build_menus();
  void show_run(RunRef ref);
  void show_timeline(RunRef ref);
  void on_load_failed(const QString& path, const QString& message);
  void on_pending_changed(int pending);
  void remember_recent(const QStringList& paths);
  void rebuild_recent_menu();

  DocumentStore store_;
  // Timeline files beside the result files (gui/model/timeline.h), read once each: the parsed
  // file, or why there is none.
  std::map<QString, std::pair<TimelineFile, QString>> timelines_;
  RunBrowser* runs_;
  QTabWidget* tabs_;
  LadderView* ladder_;
  ChartsView* charts_;
  DrilldownView* drilldown_;
  CompareView* compare_;
  QListWidget* problem_list_;
  QDockWidget* problem_dock_;
  QProgressBar* progress_;
  QLabel* progress_label_;
  QMenu* recent_menu_ = nullptr;
  QStringList problems_;
  bool interactive_ = true;
};

}  // namespace sb::viewer
