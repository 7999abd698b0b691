#pragma once
// The op table under Oclgrind (scripts/oclgrind-ci.sh, docs/testing.md): the simulator writes
// its reports (data races, uninitialized values, out-of-bounds accesses, its own fatal errors)
// to the file OCLGRIND_LOG names, one at a time and flushed as each happens. The table reads
// what a case added there, so that a report fails the case that caused it, named.
#include <cstdint>
#include <regex>
#include <string>
#include <vector>

namespace sb::testing {

class SimulatorLog {
 public:
  // The file named by OCLGRIND_LOG; inactive when unset (not under Oclgrind, or no --log).
  SimulatorLog();
  bool active() const { return !path_.empty(); }
  // Bytes in the log now: a mark to read from.
  uint64_t mark() const;
  // Everything the simulator wrote since `mark`.
  std::string since(uint64_t mark) const;

 private:
  std::string path_;
};

// One report: its first line ("Read-write data race at global memory address ...",
// "Uninitialized value written to ...", "OCLGRIND FATAL ERROR ...") and its whole text.
struct SimulatorReport {
  std::string headline, text;
};
std::vector<SimulatorReport> split_reports(const std::string& log);

// Reports judged simulator false positives, never silently: the file that
// STAGEBENCH_OCLGRIND_SUPPRESSIONS names holds lines "OP/CASE-REGEX REPORT-REGEX" (the first
// regex searched in "op/case", the rest of the line in the report's first line, ignoring case),
// '#' comments with each one's evidence above it. Throws std::invalid_argument on a bad line.
class Suppressions {
 public:
  Suppressions();
  // The file's line that suppresses `report` on `op_case`, or 0 when none does.
  int match(const std::string& op_case, const SimulatorReport& report) const;
  const std::string& path() const { return path_; }

 private:
  struct Rule {
    int line;
    std::regex op_case, report;
  };
  std::string path_;
  std::vector<Rule> rules_;
};

// The first `limit` bytes of a report, and how long it was: a race is reported once per address,
// so one case can write thousands.
std::string excerpt(const std::string& report, size_t limit = 4000);

}  // namespace sb::testing
