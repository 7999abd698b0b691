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

// Reads, parses and checks the file. Never throws: failures come back in LoadResult::error.
// Safe to call from a worker thread.
LoadResult load_document(const QString& path);

}  // namespace sb::viewer
