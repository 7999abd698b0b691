#include "schema/document.h"

#include <cmath>
#include <stdexcept>

#include "schema/atomic_file.h"
#include "schema/user_file.h"

namespace sb {

nlohmann::json make_document(const nlohmann::json& context, const nlohmann::json& runs) {
  if (!runs.is_array()) throw std::invalid_argument("make_document: runs must be an array");
  return {{"schema", kSchema},
          {"context", context.is_null() ? nlohmann::json::object() : context},
          {"runs", runs}};
}

void write_json_atomic(const std::filesystem::path& path, const nlohmann::json& document) {
  // Strict UTF-8 would throw on a stray byte in a kernel or device name; replace instead.
  write_text_atomic(path,
                    document.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

std::vector<std::string> validate_document(const nlohmann::json& document) {
  std::vector<std::string> problems;
  read_document_record(document, problems);
  return problems;
}

nlohmann::json read_document(const std::filesystem::path& path) {
  const nlohmann::json document = read_json_file(path);
  const auto problems = validate_document(document);
  if (!problems.empty()) {
    std::string msg = path.string() + ": not a " + kSchema + " document:";
    const size_t shown = std::min<size_t>(problems.size(), 10);
    for (size_t i = 0; i < shown; ++i) msg += "\n  " + problems[i];
    if (problems.size() > shown) {
      msg += "\n  ... and " + std::to_string(problems.size() - shown) + " more";
    }
    throw std::invalid_argument(msg);
  }
  return document;
}

}  // namespace sb
