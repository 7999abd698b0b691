#include "reports/report.h"

#include <stdexcept>

#include "reports/frames_table.h"
#include "reports/ladder_table.h"
#include "reports/provenance.h"
#include "reports/reference_table.h"
#include "reports/report_summary.h"
#include "reports/stage_row.h"
#include "reports/train_phases.h"

namespace sb {

ReportFormat parse_report_format(const std::string& name) {
  if (name == "md" || name == "markdown") return ReportFormat::markdown;
  if (name == "csv") return ReportFormat::csv;
  if (name == "html") return ReportFormat::html;
  if (name == "summary") return ReportFormat::summary;
  throw std::invalid_argument("unknown report format '" + name +
                              "' (expected md, csv, html or summary)");
}

std::string render_report(const std::vector<ReportInput>& inputs, ReportFormat format) {
  switch (format) {
    case ReportFormat::csv:
      return report_csv(inputs);
    case ReportFormat::html:
      return report_html(inputs);
    case ReportFormat::summary:
      return report_summary(inputs);
    case ReportFormat::markdown:
      break;
  }
  return report_markdown(inputs);
}

ReportInput::ReportInput(std::string name_, nlohmann::json document_)
    : name(std::move(name_)), document(std::move(document_)) {
  std::vector<std::string> ignored;  // the lenient read: what is well-formed
  record = read_document_record(document, ignored);
}

std::string report_markdown(const std::vector<ReportInput>& inputs) {
  std::string out;
  for (const ReportInput& in : inputs) {
    out += "## " + in.name + "\n\n";
    if (in.document.is_object() && in.document.contains("context"))
      out += provenance_text(read_context(in.document["context"])) + "\n\n";
    if (in.record.runs.empty()) {
      out += "(no runs)\n\n";
      continue;
    }
    for (const RunRecord& run : in.record.runs) {
      out += "### " + ladder_table_text(run) + "\n";
      const std::string reference = reference_table_text(run);  // after `stagebench peer`
      if (!reference.empty()) out += reference + "\n";
      const RunSummary summary = summarize_run(run);
      const std::string phases = train_phases_text(summary);  // training runs only
      if (!phases.empty()) out += phases + "\n";
      const std::string frames = frames_table_text(summary);  // with timed inference only
      if (!frames.empty()) out += frames + "\n";
    }
  }
  return out;
}

}  // namespace sb
