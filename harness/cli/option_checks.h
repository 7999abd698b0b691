#pragma once
// Checks for numeric options that CLI11's own validators let through: NaN passes CLI::Range
// (every comparison with NaN is false), "-1" parsed into an unsigned wraps to 2^64-1, and a
// negative batch fell back to the default. A failed check is a CLI11 validation error, which
// names the option and exits 2 like any other bad input.
#include <cmath>
#include <string>

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

// A whole number >= 0 written without a sign, so that an unsigned option cannot wrap.
inline const CLI::Validator kNonNegativeInteger(
    [](std::string& text) -> std::string {
      if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
        return "expected a whole number >= 0, got '" + text + "'";
      return {};
    },
    "UINT");

}  // namespace sb::cli
