#pragma once
// j[key] of an open block where j is an object that has it, else null: how every lenient reader
// of the document's open blocks (summaries, context, a stage's sections) looks a key up.
#include <nlohmann/json.hpp>

namespace sb {

inline const nlohmann::json& json_member(const nlohmann::json& j, const char* key) {
  static const nlohmann::json null_value;
  if (!j.is_object()) return null_value;
  const auto it = j.find(key);
  return it == j.end() ? null_value : *it;
}

}  // namespace sb
