#include "gui/model/document.h"

#include <stdexcept>
#include <string_view>

#include <QFile>
#include <QFileInfo>

#include "gui/model/json_values.h"
#include "schema/json_text.h"

namespace sb::viewer {

std::string document_too_large(const DocumentRecord& document) {
  const std::vector<RunRecord>& runs = document.runs;
  size_t stages = 0;
  for (size_t i = 0; i < runs.size(); ++i) {
    const size_t here = runs[i].stages.size();
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
  LoadResult result{path, {}, {}};
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
  std::vector<std::string> problems;
  DocumentRecord record = read_document_record(document, problems);
  if (!problems.empty()) {
    result.error = path + QStringLiteral(": not a stagebench/1 document:");
    const size_t shown = std::min<size_t>(problems.size(), 5);
    for (size_t i = 0; i < shown; ++i)
      result.error += QStringLiteral("\n  ") + display_text(problems[i]);
    if (problems.size() > shown)
      result.error += QStringLiteral("\n  ... and %1 more").arg(problems.size() - shown);
    return result;
  }
  if (const std::string why = document_too_large(record); !why.empty()) {
    result.error = path + QStringLiteral(": ") + QString::fromStdString(why);
    return result;
  }
  result.document = std::move(record);
  return result;
}

}  // namespace

LoadResult load_document(const QString& path) {
  // Every failure becomes the message: an exception escaping the loader thread would reach
  // QtConcurrent as QUnhandledException and terminate the viewer with all its open files.
  try {
    return load_checked(path);
  } catch (const std::exception& e) {
    return {path, {}, path + QStringLiteral(": cannot be shown: ") + display_text(e.what())};
  } catch (...) {
    return {path, {}, path + QStringLiteral(": cannot be shown (unknown error)")};
  }
}

}  // namespace sb::viewer
