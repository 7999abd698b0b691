#pragma once
// A model's cells as Markdown or CSV text (DisplayRole, with the header row): for the clipboard
// and for golden dumps. With a selection, only the rows and columns it touches.
#include <QAbstractItemModel>
#include <QModelIndexList>
#include <QString>

namespace sb::viewer {

QString table_markdown(const QAbstractItemModel& model, const QModelIndexList& selection = {});
QString table_csv(const QAbstractItemModel& model, const QModelIndexList& selection = {});

}  // namespace sb::viewer
