#pragma once
// The environment as the op tests see it: a knob set for one scope (ScopedEnv), and whether the
// run was started with a knob at a value (env_is), for tests that skip or adapt where a knob
// the suite runs under (scripts/oclgrind-ci.sh, A/B runs) turns their path off.
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>

namespace sb::testing {

// Sets `name` for one scope and puts back what the run had after (unset where it was unset): a
// knob left behind, or one the run was started with lost, would change every later test's path.
struct ScopedEnv {
  ScopedEnv(const char* name, const std::string& value) : name(name) {
    if (const char* v = std::getenv(name)) outer = v;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (outer)
      ::setenv(name, outer->c_str(), 1);
    else
      ::unsetenv(name);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
  const char* name;
  std::optional<std::string> outer;
};

// Whether the environment sets `name` to exactly `value`.
inline bool env_is(const char* name, const char* value) {
  const char* v = std::getenv(name);
  return v != nullptr && std::strcmp(v, value) == 0;
}

}  // namespace sb::testing
