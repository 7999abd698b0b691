#pragma once
// A Markdown pipe table padded to line up in a terminal; the first row is the header.
#include <string>
#include <vector>

namespace sb {

// Cells have '|' escaped and line breaks replaced by spaces so that any string keeps the table
// intact. Rows shorter than the header are padded with empty cells.
std::string markdown_table(const std::vector<std::vector<std::string>>& rows);

}  // namespace sb
