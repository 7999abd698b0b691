#include "gui/model/table_export.h"

#include <set>

namespace sb::viewer {
namespace {

struct Cells {
  std::vector<int> rows, columns;
};

Cells cells_of(const QAbstractItemModel& model, const QModelIndexList& selection) {
  std::set<int> rows, columns;
  for (const QModelIndex& i : selection) {
    rows.insert(i.row());
    columns.insert(i.column());
  }
  if (selection.isEmpty()) {
    for (int r = 0; r < model.rowCount(); ++r) rows.insert(r);
    for (int c = 0; c < model.columnCount(); ++c) columns.insert(c);
  }
  return {{rows.begin(), rows.end()}, {columns.begin(), columns.end()}};
}

QStringList row_text(const QAbstractItemModel& model, int row, const std::vector<int>& columns) {
  QStringList out;
  for (int c : columns)
    out << (row < 0 ? model.headerData(c, Qt::Horizontal, Qt::DisplayRole)
                    : model.index(row, c).data(Qt::DisplayRole))
               .toString();
  return out;
}

QString csv_field(QString s) {
  if (!s.contains(QLatin1Char(',')) && !s.contains(QLatin1Char('"')) &&
      !s.contains(QLatin1Char('\n')))
    return s;
  return QLatin1Char('"') + s.replace(QLatin1Char('"'), QStringLiteral("\"\"")) + QLatin1Char('"');
}

}  // namespace

QString table_markdown(const QAbstractItemModel& model, const QModelIndexList& selection) {
  const Cells cells = cells_of(model, selection);
  auto line = [](QStringList fields) {
    for (QString& f : fields) f.replace(QLatin1Char('|'), QStringLiteral("\\|"));
    return QStringLiteral("| ") + fields.join(QStringLiteral(" | ")) + QStringLiteral(" |\n");
  };
  QString out = line(row_text(model, -1, cells.columns));
  out += QStringLiteral("|") +
         QStringLiteral("---|").repeated(static_cast<int>(cells.columns.size())) +
         QLatin1Char('\n');
  for (int r : cells.rows) out += line(row_text(model, r, cells.columns));
  return out;
}

QString table_csv(const QAbstractItemModel& model, const QModelIndexList& selection) {
  const Cells cells = cells_of(model, selection);
  QString out;
  auto line = [&](const QStringList& fields) {
    QStringList quoted;
    for (const QString& f : fields) quoted << csv_field(f);
    out += quoted.join(QLatin1Char(',')) + QLatin1Char('\n');
  };
  line(row_text(model, -1, cells.columns));
  for (int r : cells.rows) line(row_text(model, r, cells.columns));
  return out;
}

}  // namespace sb::viewer
