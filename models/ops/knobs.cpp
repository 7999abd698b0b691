#include "models/ops/knobs.h"

#include <cerrno>
#include <cmath>
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

double parse_positive_number_knob(const char* variable, const char* value, double unset) {
  if (!value || !*value) return unset;
  char* end = nullptr;
  errno = 0;
  const double number = std::strtod(value, &end);
  if (end == value || *end != '\0' || errno == ERANGE || !std::isfinite(number) || number <= 0)
    throw std::invalid_argument(std::string(variable) + "=" + value +
                                ": expected a number greater than zero");
  return number;
}

double read_positive_number_knob(const char* variable, double unset) {
  return parse_positive_number_knob(variable, std::getenv(variable), unset);
}

long long parse_positive_count_knob(const char* variable, const char* value, long long unset) {
  if (!value || !*value) return unset;
  char* end = nullptr;
  errno = 0;
  const long long count = std::strtoll(value, &end, 10);
  if (end == value || *end != '\0' || errno == ERANGE || count <= 0)
    throw std::invalid_argument(std::string(variable) + "=" + value +
                                ": expected a whole number greater than zero");
  return count;
}

long long read_positive_count_knob(const char* variable, long long unset) {
  return parse_positive_count_knob(variable, std::getenv(variable), unset);
}

}  // namespace sb
