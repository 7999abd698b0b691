#include "gui/model/ladder_model.h"

#include <cmath>

#include <QBrush>
#include <QColor>

#include "gui/model/json_values.h"
#include "gui/model/roles.h"
#include "reports/ladder_table.h"
#include "reports/train_phases.h"

namespace sb::viewer {
namespace {

QColor status_colour(const std::string& status) {
  if (status == "ok") return QColor(0x1b, 0x7a, 0x2e);
  if (status == "invalid") return QColor(0xb0, 0x6a, 0x00);
  if (status == "failed") return QColor(0xc0, 0x1c, 0x1c);
  return QColor(0x80, 0x80, 0x80);
}

QString qs(const std::string& s) {
  return display_text(s);
}

QString time_text(const StageRow& s) {
  const auto median = known(s.median_ms);
  if (!median) return QStringLiteral("-");
  // The spread in the median's decimals: "579.8 \u00b112.3", not "579.8 \u00b112.3456".
  QString out = format_ms(median);
  const int dot = out.indexOf(QLatin1Char('.'));
  const int decimals = dot < 0 ? 0 : out.size() - dot - 1;
  if (known(s.p10_ms) && known(s.p90_ms))
    out += QStringLiteral(" \u00b1") + QString::number((s.p90_ms - s.p10_ms) / 2, 'f', decimals);
  return out;
}

QString speedup_text(const StageRow& s) {
  if (!known(s.speedup)) return QStringLiteral("-");
  QString out = QString::number(s.speedup, 'f', 2) + QLatin1Char('x');
  if (known(s.speedup_lo) && known(s.speedup_hi))
    out += QStringLiteral(" [%1, %2]").arg(s.speedup_lo, 0, 'f', 2).arg(s.speedup_hi, 0, 'f', 2);
  return out;
}

QString correctness_text(const StageRow& s) {
  const auto cosine = known(s.cosine);
  // Training stages: the loss curve against the baseline's, then the final parameters' cosine.
  const QString figures = known(s.loss_max_rel) ? qs(loss_check_text(s)) : format_number(cosine, 8);
  if (s.correctness_pass < 0) return figures;
  return (s.correctness_pass ? QStringLiteral("pass ") : QStringLiteral("FAIL ")) + figures;
}

}  // namespace

LadderModel::LadderModel(QObject* parent) : QAbstractTableModel(parent) {}

void LadderModel::set_run(const RunRecord& run) {
  beginResetModel();
  summary_ = summarize_run(run);
  max_time_ = max_speedup_ = 0;
  for (const StageRow& s : summary_.stages) {
    max_time_ = std::max(max_time_, known(s.median_ms).value_or(0));
    max_speedup_ = std::max(max_speedup_, known(s.speedup).value_or(0));
  }
  endResetModel();
}

int LadderModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(summary_.stages.size());
}

int LadderModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant LadderModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const StageRow& s = summary_.stages[static_cast<size_t>(index.row())];
  switch (role) {
    case Qt::DisplayRole:
      return index.column() == Index ? QVariant(QString::number(index.row()))
                                     : display(s, index.column());
    case SortRole:
      return sort_key(s, index.row(), index.column());
    case Qt::ToolTipRole:
      return tooltip(s, index.column());
    case Qt::ForegroundRole:
      if (index.column() == Status) return QBrush(status_colour(s.status));
      if (index.column() == Correctness && s.correctness_pass == 0)
        return QBrush(status_colour("failed"));
      return {};
    case Qt::TextAlignmentRole:
      return index.column() == Stage || index.column() == Status || index.column() == Verdict
                 ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                 : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case BarRole: {
      if (index.column() == Time && max_time_ > 0 && known(s.median_ms))
        return sort_value(s.median_ms / max_time_);
      if (index.column() == Speedup && max_speedup_ > 0 && known(s.speedup))
        return sort_value(s.speedup / max_speedup_);
      if (index.column() == Time || index.column() == Speedup) return sort_value(std::nullopt);
      return {};
    }
    default:
      return {};
  }
}

QVariant LadderModel::display(const StageRow& s, int column) const {
  switch (column) {
    case Stage:
      return qs(s.id);
    case Status:
      return qs(s.status);
    case Time:
      return time_text(s);
    case Speedup:
      return speedup_text(s);
    case VsPrevious:
      return known(s.vs_previous) ? QString::asprintf("%+.0f%%", (s.vs_previous - 1) * 100)
                                  : QStringLiteral("-");
    case HostPeak:
      return format_bytes(known(s.host_rss_bytes));
    case DevicePeak:
      return format_bytes(known(s.device_peak_bytes));
    case ItemsPerSecond:
      return format_number(known(s.items_per_s), 2);
    case Gflops:
      return format_number(known(s.gflops), 1);
    case OfPeak:
      return format_percent(known(s.roofline_frac), 1);
    case Correctness:
      return correctness_text(s);
    case Claimed:
      return known(s.claim_speedup) ? QString::number(s.claim_speedup, 'f', 2) + QLatin1Char('x')
                                    : QStringLiteral("-");
    case Verdict:
      return qs(s.claim_verdict);
    default:
      return {};
  }
}

QVariant LadderModel::sort_key(const StageRow& s, int row, int column) const {
  switch (column) {
    case Index:
      return row;
    case Time:
      return sort_value(known(s.median_ms));
    case Speedup:
      return sort_value(known(s.speedup));
    case VsPrevious:
      return sort_value(known(s.vs_previous));
    case HostPeak:
      return sort_value(known(s.host_rss_bytes));
    case DevicePeak:
      return sort_value(known(s.device_peak_bytes));
    case ItemsPerSecond:
      return sort_value(known(s.items_per_s));
    case Gflops:
      return sort_value(known(s.gflops));
    case OfPeak:
      return sort_value(known(s.roofline_frac));
    case Correctness:
      return sort_value(known(s.cosine));
    case Claimed:
      return sort_value(known(s.claim_speedup));
    default:
      return display(s, column);
  }
}

QVariant LadderModel::tooltip(const StageRow& s, int column) const {
  switch (column) {
    case Stage:
      return qs(s.title);
    case Status:
      return s.reason.empty() ? QVariant() : QVariant(qs(s.reason));
    case Time:
      return QStringLiteral("p10 %1 / p90 %2 ms, %3 samples, %4")
          .arg(format_ms(known(s.p10_ms)), format_ms(known(s.p90_ms)),
               format_number(known(s.samples), 0),
               s.stop_reason.empty() ? QStringLiteral("-") : qs(s.stop_reason));
    case Claimed:
    case Verdict:
      return qs(s.claim_source) + QStringLiteral(": ") + qs(s.claim_text);
    default:
      return {};
  }
}

QVariant LadderModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* kNames[] = {"#",       "stage",       "status",      "time ms", "speedup",
                                 "vs prev", "host peak",   "device peak", "items/s", "GFLOP/s",
                                 "of peak", "correctness", "claimed",     "verdict"};
  return section >= 0 && section < ColumnCount ? QVariant(kNames[section]) : QVariant();
}

}  // namespace sb::viewer
