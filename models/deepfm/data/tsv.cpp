#include "models/deepfm/data/tsv.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>
#include <system_error>

#include "models/deepfm/data/labels.h"

namespace sb::deepfm {
namespace {

[[noreturn]] void fail(const std::filesystem::path& path, const std::string& problem) {
  throw std::invalid_argument(path.string() + ": " + problem);
}
[[noreturn]] void fail(const std::filesystem::path& path, int64_t line,
                       const std::string& problem) {
  fail(path, "line " + std::to_string(line) + ": " + problem);
}

std::vector<std::string_view> split_tabs(std::string_view line) {
  std::vector<std::string_view> fields;
  size_t begin = 0;
  while (true) {
    const size_t tab = line.find('\t', begin);
    if (tab == std::string_view::npos) {
      fields.push_back(line.substr(begin));
      return fields;
    }
    fields.push_back(line.substr(begin, tab - begin));
    begin = tab + 1;
  }
}

// Refuses what std::ifstream would accept and then misread or block on: a directory, a FIFO.
void check_regular_file(const std::filesystem::path& path) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (status.type() == std::filesystem::file_type::not_found) fail(path, "no such file");
  if (ec) fail(path, "cannot be read: " + ec.message());
  if (status.type() == std::filesystem::file_type::directory)
    fail(path, "is a directory, not a regular file");
  if (status.type() != std::filesystem::file_type::regular)
    fail(path, "is not a regular file (a FIFO, socket or device)");
}

}  // namespace

void write_tsv(const Table& table, const std::filesystem::path& path) {
  for (const auto& row : table.rows)
    for (const auto& v : row)
      if (v.find_first_of("\t\r\n") != std::string::npos)
        throw std::invalid_argument(path.string() + ": value '" + v +
                                    "' holds a tab or line break");
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw std::runtime_error(path.string() + ": cannot write: " + std::strerror(errno));
  for (int c = 0; c < kColumns; ++c) out << (c ? "\t" : "") << kColumnNames[c];
  out << '\n';
  for (const auto& row : table.rows) {
    for (int c = 0; c < kColumns; ++c) out << (c ? "\t" : "") << row[c];
    out << '\n';
  }
  out.close();
  if (!out) throw std::runtime_error(path.string() + ": write failed");
}

Table read_tsv(const std::filesystem::path& path) {
  check_regular_file(path);
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, std::string("cannot be opened: ") + std::strerror(errno));

  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
  }
  if (in.bad()) fail(path, "read error");
  while (!lines.empty() && lines.back().empty()) lines.pop_back();
  if (lines.empty()) fail(path, 1, "empty file: expected a header line naming the columns");

  // Header: where each of our columns is in the file.
  const auto header = split_tabs(lines[0]);
  std::array<int, kColumns> where;
  where.fill(-1);
  for (size_t i = 0; i < header.size(); ++i) {
    int c = 0;
    while (c < kColumns && kColumnNames[c] != header[i]) ++c;
    if (c == kColumns)
      fail(path, 1, "header has an unknown column '" + std::string(header[i]) + "'");
    if (where[c] >= 0) fail(path, 1, "header names column '" + std::string(header[i]) + "' twice");
    where[c] = static_cast<int>(i);
  }
  for (int c = 0; c < kColumns; ++c)
    if (where[c] < 0) fail(path, 1, "header lacks column '" + std::string(kColumnNames[c]) + "'");

  Table t;
  t.source = path.string();
  t.rows.reserve(lines.size() - 1);
  std::array<float, kOutcomes> multi_hot;
  for (size_t l = 1; l < lines.size(); ++l) {
    const int64_t line_no = static_cast<int64_t>(l) + 1;
    const auto fields = split_tabs(lines[l]);
    if (fields.size() != static_cast<size_t>(kColumns))
      fail(path, line_no,
           "row has " + std::to_string(fields.size()) + " field" + (fields.size() == 1 ? "" : "s") +
               ", expected " + std::to_string(kColumns));
    auto& row = t.rows.emplace_back();
    for (int c = 0; c < kColumns; ++c) {
      const std::string_view v = fields[static_cast<size_t>(where[c])];
      if (v.find_first_not_of(' ') == std::string_view::npos)
        fail(path, line_no, "empty value in column '" + std::string(kColumnNames[c]) + "'");
      row[c] = std::string(v);
    }
    if (!direction_index(row[kEffectDirection]))
      fail(path, line_no,
           "unknown effect_direction '" + row[kEffectDirection] + "' (" +
               std::to_string(kDirections) + " classes)");
    if (!type_index(row[kEffectType]))
      fail(path, line_no,
           "unknown effect_type '" + row[kEffectType] + "' (" + std::to_string(kTypes) +
               " classes)");
    if (auto problem = parse_outcomes(row[kPhenotypeOutcome], multi_hot))
      fail(path, line_no, *problem);
  }
  if (static_cast<int64_t>(t.rows.size()) < kMinRows)
    fail(path, static_cast<int64_t>(lines.size()),
         "table too small to split: " + std::to_string(t.rows.size()) +
             " data rows, need at least " + std::to_string(kMinRows) +
             " so that the 20% test split holds a row");
  return t;
}

}  // namespace sb::deepfm
