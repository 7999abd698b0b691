#pragma once
// A backend by name, or null with the reason when this machine has none (no OpenCL device):
// tests that need one skip, naming why.
#include <exception>
#include <memory>
#include <string>

#include "models/registry.h"

namespace sb::testing {

inline std::unique_ptr<Backend> backend_or_null(const std::string& name, std::string* why) {
  try {
    return make_backend(name, "");
  } catch (const std::exception& e) {
    *why = e.what();
    return nullptr;
  }
}

}  // namespace sb::testing
