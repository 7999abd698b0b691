// How this binary was built: compiler, flags, type, git commit and dirty flag (stamped at build
// time, cmake/build_stamp.cmake) and the versions of the libraries compiled in.
#include "probes/probe.h"

#if __has_include("build_stamp.h")
#include "build_stamp.h"
#endif

#ifdef STAGEBENCH_HAVE_PAPI
#include <papi.h>
#endif

#ifndef STAGEBENCH_GIT
#define STAGEBENCH_GIT "unknown"
#endif
#ifndef STAGEBENCH_GIT_DIRTY
#define STAGEBENCH_GIT_DIRTY -1
#endif
#ifndef STAGEBENCH_VERSION
#define STAGEBENCH_VERSION "unknown"
#endif
#ifndef STAGEBENCH_BUILD_TYPE
#define STAGEBENCH_BUILD_TYPE "unknown"
#endif
#ifndef STAGEBENCH_CXX_FLAGS
#define STAGEBENCH_CXX_FLAGS ""
#endif

namespace sb {

namespace {

std::string compiler_name() {
#if defined(__clang__)
  return std::string("clang ") + __VERSION__;
#elif defined(__GNUC__)
  return std::string("gcc ") + __VERSION__;
#else
  return __VERSION__;
#endif
}

}  // namespace

BuildInfo probe_build() {
  BuildInfo build;
  build.compiler = compiler_name();
  build.flags = STAGEBENCH_CXX_FLAGS;
  build.type = STAGEBENCH_BUILD_TYPE;
  build.git = STAGEBENCH_GIT;
  if (STAGEBENCH_GIT_DIRTY >= 0) build.git_dirty = STAGEBENCH_GIT_DIRTY == 1;
  build.version = STAGEBENCH_VERSION;
  build.libraries = nlohmann::json::object();
  build.libraries["nlohmann_json"] = std::to_string(NLOHMANN_JSON_VERSION_MAJOR) + "." +
                                     std::to_string(NLOHMANN_JSON_VERSION_MINOR) + "." +
                                     std::to_string(NLOHMANN_JSON_VERSION_PATCH);
#ifdef STAGEBENCH_HAVE_PAPI
  build.libraries["papi_headers"] = std::to_string(PAPI_VERSION_MAJOR(PAPI_VERSION)) + "." +
                                    std::to_string(PAPI_VERSION_MINOR(PAPI_VERSION)) + "." +
                                    std::to_string(PAPI_VERSION_REVISION(PAPI_VERSION)) + "." +
                                    std::to_string(PAPI_VERSION_INCREMENT(PAPI_VERSION));
#endif
#ifdef CL_HPP_TARGET_OPENCL_VERSION
  build.libraries["opencl_target"] = std::to_string(CL_HPP_TARGET_OPENCL_VERSION);
#endif
  return build;
}

}  // namespace sb
