#include "schema/json_text.h"

#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>
#include <vector>

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

// nlohmann's parser keeps the last of two equal keys, so {"status": "failed", "status": "ok"}
// read as "ok": a file that says two things must not be read as one of them. This SAX handler
// builds the same tree as json::parse (it forwards every event to nlohmann's own DOM builder)
// and refuses a key its object already has, naming the object's path. Keys are compared after
// unescaping, so "a\u0062" repeats "ab".
class NoDuplicateKeys {
 public:
  using json = nlohmann::json;
  NoDuplicateKeys(json& root, const std::string& source) : dom_(root, true), source_(source) {}

  bool null() { return begin_value(), dom_.null(); }
  bool boolean(bool v) { return begin_value(), dom_.boolean(v); }
  bool number_integer(json::number_integer_t v) { return begin_value(), dom_.number_integer(v); }
  bool number_unsigned(json::number_unsigned_t v) { return begin_value(), dom_.number_unsigned(v); }
  bool number_float(json::number_float_t v, const json::string_t& s) {
    return begin_value(), dom_.number_float(v, s);
  }
  bool string(json::string_t& v) { return begin_value(), dom_.string(v); }
  bool binary(json::binary_t& v) { return begin_value(), dom_.binary(v); }
  bool start_object(std::size_t n) {
    begin_value();
    frames_.push_back({true, {}, {}, 0});
    return dom_.start_object(n);
  }
  bool key(json::string_t& k) {
    Frame& f = frames_.back();
    if (!f.keys.insert(k).second) {
      const std::string where = path();
      throw std::invalid_argument(source_ + ": duplicate key \"" + shown(k) + "\" " +
                                  (where.empty() ? "at the top level" : "in " + where) +
                                  " (a JSON object names each key once)");
    }
    f.key = k;
    return dom_.key(k);
  }
  bool end_object() {
    frames_.pop_back();
    return dom_.end_object();
  }
  bool start_array(std::size_t n) {
    begin_value();
    frames_.push_back({false, {}, {}, 0});
    return dom_.start_array(n);
  }
  bool end_array() {
    frames_.pop_back();
    return dom_.end_array();
  }
  template <class Exception>
  bool parse_error(std::size_t at, const std::string& token, const Exception& e) {
    return dom_.parse_error(at, token, e);  // rethrows: parse_json_text names the position
  }

 private:
  struct Frame {
    bool object;
    std::set<std::string> keys;  // an object's keys so far
    std::string key;             // an object's current key
    size_t count;                // an array's elements begun so far
  };

  void begin_value() {
    if (!frames_.empty() && !frames_.back().object) ++frames_.back().count;
  }

  // "runs[0].stages[1]": where the innermost open object sits.
  std::string path() const {
    std::string p;
    for (size_t i = 0; i + 1 < frames_.size(); ++i) {
      const Frame& f = frames_[i];
      if (f.object) {
        if (!p.empty()) p += '.';
        p += shown(f.key);
      } else {
        p += '[';
        p += std::to_string(f.count - 1);
        p += ']';
      }
    }
    return p;
  }

  // A hostile key can be a megabyte long: messages show its start.
  static std::string shown(const std::string& key) {
    constexpr size_t kShown = 60;
    return key.size() > kShown ? key.substr(0, kShown) + "..." : key;
  }

  nlohmann::detail::json_sax_dom_parser<json> dom_;
  const std::string& source_;
  std::vector<Frame> frames_;
};

}  // namespace

nlohmann::json parse_json_text(std::string_view text, const std::string& source, int max_depth) {
  check_json_depth(text, source, max_depth);
  try {
    nlohmann::json root;
    NoDuplicateKeys handler(root, source);
    nlohmann::json::sax_parse(text.begin(), text.end(), &handler);
    return root;
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

nlohmann::json json_number_or_null(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json();
}

int64_t json_int64(const nlohmann::json& value, const std::string& what) {
  if (!value.is_number_integer()) throw std::invalid_argument(what + " is not an integer");
  if (value.is_number_unsigned() &&
      value.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
    throw std::invalid_argument(what + " is " + value.dump() + ", beyond a 64-bit integer");
  return value.get<int64_t>();
}

}  // namespace sb
