#include "probes/text_file.h"

#include <cctype>
#include <fstream>
#include <sstream>

namespace sb::detail {

std::string read_text_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return {};
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string trim(const std::string& text) {
  size_t begin = 0;
  size_t end = text.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  return text.substr(begin, end - begin);
}

uint64_t parse_size_with_suffix(const std::string& text) {
  const std::string t = trim(text);
  size_t digits = 0;
  while (digits < t.size() && std::isdigit(static_cast<unsigned char>(t[digits]))) ++digits;
  if (digits == 0) return 0;
  uint64_t value = std::stoull(t.substr(0, digits));
  const char unit = digits < t.size() ? static_cast<char>(std::toupper(t[digits])) : ' ';
  switch (unit) {
    case 'K':
      return value << 10;
    case 'M':
      return value << 20;
    case 'G':
      return value << 30;
    default:
      return value;
  }
}

}  // namespace sb::detail
