#include "probes/papi_init.h"

#ifdef STAGEBENCH_HAVE_PAPI
#include <papi.h>
#include <pthread.h>
#endif

namespace sb {

#ifdef STAGEBENCH_HAVE_PAPI

namespace {

unsigned long current_thread_id() {
  return static_cast<unsigned long>(pthread_self());
}

std::string initialize_papi() {
  const int version = PAPI_library_init(PAPI_VER_CURRENT);
  if (version != PAPI_VER_CURRENT) {
    if (version > 0) return "PAPI header/library version mismatch";
    return "PAPI_library_init failed: " + papi_error_text(version);
  }
  // Models run OpenMP threads; PAPI must know threads exist even though it counts one.
  const int rc = PAPI_thread_init(current_thread_id);
  if (rc != PAPI_OK) return "PAPI_thread_init failed: " + papi_error_text(rc);
  return {};
}

}  // namespace

const std::string& papi_init_error() {
  static const std::string error = initialize_papi();
  return error;
}

std::string papi_error_text(int code) {
  const char* text = PAPI_strerror(code);
  return std::string(text ? text : "unknown error") + " (PAPI error " + std::to_string(code) + ")";
}

#else

const std::string& papi_init_error() {
  static const std::string error = "built without PAPI";
  return error;
}

std::string papi_error_text(int code) {
  return "PAPI error " + std::to_string(code);
}

#endif

}  // namespace sb
