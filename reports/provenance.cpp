#include "reports/provenance.h"

namespace sb {
namespace {

using json = nlohmann::json;

std::string string_or(const json& object, const char* key, const std::string& fallback) {
  if (!object.is_object()) return fallback;
  const auto it = object.find(key);
  return it != object.end() && it->is_string() && !it->get<std::string>().empty()
             ? it->get<std::string>()
             : fallback;
}

}  // namespace

std::string provenance_text(const json& context) {
  const json build = context.is_object() ? context.value("build", json()) : json();
  std::string out = "built from " + string_or(build, "git", "an unrecorded commit");
  const json dirty = build.is_object() ? build.value("git_dirty", json()) : json();
  if (dirty.is_boolean())
    out += dirty.get<bool>() ? " (dirty: uncommitted changes)" : " (clean)";
  else
    out += " (dirty flag not recorded)";
  out += ", " + string_or(build, "compiler", "compiler not recorded") + ", " +
         string_or(build, "type", "build type not recorded");
  const json env = context.is_object() ? context.value("environment", json()) : json();
  if (!env.is_object()) return out + "; environment not recorded";
  if (env.empty()) return out + "; no timing knobs set in the environment";
  out += "; environment:";
  for (const auto& [name, value] : env.items())
    out += " " + name + "=" + (value.is_string() ? value.get<std::string>() : value.dump());
  return out;
}

}  // namespace sb
