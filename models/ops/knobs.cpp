#include "models/ops/knobs.h"

#include <stdexcept>
#include <string>

namespace sb {

void throw_bad_knob(const char* variable, const char* value,
                    const std::vector<const char*>& names) {
  std::string expected;
  for (size_t i = 0; i < names.size(); ++i)
    expected += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + std::string(names[i]);
  throw std::invalid_argument(std::string(variable) + "=" + value + ": expected " + expected);
}

bool parse_on_off_knob(const char* variable, const char* value, bool unset) {
  return parse_knob(variable, value, unset, {{"on", true}, {"off", false}});
}

bool read_on_off_knob(const char* variable, bool unset) {
  return parse_on_off_knob(variable, std::getenv(variable), unset);
}

}  // namespace sb
