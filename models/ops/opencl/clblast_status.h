// CLBlast reports failure by status code, not by exception: the backend's CLBlast calls turn it
// into one error naming the routine, the way its own OpenCL calls do.
#pragma once

#include <clblast.h>

#include <stdexcept>
#include <string>

namespace sb {

inline void check_clblast(clblast::StatusCode status, const char* routine) {
  if (status != clblast::StatusCode::kSuccess)
    throw std::runtime_error(std::string("CLBlast ") + routine + " failed with status " +
                             std::to_string(static_cast<int>(status)));
}

inline clblast::Transpose clblast_transpose(bool t) {
  return t ? clblast::Transpose::kYes : clblast::Transpose::kNo;
}

}  // namespace sb
