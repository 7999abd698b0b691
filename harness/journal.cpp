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

JournalContents read_journal(const std::filesystem::path& path) {
  JournalContents out;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return out;
  // read_user_file: a FIFO given as --journal is refused instead of blocking the sweep.
  std::istringstream in(read_user_file(path));
  std::string line;
  for (size_t number = 1; std::getline(in, line); ++number) {
    if (line.empty()) continue;
    const std::string where = path.string() + ":" + std::to_string(number);
    try {
      check_json_depth(line, where);  // a hostile line must not overflow the parser's stack
    } catch (const std::invalid_argument& e) {
      out.warnings.push_back(std::string(e.what()) + ", skipped");
      continue;
    }
    nlohmann::json rec = nlohmann::json::parse(line, nullptr, false);
    if (rec.is_discarded() || !rec.is_object() || !rec.contains("type") ||
        !rec["type"].is_string()) {
      out.warnings.push_back(where + ": not a journal record (torn by a kill?), skipped");
      continue;
    }
    const std::string type = rec["type"].get<std::string>();
    if (type == "start") {
      out.starts.push_back(std::move(rec));
      continue;
    }
    if ((type != "partial" && type != "complete") || !rec.contains("key") ||
        !rec["key"].is_string() || !rec.contains("run") || !rec["run"].is_object()) {
      out.warnings.push_back(where + ": unknown or incomplete record, skipped");
      continue;
    }
    const std::string key = rec["key"].get<std::string>();
    // A run that is not a valid stagebench/1 run (an empty object, a wrong type) would be
    // written to the output as if measured, and `report` would reject the whole file: skip it,
    // so that --resume runs the job again.
    std::vector<std::string> problems;
    read_run(rec["run"], "run", problems);
    if (!problems.empty()) {
      out.warnings.push_back(where + ": " + type + " record of " + key + " holds an invalid run (" +
                             problems.front() + "), skipped");
      continue;
    }
    if (type == "complete") {
      out.complete[key] = std::move(rec["run"]);
      ++out.complete_count[key];
    } else {
      out.partial[key] = std::move(rec["run"]);
    }
  }
  return out;
}

}  // namespace sb
