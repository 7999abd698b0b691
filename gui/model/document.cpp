#include "gui/model/document.h"

#include <set>
#include <stdexcept>
#include <string_view>

#include <QFile>
#include <QFileInfo>

#include "gui/model/json_values.h"
#include "schema/json_text.h"

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
  if (s.contains("samples_ms") && !s["samples_ms"].is_array()) {
    problems.push_back(where + ".samples_ms: expected an array");
  } else if (s.contains("samples_ms")) {
    // Wall times, as the CLI's reader has them: [[1]] or -2 were drawn as measured.
    const auto& samples = s["samples_ms"];
    for (size_t i = 0; i < samples.size(); ++i)
      if (!samples[i].is_number() || !(samples[i].get<double>() >= 0)) {
        problems.push_back(where + ".samples_ms[" + std::to_string(i) +
                           "]: expected a wall time >= 0, got " + samples[i].dump());
        break;
      }
  }
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
  // "complete": "yes" was shown as a finished run.
  if (r.contains("complete") && !r["complete"].is_boolean() && !r["complete"].is_null())
    problems.push_back(where + ".complete: expected a boolean or null, got " +
                       r["complete"].dump());
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

std::string document_too_large(const nlohmann::json& document) {
  const nlohmann::json& runs = document.at("runs");
  size_t stages = 0;
  for (size_t i = 0; i < runs.size(); ++i) {
    const size_t here = runs[i].contains("stages") ? runs[i].at("stages").size() : 0;
    if (here > kMaxStagesPerRun) {
      return "runs[" + std::to_string(i) + "] has " + std::to_string(here) +
             " stages, more than the viewer shows in one run (" + std::to_string(kMaxStagesPerRun) +
             "); use `stagebench report`";
    }
    stages += here;
  }
  if (runs.size() > kMaxRuns) {
    return std::to_string(runs.size()) + " runs, more than the viewer shows (" +
           std::to_string(kMaxRuns) + "); split the file or use `stagebench report`";
  }
  if (stages > kMaxStages) {
    return std::to_string(stages) + " stages, more than the viewer shows (" +
           std::to_string(kMaxStages) + "); split the file or use `stagebench report`";
  }
  return {};
}

namespace {

LoadResult load_checked(const QString& path) {
  LoadResult result{path, nullptr, {}};
  // A FIFO would block the loader thread until a writer appears; a device may never end.
  const QFileInfo info(path);
  if (info.exists() && !info.isFile()) {
    result.error = path + QStringLiteral(": not a regular file; only regular files are read");
    return result;
  }
  if (info.size() > kMaxFileBytes) {
    result.error = path + QStringLiteral(": %1 bytes, more than the viewer reads (%2)")
                              .arg(info.size())
                              .arg(kMaxFileBytes);
    return result;
  }
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) {
    result.error = path + QStringLiteral(": cannot open: ") + file.errorString();
    return result;
  }
  const QByteArray bytes = file.readAll();
  nlohmann::json document;
  try {
    // The CLI's parser of users' JSON: nesting bounded before the recursive parse, numbers
    // beyond double's range and syntax errors named with their position.
    document = parse_json_text(
        std::string_view(bytes.constData(), static_cast<size_t>(bytes.size())), path.toStdString());
  } catch (const std::invalid_argument& e) {
    result.error = QString::fromUtf8(e.what());
    return result;
  }
  const auto problems = document_problems(document);
  if (!problems.empty()) {
    result.error = path + QStringLiteral(": not a stagebench/1 document:");
    const size_t shown = std::min<size_t>(problems.size(), 5);
    for (size_t i = 0; i < shown; ++i)
      result.error += QStringLiteral("\n  ") + display_text(problems[i]);
    if (problems.size() > shown)
      result.error += QStringLiteral("\n  ... and %1 more").arg(problems.size() - shown);
    return result;
  }
  if (const std::string why = document_too_large(document); !why.empty()) {
    result.error = path + QStringLiteral(": ") + QString::fromStdString(why);
    return result;
  }
  result.document = std::move(document);
  return result;
}

}  // namespace

LoadResult load_document(const QString& path) {
  // Every failure becomes the message: an exception escaping the loader thread would reach
  // QtConcurrent as QUnhandledException and terminate the viewer with all its open files.
  try {
    return load_checked(path);
  } catch (const std::exception& e) {
    return {path, nullptr, path + QStringLiteral(": cannot be shown: ") + display_text(e.what())};
  } catch (...) {
    return {path, nullptr, path + QStringLiteral(": cannot be shown (unknown error)")};
  }
}

}  // namespace sb::viewer
