#include "gui/model/json_values.h"

#include <cmath>

namespace sb::viewer {

std::optional<double> number(const nlohmann::json& j, const char* key) {
  const auto& v = member(j, key);
  if (!v.is_number()) return std::nullopt;
  const double d = v.get<double>();
  return std::isfinite(d) ? std::optional<double>(d) : std::nullopt;
}

QString text(const nlohmann::json& j, const char* key, const QString& fallback) {
  const auto& v = member(j, key);
  return v.is_string() ? display_text(v.get_ref<const std::string&>()) : fallback;
}

QString text(const std::optional<std::string>& t) {
  return t ? display_text(*t) : QString();
}

std::optional<double> run_batch(const RunRecord& run) {
  return number(run.params, "batch");
}

std::optional<double> known(double v) {
  return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

QVariant sort_value(std::optional<double> v) {
  return v ? QVariant(*v) : QVariant();
}

QString format_number(std::optional<double> v, int decimals) {
  return v ? QString::number(*v, 'f', decimals) : QStringLiteral("-");
}

QString format_ms(std::optional<double> ms) {
  if (!ms) return QStringLiteral("-");
  const double a = std::fabs(*ms);
  return QString::number(*ms, 'f', a >= 100 ? 1 : a >= 1 ? 2 : 4);
}

QString format_bytes(std::optional<double> bytes) {
  if (!bytes) return QStringLiteral("-");
  const double b = *bytes;
  if (b >= 1e9) return QString::number(b / 1e9, 'f', 2) + QStringLiteral(" GB");
  if (b >= 1e6) return QString::number(b / 1e6, 'f', 1) + QStringLiteral(" MB");
  if (b >= 1e3) return QString::number(b / 1e3, 'f', 1) + QStringLiteral(" kB");
  return QString::number(b, 'f', 0) + QStringLiteral(" B");
}

QString format_percent(std::optional<double> fraction, int decimals) {
  return fraction ? QString::number(*fraction * 100, 'f', decimals) + QLatin1Char('%')
                  : QStringLiteral("-");
}

QString scalar_text(const nlohmann::json& j) {
  if (j.is_null()) return QStringLiteral("-");
  if (j.is_string()) return display_text(j.get_ref<const std::string&>());
  return display_text(j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

QString display_text(std::string_view s) {
  if (s.size() <= kMaxDisplayBytes) return QString::fromUtf8(s.data(), static_cast<int>(s.size()));
  size_t cut = kMaxDisplayBytes;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;  // UTF-8 start
  return QString::fromUtf8(s.data(), static_cast<int>(cut)) +
         QStringLiteral("... (%1 bytes)").arg(s.size());
}

}  // namespace sb::viewer
