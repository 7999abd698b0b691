#include "gui/model/document.h"

#include <set>

#include <QFile>

namespace sb::viewer {
namespace {

constexpr const char* kSchema = "stagebench/1";

void check_stage(const nlohmann::json& s, const std::string& where,
                 std::vector<std::string>& problems) {
  if (!s.is_object()) {
    problems.push_back(where + ": expected an object, got " + s.type_name());
    return;
  }
  if (!s.contains("id") || !s["id"].is_string()) problems.push_back(where + ".id: missing string");
  static const std::set<std::string> kStatuses = {"ok", "skipped", "failed", "invalid"};
  if (!s.contains("status") || !s["status"].is_string()) {
    problems.push_back(where + ".status: missing string");
  } else if (!kStatuses.count(s["status"].get<std::string>())) {
    problems.push_back(where + ".status: '" + s["status"].get<std::string>() +
                       "' is not one of ok, skipped, failed, invalid");
  }
  for (const char* block :
       {"time", "speedup", "throughput", "memory", "correctness", "claim", "counters", "opencl"}) {
    if (s.contains(block) && !s[block].is_object() && !s[block].is_null())
      problems.push_back(where + "." + block + ": expected an object or null, got " +
                         s[block].type_name());
  }
  if (s.contains("samples_ms") && !s["samples_ms"].is_array())
    problems.push_back(where + ".samples_ms: expected an array");
}

void check_run(const nlohmann::json& r, const std::string& where,
               std::vector<std::string>& problems) {
  if (!r.is_object()) {
    problems.push_back(where + ": expected an object, got " + r.type_name());
    return;
  }
  for (const char* key : {"model", "size", "backend", "device"})
    if (!r.contains(key) || !r[key].is_string())
      problems.push_back(where + "." + key + ": missing string");
  if (!r.contains("stages") || !r["stages"].is_array()) {
    problems.push_back(where + ".stages: missing array");
    return;
  }
  const auto& stages = r["stages"];
  for (size_t i = 0; i < stages.size(); ++i)
    check_stage(stages[i], where + ".stages[" + std::to_string(i) + "]", problems);
}

}  // namespace

std::vector<std::string> document_problems(const nlohmann::json& document) {
  std::vector<std::string> problems;
  if (!document.is_object()) {
    problems.push_back(std::string("document: expected a JSON object, got ") +
                       document.type_name());
    return problems;
  }
  if (!document.contains("schema")) {
    problems.push_back(std::string("schema: missing (expected \"") + kSchema + "\")");
  } else if (document["schema"] != kSchema) {
    problems.push_back("schema: unsupported " + document["schema"].dump() + " (expected \"" +
                       kSchema + "\")");
  }
  if (document.contains("context") && !document["context"].is_object())
    problems.push_back("context: expected an object");
  if (!document.contains("runs") || !document["runs"].is_array()) {
    problems.push_back("runs: missing array");
    return problems;
  }
  const auto& runs = document["runs"];
  for (size_t i = 0; i < runs.size(); ++i)
    check_run(runs[i], "runs[" + std::to_string(i) + "]", problems);
  return problems;
}

LoadResult load_document(const QString& path) {
  LoadResult result{path, nullptr, {}};
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) {
    result.error = path + QStringLiteral(": cannot open: ") + file.errorString();
    return result;
  }
  const QByteArray bytes = file.readAll();
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(bytes.constBegin(), bytes.constEnd());
  } catch (const nlohmann::json::parse_error& e) {
    result.error = path + QStringLiteral(": not valid JSON: ") + QString::fromUtf8(e.what());
    return result;
  }
  const auto problems = document_problems(document);
  if (!problems.empty()) {
    result.error = path + QStringLiteral(": not a stagebench/1 document:");
    const size_t shown = std::min<size_t>(problems.size(), 5);
    for (size_t i = 0; i < shown; ++i)
      result.error += QStringLiteral("\n  ") + QString::fromStdString(problems[i]);
    if (problems.size() > shown)
      result.error += QStringLiteral("\n  ... and %1 more").arg(problems.size() - shown);
    return result;
  }
  result.document = std::move(document);
  return result;
}

}  // namespace sb::viewer
