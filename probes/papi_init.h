#pragma once
// One PAPI library initialization per process, shared by the probe and the PAPI collector.
#include <string>

namespace sb {

// Initializes PAPI (library and thread support) on first call, thread-safely. Returns "" when
// PAPI is ready, otherwise why not ("built without PAPI", the init error).
const std::string& papi_init_error();

// "Event does not exist (PAPI error -7)" for a PAPI return code.
std::string papi_error_text(int code);

}  // namespace sb
