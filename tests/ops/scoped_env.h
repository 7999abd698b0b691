#pragma once
// An environment variable set for one scope and unset after it: the op tests set knobs the
// backend or a parser reads, and a knob left behind would change every later test's path.
#include <cstdlib>
#include <string>

namespace sb::testing {

struct ScopedEnv {
  ScopedEnv(const char* name, const std::string& value) : name(name) {
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() { ::unsetenv(name); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
  const char* name;
};

}  // namespace sb::testing
