#include "contract/workload.h"

#include <stdexcept>

namespace sb {

size_t find_stage(const std::vector<StageSpec>& ladder, const std::string& id,
                  const std::string& model) {
  std::string known;
  for (size_t i = 0; i < ladder.size(); ++i) {
    if (ladder[i].id == id || std::to_string(i) == id) return i;
    known += (i ? ", " : "") + ladder[i].id;
  }
  throw std::invalid_argument(model + ": unknown stage '" + id + "' (stages: " + known + ")");
}

}  // namespace sb
