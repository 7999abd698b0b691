#include "harness/journal.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "schema/json_text.h"
#include "schema/records.h"
#include "schema/user_file.h"

namespace sb {
namespace {

std::runtime_error io_error(const std::filesystem::path& path, const std::string& what) {
  return std::runtime_error(path.string() + ": " + what + ": " + std::strerror(errno));
}

// Whether the file is non-empty and its last byte is not a newline.
bool ends_mid_line(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in || in.tellg() <= 0) return false;
  in.seekg(-1, std::ios::end);
  char last = '\n';
  in.get(last);
  return last != '\n';
}

// Why a record of `type` cannot hold `run` ("" when it can), whatever its job: a run that is not a
// valid stagebench/1 run would be written to the output as if measured (and `report` would
// reject the whole file); a "complete" record of an unfinished run (or of one that measured
// nothing) would skip a job never measured to its end.
std::string record_problem(const std::string& type, const nlohmann::json& run) {
  std::vector<std::string> problems;
  read_run(run, "run", problems);
  if (!problems.empty()) return "holds an invalid run (" + problems.front() + ")";
  const nlohmann::json complete = run.value("complete", nlohmann::json());
  if (type == "complete" && complete != true)
    return "holds a run whose \"complete\" is " +
           (complete.is_null() ? "missing" : complete.dump()) + ", not true";
  if (type == "partial" && complete != false)
    return "holds a run whose \"complete\" is " +
           (complete.is_null() ? "missing" : complete.dump()) + ", not false";
  if (type != "failed" && run.contains("status"))
    return "holds a run that measured nothing (\"status\": " + run["status"].dump() + ")";
  if (type == "failed" && !run.contains("status"))
    return "holds a run without \"status\" (a failed job's run measured nothing)";
  return {};
}

}  // namespace

JournalWriter::JournalWriter(const std::filesystem::path& path) : path_(path) {
  const bool torn = ends_mid_line(path);
  file_ = std::fopen(path.c_str(), "a");
  if (!file_) throw io_error(path, "cannot open the journal for appending");
  if (torn) {
    std::fputc('\n', file_);
    std::fflush(file_);
  }
}

JournalWriter::~JournalWriter() {
  if (file_) std::fclose(file_);
}

void JournalWriter::append(const nlohmann::json& record) {
  // Invalid UTF-8 in a message from a device driver must not lose the record.
  const std::string line =
      record.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  if (std::fwrite(line.data(), 1, line.size(), file_) != line.size() || std::fflush(file_) != 0)
    throw io_error(path_, "cannot write to the journal");
  if (fsync(fileno(file_)) != 0) throw io_error(path_, "cannot fsync the journal");
}

JournalContents read_journal(const std::filesystem::path& path, const RecordCheck& check) {
  JournalContents out;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return out;
  // read_user_file: a FIFO given as --journal is refused instead of blocking the sweep.
  std::istringstream in(read_user_file(path));
  std::string line;
  for (size_t number = 1; std::getline(in, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    ++out.lines;
    const std::string where = path.string() + ":" + std::to_string(number);
    nlohmann::json rec;
    try {
      // The one parser of users' JSON: a hostile line must not overflow the parser's stack, and
      // a record naming a key twice ("type": "partial", "type": "complete") is not read as one.
      rec = parse_json_text(line, where);
    } catch (const std::invalid_argument& e) {
      const std::string what = e.what();
      out.warnings.push_back(what.find(": not valid JSON") != std::string::npos
                                 ? where + ": not a journal record (torn by a kill?), skipped"
                                 : what + ", skipped");
      continue;
    }
    if (!rec.is_object() || !rec.contains("type") || !rec["type"].is_string()) {
      out.warnings.push_back(where + ": not a journal record (torn by a kill?), skipped");
      continue;
    }
    const std::string type = rec["type"].get<std::string>();
    if (type == "start") {
      out.starts.push_back(std::move(rec));
      continue;
    }
    if ((type != "partial" && type != "complete" && type != "failed") || !rec.contains("key") ||
        !rec["key"].is_string() || !rec.contains("run") || !rec["run"].is_object()) {
      out.warnings.push_back(where + ": unknown or incomplete record, skipped");
      continue;
    }
    const std::string key = rec["key"].get<std::string>();
    std::string problem = record_problem(type, rec["run"]);
    if (problem.empty() && check) problem = check(key, rec["run"]);
    if (!problem.empty()) {
      out.warnings.push_back(where + ": " + type + " record of " + key + " " + problem +
                             ", skipped");
      continue;
    }
    if (type == "complete") {
      out.complete[key] = std::move(rec["run"]);
      ++out.complete_count[key];
    } else if (type == "partial") {
      out.failed.erase(key);
      out.partial[key] = std::move(rec["run"]);
    } else {
      out.partial.erase(key);
      out.failed[key] = std::move(rec["run"]);
    }
  }
  return out;
}

}  // namespace sb
