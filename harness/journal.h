#pragma once
// The sweep journal: one JSON object per line, appended and fsynced line by line, so that a
// crash or a kill loses at most the line being written (docs/sweeps.md, "Journal").
//
// Records: {"type": "start", ...session facts...}
//          {"type": "partial", "key": K, "run": {... "complete": false}}
//          {"type": "complete", "key": K, "run": {... "complete": true}}
//          {"type": "failed", "key": K, "run": {... "status": "failed" | "skipped"}}
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace sb {

class JournalWriter {
 public:
  // Opens `path` for appending (creating it). A last line left unterminated by a crash is
  // closed first, so the next record starts on a line of its own. Throws std::runtime_error.
  explicit JournalWriter(const std::filesystem::path& path);
  ~JournalWriter();
  JournalWriter(const JournalWriter&) = delete;
  JournalWriter& operator=(const JournalWriter&) = delete;

  // Writes record.dump() and a newline, flushes and fsyncs; throws std::runtime_error.
  void append(const nlohmann::json& record);

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  std::FILE* file_ = nullptr;
};

struct JournalContents {
  std::map<std::string, nlohmann::json> complete;  // key -> the last complete run
  // A key's last unfinished record is in one of these two, whichever came last.
  std::map<std::string, nlohmann::json> partial;  // key -> the last partial run
  std::map<std::string, nlohmann::json> failed;   // key -> the last failed job's (stub) run
  std::map<std::string, size_t> complete_count;   // key -> how many complete records
  std::vector<nlohmann::json> starts;             // the sessions' start records, in order
  std::vector<std::string> warnings;              // lines skipped, each naming file:line
  size_t lines = 0;                               // non-blank lines, records or not
};

// Why the run of a record cannot stand for the job of its key ("" when it can). The sweep passes
// one that compares the run with its job (journal_match.h); a refused record is skipped like a
// torn line, so that an earlier record of the key (or a new measurement) takes its place.
using RecordCheck = std::function<std::string(const std::string& key, const nlohmann::json& run)>;

// Reads a journal; a missing file is an empty journal. Skipped with a warning naming file:line
// (the job then runs again): lines that do not parse as a JSON object with a known "type" (a
// torn last line after a kill), lines nested deeper than kMaxJsonDepth or naming a key twice,
// records whose run is not a valid stagebench/1 run, a complete record whose run is not
// "complete": true, a partial one whose run is not "complete": false, either holding a run that
// measured nothing ("status"), a failed one whose run has no "status", and records `check`
// refuses. Throws std::invalid_argument when the path is
// not a regular file (a FIFO) and std::runtime_error when it cannot be read.
JournalContents read_journal(const std::filesystem::path& path, const RecordCheck& check = {});

}  // namespace sb
