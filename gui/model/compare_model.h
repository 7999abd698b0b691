#pragma once
// Two runs side by side, stages joined by id (the base's order, then stages only the candidate
// has). The delta, ratio and verdict cells are coloured by sb::compare_documents' verdict for
// the stage's time: faster green, slower red, ambiguous amber, same uncoloured.
#include <QAbstractTableModel>
#include <QColor>

#include "schema/records.h"

namespace sb::viewer {

class CompareModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column {
    Stage,
    BaseStatus,
    CandidateStatus,
    BaseMs,
    CandidateMs,
    DeltaMs,  // candidate - base
    Ratio,    // candidate / base time: < 1 is faster
    BaseSpeedup,
    CandidateSpeedup,
    Verdict,
    ColumnCount
  };

  explicit CompareModel(QObject* parent = nullptr);

  // Any two runs, whatever their identity (say CPU against OpenCL).
  void set_runs(const RunRecord& base_run, const RunRecord& candidate_run);
  // Why no verdicts could be computed (compare_documents threw or reported problems); empty
  // when all is well.
  QString problem() const { return problem_; }

  static QColor verdict_colour(const QString& verdict);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  struct Row {
    QString id;
    std::optional<StageRecord> base, candidate;  // empty when the run lacks the stage
    QString verdict;  // compare's verdict for the "time" metric, lower case
    QString note;
    bool regression = false;
  };
  void compute_verdicts(const RunRecord& base_run, const RunRecord& candidate_run);
  std::optional<double> value(const Row& row, int column) const;

  std::vector<Row> rows_;
  QString problem_;
};

}  // namespace sb::viewer
