#pragma once
// `stagebench report`: the ladder tables of one or more stagebench/1 documents as Markdown (what
// the terminal prints), CSV (one row per stage, stable column names) or one self-contained HTML
// page (inline CSS and SVG charts, no scripts, nothing fetched). Training runs add their step
// phases and memory split after the ladder (reports/train_phases.h).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "schema/records.h"

namespace sb {

enum class ReportFormat { markdown, csv, html, summary };

// "md" (or "markdown"), "csv", "html", "summary" (reports/report_summary.h); throws
// std::invalid_argument naming the bad value.
ReportFormat parse_report_format(const std::string& name);

// A document to report on, read once into schema's records (leniently: what is malformed is
// left unknown and shown as such; `report` refuses an invalid document before this). The
// renderers read the records; the JSON stays for the context's provenance lines.
struct ReportInput {
  ReportInput(std::string name, nlohmann::json document);
  std::string name;  // how the report names the document (its path)
  nlohmann::json document;
  DocumentRecord record;
};

std::string render_report(const std::vector<ReportInput>& inputs, ReportFormat format);

std::string report_markdown(const std::vector<ReportInput>& inputs);
std::string report_csv(const std::vector<ReportInput>& inputs);
std::string report_html(const std::vector<ReportInput>& inputs);

// The CSV's header, in column order; the names are stable (scripts select by them).
const std::vector<std::string>& report_csv_columns();
// The header of the CSV's training section (one row per training stage with step phases), which
// follows the stage rows after an empty line when a document holds such a stage.
const std::vector<std::string>& report_csv_train_columns();

}  // namespace sb
