#include "models/deepfm/data/table.h"

#include <stdexcept>

namespace sb::deepfm {

TableSpec table_spec(const std::string& size, uint64_t seed, int64_t rows) {
  TableSpec s{};
  if (size == "tiny")
    s = {{100, 50, 20, 30}, 2000, seed};
  else if (size == "small" || size == "full")
    s = {{839, 2309, 846, 460}, 6600, seed};
  else
    throw std::invalid_argument("deepfm: unknown size '" + size + "' (tiny, small or full)");
  if (rows < 0 || (rows > 0 && rows < kMinRows))
    throw std::invalid_argument("deepfm: " + std::to_string(rows) + " rows, need at least " +
                                std::to_string(kMinRows) + " to split 80/20");
  if (rows > 0) s.rows = rows;
  return s;
}

}  // namespace sb::deepfm
