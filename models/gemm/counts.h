#pragma once
// FLOPs and minimum bytes of one GEMM y[M, N] = x[M, K] . W[N, K]^T: 2 M N K FLOPs; one read of
// x and W at the stage's element size (what its kernel loads: fp16 and int8 operands are half and
// a quarter of fp32's) and one fp32 write of y.
#include "contract/workload.h"
#include "models/gemm/config.h"
#include "models/ops/backend.h"

namespace sb::gemm {

double element_bytes(Precision p);
WorkCounts gemm_counts(const Config& c, Precision p);

}  // namespace sb::gemm
