#include "tests/ops/simulator_log.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>

namespace sb::testing {

SimulatorLog::SimulatorLog() {
  if (const char* path = std::getenv("OCLGRIND_LOG"); path && *path) path_ = path;
}

uint64_t SimulatorLog::mark() const {
  if (!active()) return 0;
  std::error_code ec;
  const auto size = std::filesystem::file_size(path_, ec);
  return ec ? 0 : size;
}

std::string SimulatorLog::since(uint64_t mark) const {
  const uint64_t now = this->mark();
  if (now <= mark) return "";
  std::ifstream in(path_, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(mark));
  std::string text(static_cast<size_t>(now - mark), '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  return text;
}

// Oclgrind writes a blank line, the report's first line, then its details indented by tabs.
std::vector<SimulatorReport> split_reports(const std::string& log) {
  std::vector<SimulatorReport> out;
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);) {
    const bool starts = !line.empty() && line[0] != '\t' && line[0] != ' ';
    if (starts) out.push_back({line, ""});
    if (!out.empty()) out.back().text += line + "\n";
  }
  return out;
}

Suppressions::Suppressions() {
  const char* path = std::getenv("STAGEBENCH_OCLGRIND_SUPPRESSIONS");
  if (path == nullptr || *path == '\0') return;
  path_ = path;
  std::ifstream in(path_);
  if (!in) throw std::invalid_argument("STAGEBENCH_OCLGRIND_SUPPRESSIONS: cannot read " + path_);
  int number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    const size_t start = line.find_first_not_of(" \t");
    if (start == std::string::npos || line[start] == '#') continue;
    const size_t gap = line.find_first_of(" \t", start);
    const size_t report = gap == std::string::npos ? gap : line.find_first_not_of(" \t", gap);
    if (report == std::string::npos)
      throw std::invalid_argument(path_ + ":" + std::to_string(number) +
                                  ": want OP/CASE-REGEX REPORT-REGEX");
    try {
      rules_.push_back({number, std::regex(line.substr(start, gap - start)),
                        std::regex(line.substr(report), std::regex::icase)});
    } catch (const std::regex_error& e) {
      throw std::invalid_argument(path_ + ":" + std::to_string(number) + ": " + e.what());
    }
  }
}

int Suppressions::match(const std::string& op_case, const SimulatorReport& report) const {
  for (const Rule& r : rules_)
    if (std::regex_search(op_case, r.op_case) && std::regex_search(report.headline, r.report))
      return r.line;
  return 0;
}

std::string excerpt(const std::string& report, size_t limit) {
  if (report.size() <= limit) return report;
  return report.substr(0, limit) + "\n... (" + std::to_string(report.size()) + " bytes in all)";
}

}  // namespace sb::testing
