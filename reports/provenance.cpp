#include "reports/provenance.h"

namespace sb {

std::string provenance_text(const ContextRecord& context) {
  const BuildFacts& build = context.build;
  auto or_else = [](const std::string& v, const char* fallback) {
    return v.empty() ? std::string(fallback) : v;
  };
  std::string out = "built from " + or_else(build.git, "an unrecorded commit");
  if (build.dirty)
    out += *build.dirty ? " (dirty: uncommitted changes)" : " (clean)";
  else
    out += " (dirty flag not recorded)";
  out += ", " + or_else(build.compiler, "compiler not recorded") + ", " +
         or_else(build.type, "build type not recorded");
  if (!context.environment) return out + "; environment not recorded";
  if (context.environment->empty()) return out + "; no timing knobs set in the environment";
  out += "; environment:";
  for (const auto& [name, value] : *context.environment) out += " " + name + "=" + value;
  return out;
}

}  // namespace sb
