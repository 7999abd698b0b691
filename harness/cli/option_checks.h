#pragma once
// Checks for numeric options that CLI11's own validators let through: NaN passes CLI::Range
// (every comparison with NaN is false), "-1" parsed into an unsigned wraps to 2^64-1, a
// negative batch fell back to the default, and a number too large for its type was clamped by
// strtoll (--length 99999999999999999999 was then refused as "length 9223372036854775807").
// A failed check is a CLI11 validation error, which names the option and the value as given and
// exits 2 like any other bad input.
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>

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

// A name that must not be empty: an explicit '' read as the option's default (no timeline,
// standard output, the default journal or partition) and ran on without a word.
inline const CLI::Validator kNonEmpty(
    [](std::string& text) -> std::string {
      return text.empty() ? std::string("expected a value, got ''") : std::string();
    },
    "");

// `--batch`: a whole number >= 0, or "auto" (the batch search, harness/cli/batch_auto.h).
inline const CLI::Validator kBatchOrAuto(
    [](std::string& text) -> std::string {
      if (text == "auto") return {};
      return kNonNegativeInteger(text);
    },
    "UINT|auto");

// "512M", "1.5GiB", "1000000": bytes, with K/M/G/T as powers of 1024 (KB, KiB alike, as memory
// is counted); a bad text is std::invalid_argument naming it. Above 2^63 is out of range.
inline uint64_t parse_byte_size(const std::string& text) {
  size_t end = 0;
  double value = 0;
  try {
    value = std::stod(text, &end);
  } catch (const std::exception&) {
    end = 0;
  }
  std::string unit = text.substr(end);
  for (char& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  double scale = 0;
  for (const auto& [name, s] : {std::pair{"", 1.0},
                                {"B", 1.0},
                                {"K", 0x1p10},
                                {"KB", 0x1p10},
                                {"KIB", 0x1p10},
                                {"M", 0x1p20},
                                {"MB", 0x1p20},
                                {"MIB", 0x1p20},
                                {"G", 0x1p30},
                                {"GB", 0x1p30},
                                {"GIB", 0x1p30},
                                {"T", 0x1p40},
                                {"TB", 0x1p40},
                                {"TIB", 0x1p40}})
    if (unit == name) scale = s;
  if (end == 0 || scale == 0 || !std::isfinite(value) || value <= 0 || text.front() == '+')
    throw std::invalid_argument("expected a size in bytes > 0 (e.g. 512M, 2GiB, 1000000), got '" +
                                text + "'");
  const double bytes = value * scale;
  if (bytes >= 0x1p63) throw std::invalid_argument("'" + text + "' is out of range");
  if (bytes < 1)  // 0 bytes would read as "no cap"
    throw std::invalid_argument("'" + text + "' is less than one byte");
  return static_cast<uint64_t>(bytes);
}

inline const CLI::Validator kByteSize(
    [](std::string& text) -> std::string {
      try {
        parse_byte_size(text);
      } catch (const std::invalid_argument& e) {
        return e.what();
      }
      return {};
    },
    "BYTES");

}  // namespace sb::cli
