#pragma once
// Parsing JSON that comes from a user's file (results, journals, sweep configs, thresholds,
// safetensors headers, the viewer's files). Every problem is a std::invalid_argument that names
// the source and where in it: a syntax error (line, column), a number outside double's range,
// nesting deeper than kMaxJsonDepth, or a key an object names twice. The depth is checked by a
// linear scan before parsing, so hostile nesting never reaches the recursive parser (a stack
// overflow) and large flat documents pay no per-value callback.
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace sb {

inline constexpr int kMaxJsonDepth = 128;

// "line L, column C (byte B)" of a 1-based byte offset, as nlohmann reports positions.
std::string json_position(std::string_view text, size_t byte);

// Throws std::invalid_argument "SOURCE: nested deeper than 128 levels at line L, column C".
void check_json_depth(std::string_view text, const std::string& source,
                      int max_depth = kMaxJsonDepth);

// Also refuses an object that names a key twice ("SOURCE: duplicate key "k" in runs[0]"): nlohmann
// would keep the last value silently. `max_depth`: a tighter limit for formats that nest less.
nlohmann::json parse_json_text(std::string_view text, const std::string& source,
                               int max_depth = kMaxJsonDepth);

// A finite number, else null: JSON has no NaN or Inf.
nlohmann::json json_number_or_null(double v);

// An integer field as int64. Throws std::invalid_argument "WHAT is not an integer", or "WHAT is
// 18446744073709551615, beyond a 64-bit integer" for an unsigned value past INT64_MAX, which
// nlohmann's get<int64_t>() would wrap (2^64-1 read as -1).
int64_t json_int64(const nlohmann::json& value, const std::string& what);

}  // namespace sb
