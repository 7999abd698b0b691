#pragma once
// Checks for numeric options that CLI11's own validators let through: NaN passes CLI::Range
// (every comparison with NaN is false), "-1" parsed into an unsigned wraps to 2^64-1, a
// negative batch fell back to the default, and a number too large for its type was clamped by
// strtoll (--length 99999999999999999999 was then refused as "length 9223372036854775807").
// A failed check is a CLI11 validation error, which names the option and the value as given and
// exits 2 like any other bad input.
#include <charconv>
#include <cmath>
#include <limits>
#include <string>
#include <system_error>

#include <CLI/CLI.hpp>

namespace sb::cli {

// A finite number (no nan, inf); combine with CLI::Range for the bounds.
inline const CLI::Validator kFiniteNumber(
    [](std::string& text) -> std::string {
      double value = 0;
      if (!CLI::detail::lexical_cast(text, value)) return "expected a number, got '" + text + "'";
      if (!std::isfinite(value)) return "expected a finite number, got '" + text + "'";
      return {};
    },
    "FINITE");

// A whole number that T holds exactly; `non_negative` also refuses a sign, so that an unsigned
// option cannot wrap and a signed one has no negative values.
template <class T>
CLI::Validator whole_number(bool non_negative) {
  return CLI::Validator(
      [non_negative](std::string& text) -> std::string {
        if (text.empty() || text.find_first_not_of(non_negative ? "0123456789" : "-0123456789") !=
                                std::string::npos)
          return std::string("expected a whole number") + (non_negative ? " >= 0" : "") +
                 ", got '" + text + "'";
        T value{};
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (error == std::errc::result_out_of_range)
          return "'" + text + "' is out of range (largest " +
                 std::to_string(std::numeric_limits<T>::max()) + ")";
        if (error != std::errc() || end != text.data() + text.size())
          return "expected a whole number, got '" + text + "'";
        return {};
      },
      non_negative ? "UINT" : "INT");
}

// The common case: a count, seed or size >= 0 that fits 64 bits.
inline const CLI::Validator kNonNegativeInteger = whole_number<int64_t>(true);
inline const CLI::Validator kNonNegativeUnsigned = whole_number<uint64_t>(true);

}  // namespace sb::cli
