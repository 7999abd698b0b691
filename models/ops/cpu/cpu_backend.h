#pragma once
// The CPU backend: Eigen3 GEMMs and OpenMP loops, oneDNN for the bf16 and int8 GEMMs.
#include <memory>

#include "models/ops/backend.h"

namespace sb {

std::unique_ptr<Backend> make_cpu_backend();

}  // namespace sb
