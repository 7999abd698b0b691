#pragma once
// Reading optional values out of stagebench/1 JSON and formatting them for tables: a missing
// key or null is "unknown" and shows as "-", never as 0.
#include <optional>
#include <string_view>

#include <QString>
#include <QVariant>
#include <nlohmann/json.hpp>

#include "reports/stage_row.h"

namespace sb::viewer {

// Open blocks (the context, params, a collector's or a model's own sections) are JSON their
// writers define; these read them defensively. The schema's own fields are typed records.
using ::sb::member;  // reports/stage_row.h: j[key], or null on any other shape
std::optional<double> number(const nlohmann::json& j, const char* key);
QString text(const nlohmann::json& j, const char* key, const QString& fallback = {});
// A text field of a record, elided like display_text; empty when unknown.
QString text(const std::optional<std::string>& t);

// The run's batch (params.batch), when a number.
std::optional<double> run_batch(const RunRecord& run);

// A computed figure as the tables' optional: NaN (unknown, as StageRow writes it) and Inf are
// empty, shown as "-".
std::optional<double> known(double v);

// The value as a sortable QVariant: a double, or invalid when unknown.
QVariant sort_value(std::optional<double> v);

QString format_number(std::optional<double> v, int decimals);
QString format_ms(std::optional<double> ms);
QString format_bytes(std::optional<double> bytes);
QString format_percent(std::optional<double> fraction, int decimals = 0);
// A JSON scalar as display text (strings unquoted); objects and arrays as compact JSON. Elided
// like display_text.
QString scalar_text(const nlohmann::json& j);

// Text from a file as the tables show it: at most kMaxDisplayBytes of it, then "... (N bytes)".
// A hostile 1 MB stage id laid out in every cell, tooltip and chart label grew the viewer to
// 17 GB; no real id, name or note comes near this length.
inline constexpr size_t kMaxDisplayBytes = 256;
QString display_text(std::string_view s);

}  // namespace sb::viewer
