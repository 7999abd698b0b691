#pragma once
// Reading a stagebench/1 file for the viewer. The viewer does not link the harness, so this is
// a lighter check than harness/result_json's validate_document: only what the viewer relies on
// (the schema tag, the runs and their stages' identity and status); every other field is read
// defensively, unknown or null shows as "-".
#include <string>
#include <vector>

#include <QString>
#include <nlohmann/json.hpp>

namespace sb::viewer {

struct LoadResult {
  QString path;
  nlohmann::json document;  // null unless ok()
  QString error;            // names the file and the problem
  bool ok() const { return error.isEmpty(); }
};

// Problems with the parts of the document the viewer relies on, each naming where
// ("runs[0].stages[2].status: ..."); empty when it can be shown.
std::vector<std::string> document_problems(const nlohmann::json& document);

// Bounds on what the viewer opens. A hostile 40,000-stage file took over a minute to lay out;
// real results (a sweep's runs included) stay far below these, and `stagebench report` reads
// any size.
inline constexpr qint64 kMaxFileBytes = qint64{256} << 20;
inline constexpr size_t kMaxRuns = 2000;
inline constexpr size_t kMaxStages = 10000;
// One run's stages become one chart's categories and one table: real ladders have about ten.
inline constexpr size_t kMaxStagesPerRun = 500;

// Why a well-formed document is too large to show (runs, stages or one run's stages beyond the
// bounds above), or empty. Expects a document that document_problems accepted.
std::string document_too_large(const nlohmann::json& document);

// Reads, parses and checks the file. Never throws: failures come back in LoadResult::error,
// naming the file: unreadable or not a regular file (a FIFO would block), invalid JSON, nesting
// deeper than schema/json_text's limit, a number beyond double's range, not a stagebench/1
// document, or too large. Safe to call from a worker thread.
LoadResult load_document(const QString& path);

}  // namespace sb::viewer
