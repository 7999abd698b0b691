#pragma once
// The stagebench/1 document (docs/schema.md): building it, writing it atomically, reading it
// back with validation that names the file and the problem.
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "schema/records.h"

namespace sb {

// {"schema": kSchema, "context": context, "runs": runs}. runs must be an array; a null
// context becomes an empty object.
nlohmann::json make_document(const nlohmann::json& context, const nlohmann::json& runs);

// Writes to a temporary file in the same directory, fsyncs it, then renames it over `path`,
// so that a reader never sees half a document. Throws std::runtime_error naming the path.
void write_json_atomic(const std::filesystem::path& path, const nlohmann::json& document);

// Problems with a document's shape, each naming where ("runs[0].stages[2].status: ..."); empty
// when the document is a well-formed stagebench/1 document.
std::vector<std::string> validate_document(const nlohmann::json& document);

// Reads and validates a document. Throws, naming the file and the problem: std::runtime_error
// for a file that cannot be read; std::invalid_argument for a parse error (with line, column
// and byte), a number out of range, nesting deeper than kMaxJsonDepth, or validate_document's
// problems.
nlohmann::json read_document(const std::filesystem::path& path);

}  // namespace sb
