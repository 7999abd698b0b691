#include "gui/model/compare_model.h"

#include <QBrush>
#include <QFont>

#include "gui/model/json_values.h"
#include "gui/model/roles.h"
#include "reports/compare.h"

namespace sb::viewer {
namespace {

std::optional<double> stage_median(const std::optional<StageRecord>& stage) {
  return stage ? stage->time.median_ms : std::nullopt;
}

std::optional<double> stage_speedup(const std::optional<StageRecord>& stage) {
  return stage ? stage->speedup.vs_baseline : std::nullopt;
}

QString stage_status(const std::optional<StageRecord>& stage) {
  return stage ? display_text(stage->status) : QStringLiteral("-");
}

bool is_time_metric(const std::string& metric) {
  return metric == "time";
}

}  // namespace

CompareModel::CompareModel(QObject* parent) : QAbstractTableModel(parent) {}

QColor CompareModel::verdict_colour(const QString& verdict) {
  if (verdict == QLatin1String("faster")) return QColor(0xc6, 0xef, 0xc6);
  if (verdict == QLatin1String("slower")) return QColor(0xf6, 0xc4, 0xc4);
  if (verdict == QLatin1String("ambiguous")) return QColor(0xfb, 0xe9, 0xb0);
  return {};
}

void CompareModel::set_runs(const RunRecord& base_run, const RunRecord& candidate_run) {
  beginResetModel();
  rows_.clear();
  problem_.clear();
  for (const StageRecord& s : base_run.stages)
    rows_.push_back({display_text(s.id), s, std::nullopt, {}, {}, false});
  for (const StageRecord& s : candidate_run.stages) {
    const QString id = display_text(s.id);
    auto it = std::find_if(rows_.begin(), rows_.end(), [&](const Row& r) { return r.id == id; });
    if (it == rows_.end())
      rows_.push_back({id, std::nullopt, s, {}, {}, false});
    else
      it->candidate = s;
  }
  compute_verdicts(base_run, candidate_run);
  endResetModel();
}

void CompareModel::compute_verdicts(const RunRecord& base_run, const RunRecord& candidate_run) {
  try {
    // compare joins runs by identity: the candidate is given the base's.
    RunRecord candidate = candidate_run;
    candidate.model = base_run.model;
    candidate.size = base_run.size;
    candidate.backend = base_run.backend;
    candidate.device = base_run.device;
    candidate.mode = base_run.mode;
    const CompareResult result = compare_runs({base_run}, {candidate}, CompareOptions{});
    for (const MetricComparison& m : result.rows) {
      if (!is_time_metric(m.metric)) continue;
      const QString id = display_text(m.stage);
      for (Row& row : rows_) {
        if (row.id != id || !row.verdict.isEmpty()) continue;
        row.verdict = QString::fromLatin1(verdict_name(m.verdict)).toLower();
        row.regression = m.regression;
        row.note = display_text(m.rule);
        if (!m.note.empty()) row.note += QStringLiteral("; ") + display_text(m.note);
      }
    }
    // Problems quote the files' ids and names: elided like every other text from a file (a 1 MB
    // stage id in this label crashed the viewer), and at most a few of them.
    constexpr size_t kShown = 5;
    QStringList problems;
    for (size_t i = 0; i < result.problems.size() && i < kShown; ++i)
      problems << display_text(result.problems[i]);
    if (result.problems.size() > kShown)
      problems << QStringLiteral("and %1 more").arg(result.problems.size() - kShown);
    problem_ = problems.join(QStringLiteral("; "));
  } catch (const std::exception& e) {
    problem_ = display_text(e.what());
  }
}

int CompareModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int CompareModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

std::optional<double> CompareModel::value(const Row& row, int column) const {
  const auto base = stage_median(row.base), candidate = stage_median(row.candidate);
  switch (column) {
    case BaseMs:
      return base;
    case CandidateMs:
      return candidate;
    case DeltaMs:
      return base && candidate ? std::optional(*candidate - *base) : std::nullopt;
    case Ratio:
      return base && candidate && *base > 0 ? std::optional(*candidate / *base) : std::nullopt;
    case BaseSpeedup:
      return stage_speedup(row.base);
    case CandidateSpeedup:
      return stage_speedup(row.candidate);
    default:
      return std::nullopt;
  }
}

QVariant CompareModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const Row& row = rows_[static_cast<size_t>(index.row())];
  const int column = index.column();
  const bool coloured = column == DeltaMs || column == Ratio || column == Verdict;
  switch (role) {
    case Qt::BackgroundRole: {
      const QColor c = verdict_colour(row.verdict);
      return coloured && c.isValid() ? QVariant(QBrush(c)) : QVariant();
    }
    case Qt::FontRole:
      if (coloured && row.regression) {
        QFont bold;
        bold.setBold(true);
        return bold;
      }
      return {};
    case Qt::ToolTipRole:
      return column == Verdict && !row.note.isEmpty() ? QVariant(row.note) : QVariant();
    case Qt::TextAlignmentRole:
      return column == Stage || column == Verdict || column == BaseStatus ||
                     column == CandidateStatus
                 ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                 : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case SortRole:
      if (column >= BaseMs && column <= CandidateSpeedup) return sort_value(value(row, column));
      [[fallthrough]];
    case Qt::DisplayRole:
      switch (column) {
        case Stage:
          return row.id;
        case BaseStatus:
          return stage_status(row.base);
        case CandidateStatus:
          return stage_status(row.candidate);
        case BaseMs:
        case CandidateMs:
          return format_ms(value(row, column));
        case DeltaMs: {
          const auto d = value(row, column);
          return d ? (*d >= 0 ? QStringLiteral("+") : QString()) + format_ms(d)
                   : QStringLiteral("-");
        }
        case Ratio:
          return value(row, column) ? format_number(value(row, column), 3) + QLatin1Char('x')
                                    : QStringLiteral("-");
        case BaseSpeedup:
        case CandidateSpeedup:
          return value(row, column) ? format_number(value(row, column), 2) + QLatin1Char('x')
                                    : QStringLiteral("-");
        case Verdict:
          return row.regression ? row.verdict + QStringLiteral(" (regression)") : row.verdict;
        default:
          return {};
      }
    default:
      return {};
  }
}

QVariant CompareModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* kNames[] = {"stage",         "base status", "cand. status", "base ms",
                                 "cand. ms",      "delta ms",    "ratio",        "base speedup",
                                 "cand. speedup", "verdict"};
  return section >= 0 && section < ColumnCount ? QVariant(kNames[section]) : QVariant();
}

}  // namespace sb::viewer
