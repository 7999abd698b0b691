#include "gui/model/ladder_model.h"

#include <QBrush>
#include <QColor>

#include "gui/model/json_values.h"
#include "gui/model/roles.h"
#include "reports/ladder_table.h"

namespace sb::viewer {
namespace {

using json = nlohmann::json;

QColor status_colour(const QString& status) {
  if (status == QLatin1String("ok")) return QColor(0x1b, 0x7a, 0x2e);
  if (status == QLatin1String("invalid")) return QColor(0xb0, 0x6a, 0x00);
  if (status == QLatin1String("failed")) return QColor(0xc0, 0x1c, 0x1c);
  return QColor(0x80, 0x80, 0x80);
}

std::optional<double> time_ms(const json& s) {
  return number(member(s, "time"), "median_ms");
}
std::optional<double> speedup(const json& s, const char* key) {
  return number(member(s, "speedup"), key);
}

QString time_text(const json& s) {
  const json& t = member(s, "time");
  const auto median = number(t, "median_ms");
  if (!median) return QStringLiteral("-");
  // The spread in the median's decimals: "579.8 \u00b112.3", not "579.8 \u00b112.3456".
  QString out = format_ms(median);
  const int dot = out.indexOf(QLatin1Char('.'));
  const int decimals = dot < 0 ? 0 : out.size() - dot - 1;
  const auto p10 = number(t, "p10_ms"), p90 = number(t, "p90_ms");
  if (p10 && p90)
    out += QStringLiteral(" \u00b1") + QString::number((*p90 - *p10) / 2, 'f', decimals);
  return out;
}

QString speedup_text(const json& s) {
  const auto v = speedup(s, "vs_baseline");
  if (!v) return QStringLiteral("-");
  QString out = QString::number(*v, 'f', 2) + QLatin1Char('x');
  const json& ci = member(member(s, "speedup"), "ci95");
  if (ci.is_array() && ci.size() == 2 && ci[0].is_number() && ci[1].is_number())
    out += QStringLiteral(" [%1, %2]")
               .arg(ci[0].get<double>(), 0, 'f', 2)
               .arg(ci[1].get<double>(), 0, 'f', 2);
  return out;
}

QString correctness_text(const json& s) {
  const json& c = member(s, "correctness");
  const auto cosine = number(c, "cosine");
  const json& pass = member(c, "pass");
  if (!pass.is_boolean()) return cosine ? format_number(cosine, 8) : QStringLiteral("-");
  return (pass.get<bool>() ? QStringLiteral("pass ") : QStringLiteral("FAIL ")) +
         format_number(cosine, 8);
}

}  // namespace

LadderModel::LadderModel(QObject* parent) : QAbstractTableModel(parent) {}

void LadderModel::set_run(const json& run) {
  beginResetModel();
  run_ = run;
  max_time_ = max_speedup_ = 0;
  for (const json& s : member(run_, "stages")) {
    max_time_ = std::max(max_time_, time_ms(s).value_or(0));
    max_speedup_ = std::max(max_speedup_, speedup(s, "vs_baseline").value_or(0));
  }
  endResetModel();
}

const json& LadderModel::stage(int row) const {
  return member(run_, "stages")[static_cast<size_t>(row)];
}

int LadderModel::rowCount(const QModelIndex& parent) const {
  const json& stages = member(run_, "stages");
  return parent.isValid() || !stages.is_array() ? 0 : static_cast<int>(stages.size());
}

int LadderModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant LadderModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const json& s = stage(index.row());
  switch (role) {
    case Qt::DisplayRole:
      return index.column() == Index ? QVariant(QString::number(index.row()))
                                     : display(s, index.column());
    case SortRole:
      return sort_key(s, index.row(), index.column());
    case Qt::ToolTipRole:
      return tooltip(s, index.column());
    case Qt::ForegroundRole:
      if (index.column() == Status) return QBrush(status_colour(text(s, "status")));
      if (index.column() == Correctness && member(member(s, "correctness"), "pass") == false)
        return QBrush(status_colour(QStringLiteral("failed")));
      return {};
    case Qt::TextAlignmentRole:
      return index.column() == Stage || index.column() == Status || index.column() == Verdict
                 ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                 : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    case BarRole: {
      if (index.column() == Time && max_time_ > 0) {
        const auto t = time_ms(s);
        return sort_value(t ? std::optional(*t / max_time_) : std::nullopt);
      }
      if (index.column() == Speedup && max_speedup_ > 0) {
        const auto v = speedup(s, "vs_baseline");
        return sort_value(v ? std::optional(*v / max_speedup_) : std::nullopt);
      }
      return {};
    }
    default:
      return {};
  }
}

QVariant LadderModel::display(const json& s, int column) const {
  const json& tp = member(s, "throughput");
  const json& mem = member(s, "memory");
  switch (column) {
    case Stage:
      return text(s, "id", QStringLiteral("?"));
    case Status:
      return text(s, "status", QStringLiteral("?"));
    case Time:
      return time_text(s);
    case Speedup:
      return speedup_text(s);
    case VsPrevious: {
      const auto v = speedup(s, "vs_previous");
      return v ? QString::asprintf("%+.0f%%", (*v - 1) * 100) : QStringLiteral("-");
    }
    case HostPeak:
      return format_bytes(number(mem, "host_peak_bytes"));
    case DevicePeak:
      return format_bytes(number(mem, "device_peak_bytes"));
    case ItemsPerSecond:
      return format_number(number(tp, "items_per_s"), 2);
    case Gflops:
      return format_number(number(tp, "gflops"), 1);
    case OfPeak:
      return format_percent(number(tp, "roofline_frac"), 1);
    case Correctness:
      return correctness_text(s);
    case Claimed: {
      const auto c = number(member(s, "claim"), "speedup");
      return c ? QString::number(*c, 'f', 2) + QLatin1Char('x') : QStringLiteral("-");
    }
    case Verdict:
      return QString::fromStdString(claim_verdict(s));
    default:
      return {};
  }
}

QVariant LadderModel::sort_key(const json& s, int row, int column) const {
  const json& tp = member(s, "throughput");
  const json& mem = member(s, "memory");
  switch (column) {
    case Index:
      return row;
    case Time:
      return sort_value(time_ms(s));
    case Speedup:
      return sort_value(speedup(s, "vs_baseline"));
    case VsPrevious:
      return sort_value(speedup(s, "vs_previous"));
    case HostPeak:
      return sort_value(number(mem, "host_peak_bytes"));
    case DevicePeak:
      return sort_value(number(mem, "device_peak_bytes"));
    case ItemsPerSecond:
      return sort_value(number(tp, "items_per_s"));
    case Gflops:
      return sort_value(number(tp, "gflops"));
    case OfPeak:
      return sort_value(number(tp, "roofline_frac"));
    case Correctness:
      return sort_value(number(member(s, "correctness"), "cosine"));
    case Claimed:
      return sort_value(number(member(s, "claim"), "speedup"));
    default:
      return display(s, column);
  }
}

QVariant LadderModel::tooltip(const json& s, int column) const {
  switch (column) {
    case Stage:
      return text(s, "title");
    case Status: {
      const QString reason = text(s, "reason");
      return reason.isEmpty() ? QVariant() : QVariant(reason);
    }
    case Time: {
      const json& t = member(s, "time");
      return QStringLiteral("p10 %1 / p90 %2 ms, %3 samples, %4")
          .arg(format_ms(number(t, "p10_ms")), format_ms(number(t, "p90_ms")),
               format_number(number(t, "samples"), 0), text(t, "stop_reason", "-"));
    }
    case Claimed:
    case Verdict:
      return text(member(s, "claim"), "source") + QStringLiteral(": ") +
             text(member(s, "claim"), "text");
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
