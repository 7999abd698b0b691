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
  if (!document.is_object()) {
    problems.push_back(std::string("document: expected a JSON object, got ") +
                       document.type_name());
    return problems;
  }
  auto schema = document.find("schema");
  if (schema == document.end()) {
    problems.push_back("schema: missing (expected \"" + std::string(kSchema) + "\")");
  } else if (!schema->is_string() || schema->get<std::string>() != kSchema) {
    problems.push_back("schema: unsupported " + schema->dump() + " (expected \"" + kSchema + "\")");
  }
  auto need = [&](const char* key, bool (nlohmann::json::*is)() const noexcept,
                  const char* expected) {
    auto it = document.find(key);
    if (it == document.end()) {
      problems.push_back(std::string("document.") + key + ": missing");
    } else if (!((*it).*is)()) {
      problems.push_back(std::string("document.") + key + ": expected " + expected + ", got " +
                         it->type_name());
    } else {
      return true;
    }
    return false;
  };
  need("context", &nlohmann::json::is_object, "an object");
  if (need("runs", &nlohmann::json::is_array, "an array")) {
    const auto& runs = document.at("runs");
    for (size_t i = 0; i < runs.size(); ++i)
      read_run(runs[i], "runs[" + std::to_string(i) + "]", problems);
  }
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
