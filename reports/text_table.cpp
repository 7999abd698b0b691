#include "reports/text_table.h"

#include <algorithm>

#include "reports/number_format.h"

namespace sb {
namespace {

std::string cell_text(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (const char c : s) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n' || c == '\r' || c == '\t') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::string markdown_table(const std::vector<std::vector<std::string>>& rows) {
  if (rows.empty()) return "";
  const size_t columns = rows.front().size();
  std::vector<std::vector<std::string>> cells;
  std::vector<size_t> width(columns, 1);
  for (const auto& row : rows) {
    std::vector<std::string> r(columns);
    for (size_t i = 0; i < columns && i < row.size(); ++i) r[i] = cell_text(row[i]);
    for (size_t i = 0; i < columns; ++i) width[i] = std::max(width[i], display_width(r[i]));
    cells.push_back(std::move(r));
  }
  std::string out;
  for (size_t k = 0; k < cells.size(); ++k) {
    out += '|';
    for (size_t i = 0; i < columns; ++i) {
      out += ' ' + cells[k][i] + std::string(width[i] - display_width(cells[k][i]), ' ') + " |";
    }
    out += '\n';
    if (k == 0) {
      out += '|';
      for (size_t i = 0; i < columns; ++i) out += std::string(width[i] + 2, '-') + '|';
      out += '\n';
    }
  }
  return out;
}

}  // namespace sb
