#pragma once
// What the context panel shows for a run: the machine, its devices, which counter tiers the
// run has, and warnings a reader should see before trusting the numbers ("no hardware PMU",
// "stage invalid: noise ...").
#include <QPair>
#include <QString>
#include <QStringList>
#include <QVector>

#include "schema/records.h"

namespace sb::viewer {

struct ContextSummary {
  QVector<QPair<QString, QString>> facts;  // label, value
  QStringList devices;
  QStringList tiers;  // counter tiers present in the run's stages, e.g. "os", "software"
  QStringList warnings;
};

ContextSummary summarize_context(const DocumentRecord& document, const RunRecord& run);
QString context_html(const ContextSummary& summary);

}  // namespace sb::viewer
