#include "reports/runs_of.h"

namespace sb {

const nlohmann::json& runs_of(const nlohmann::json& document) {
  static const nlohmann::json empty = nlohmann::json::array();
  if (!document.is_object()) return empty;
  const auto it = document.find("runs");
  return it != document.end() && it->is_array() ? *it : empty;
}

}  // namespace sb
