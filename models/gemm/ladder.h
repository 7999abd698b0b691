#pragma once
// The GEMM benchmark's ladder: the same product at each precision the op layer has a kernel for.
// Stage 0 is the backend's fp32 library GEMM (CLBlast on OpenCL, Eigen/oneDNN on the CPU); each
// later stage is one switch, the prepared Weight's precision, checked against stage 0. A kernel
// benchmark: no document makes a claim about it.
#include <string>
#include <vector>

#include "contract/workload.h"
#include "models/ops/backend.h"

namespace sb::gemm {

enum StageIndex : size_t { kFp32 = 0, kTf32, kFp16, kInt8, kStageCount };

struct Switches {
  Precision precision = Precision::f32;  // of the prepared weight, hence of the GEMM
};

const std::vector<StageSpec>& ladder();
size_t stage_index(const std::string& id);  // throws naming the unknown stage and the ladder
Switches switches_for(size_t stage);

}  // namespace sb::gemm
