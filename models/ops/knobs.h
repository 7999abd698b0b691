#pragma once
// The STAGEBENCH_* knobs' one reader (docs list each knob; scripts/check_knobs.py checks they
// are documented). A knob is unset, empty or one of its names; anything else throws
// std::invalid_argument "VARIABLE=value: expected a, b or c", which the CLI reports as bad input
// (exit 2), so a mistyped knob never times the path it did not ask for. No OpenCL here: the
// parsers are tested without a device (tests/ops/knobs_test.cpp).
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <type_traits>
#include <vector>

namespace sb {

// One accepted value of a knob and what it means.
template <typename T>
struct KnobValue {
  const char* name;
  T value;
};

// Throws std::invalid_argument naming the variable, the value and the accepted `names`.
[[noreturn]] void throw_bad_knob(const char* variable, const char* value,
                                 const std::vector<const char*>& names);

// `value` (the text of `variable`; null when unset) read by its table: `unset` when null or empty,
// else the value of the entry named so. The variable's name is passed as a literal at each call,
// where check_knobs.py finds it.
template <typename T>
T parse_knob(const char* variable, const char* value, T unset,
             std::initializer_list<KnobValue<std::type_identity_t<T>>> table) {
  if (!value || !*value) return unset;
  for (const auto& entry : table)
    if (std::strcmp(value, entry.name) == 0) return entry.value;
  std::vector<const char*> names;
  for (const auto& entry : table) names.push_back(entry.name);
  throw_bad_knob(variable, value, names);
}

template <typename T>
T read_knob(const char* variable, T unset,
            std::initializer_list<KnobValue<std::type_identity_t<T>>> table) {
  return parse_knob(variable, std::getenv(variable), unset, table);
}

// The kernel-path knobs' grammar (gemm_path.h, conv_path.h): unset, empty, "auto" or "on" leave
// the choice to the device and the call (Knob::automatic); "off" forces the older path.
template <typename Knob>
Knob parse_auto_off_knob(const char* variable, const char* value) {
  return parse_knob(variable, value, Knob::automatic,
                    {{"auto", Knob::automatic}, {"on", Knob::automatic}, {"off", Knob::off}});
}

// The A/B switch most paths have: "on" or "off", `unset` when unset or empty.
bool parse_on_off_knob(const char* variable, const char* value, bool unset = true);
bool read_on_off_knob(const char* variable, bool unset = true);

// A knob that is a number: `unset` when unset or empty, else the whole text read as a finite
// number greater than zero; anything else ("abc", "12x", "0", "-3", "inf") throws
// std::invalid_argument naming the variable, where std::atoll/atof would have read 0 and
// silently chosen another path.
double parse_positive_number_knob(const char* variable, const char* value, double unset);
double read_positive_number_knob(const char* variable, double unset);
// The same for a count (a whole number of work-groups, bytes, ...): a fraction throws too.
long long parse_positive_count_knob(const char* variable, const char* value, long long unset);
long long read_positive_count_knob(const char* variable, long long unset);

}  // namespace sb
