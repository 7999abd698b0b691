#include "schema/json_text.h"

#include <stdexcept>

namespace sb {

std::string json_position(std::string_view text, size_t byte) {
  const size_t end = std::min(byte > 0 ? byte - 1 : 0, text.size());
  size_t line = 1, column = 1;
  for (size_t i = 0; i < end; ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return "line " + std::to_string(line) + ", column " + std::to_string(column) + " (byte " +
         std::to_string(byte) + ")";
}

void check_json_depth(std::string_view text, const std::string& source, int max_depth) {
  int depth = 0;
  bool in_string = false, escaped = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) {
        throw std::invalid_argument(source + ": nested deeper than " + std::to_string(max_depth) +
                                    " levels at " + json_position(text, i + 1));
      }
    } else if (c == ']' || c == '}') {
      --depth;  // unbalanced text is the parser's to report
    }
  }
}

namespace {

// ": 1e999 at line L, column C (byte B)" from nlohmann's "number overflow parsing '1e999'", which
// names the literal but not where it is; empty when the message has no quoted literal.
std::string overflowing_literal(std::string_view text, const std::string& what) {
  const size_t open = what.find('\'');
  const size_t close = what.rfind('\'');
  if (open == std::string::npos || close <= open + 1) return {};
  const std::string literal = what.substr(open + 1, close - open - 1);
  const size_t at = text.find(literal);
  // A hostile literal can be a megabyte of digits: the message shows its start.
  constexpr size_t kShown = 40;
  const std::string shown = literal.size() > kShown ? literal.substr(0, kShown) + "..." : literal;
  if (at == std::string_view::npos) return ": " + shown;
  return ": " + shown + " at " + json_position(text, at + 1);
}

}  // namespace

nlohmann::json parse_json_text(std::string_view text, const std::string& source) {
  check_json_depth(text, source);
  try {
    return nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::parse_error& e) {
    throw std::invalid_argument(source + ": not valid JSON at " + json_position(text, e.byte) +
                                ": " + e.what());
  } catch (const nlohmann::json::out_of_range& e) {
    throw std::invalid_argument(source + ": a number is outside the range of a double" +
                                overflowing_literal(text, e.what()));
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument(source + ": unreadable JSON: " + e.what());
  }
}

}  // namespace sb
