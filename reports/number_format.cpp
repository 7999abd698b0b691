#include "reports/number_format.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace sb {
namespace {

std::string printf_double(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

}  // namespace

std::string format_fixed(double v, int decimals) {
  if (!std::isfinite(v)) return "-";
  char buf[512];  // %.*f of 1e308 needs 309 digits
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string format_significant(double v) {
  if (!std::isfinite(v)) return "-";
  const double a = std::fabs(v);
  if (a >= 1e6 || (a > 0 && a < 0.01)) return printf_double("%.3g", v);
  if (a >= 100) return printf_double("%.0f", v);
  if (a >= 10) return printf_double("%.1f", v);
  return printf_double("%.2f", v);
}

std::string format_bytes(double bytes) {
  if (!std::isfinite(bytes)) return "-";
  const double a = std::fabs(bytes);
  if (a >= 1e9) return printf_double("%.2f GB", bytes / 1e9);
  if (a >= 1e6) return printf_double("%.0f MB", bytes / 1e6);
  if (a >= 1e3) return printf_double("%.0f KB", bytes / 1e3);
  return printf_double("%.0f B", bytes);
}

std::string format_percent_change(double ratio) {
  if (!std::isfinite(ratio)) return "-";
  const double pct = (ratio - 1) * 100;
  if (std::fabs(pct) > 1e6) return printf_double("%+.3g%%", pct);
  return printf_double("%+.0f%%", pct);
}

std::string format_round_trip(double v) {
  if (std::isnan(v)) return "";
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

size_t display_width(const std::string& s) {
  size_t n = 0;
  for (const unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

}  // namespace sb
