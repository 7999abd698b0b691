#pragma once
// Reading a stagebench/1 file for the viewer: parsed once into schema's typed records
// (schema/records.h), with the CLI's reader and its problems, so the viewer checks exactly what
// `stagebench report` checks. Every model reads the records; unknown or null shows as "-".
#include <string>
#include <vector>

#include <QString>

#include "schema/records.h"

namespace sb::viewer {

struct LoadResult {
  QString path;
  DocumentRecord document;  // empty unless ok()
  QString error;            // names the file and the problem
  bool ok() const { return error.isEmpty(); }
};

// Bounds on what the viewer opens. A hostile 40,000-stage file took over a minute to lay out;
// real results (a sweep's runs included) stay far below these, and `stagebench report` reads
// any size.
inline constexpr qint64 kMaxFileBytes = qint64{256} << 20;
inline constexpr size_t kMaxRuns = 2000;
inline constexpr size_t kMaxStages = 10000;
// One run's stages become one chart's categories and one table: real ladders have about ten.
inline constexpr size_t kMaxStagesPerRun = 500;

// Why a document is too large to show (runs, stages or one run's stages beyond the bounds
// above), or empty.
std::string document_too_large(const DocumentRecord& document);

// Reads, parses and checks the file. Never throws: failures come back in LoadResult::error,
// naming the file: unreadable or not a regular file (a FIFO would block), invalid JSON, nesting
// deeper than schema/json_text's limit, a number beyond double's range, not a stagebench/1
// document, or too large. Safe to call from a worker thread.
LoadResult load_document(const QString& path);

}  // namespace sb::viewer
