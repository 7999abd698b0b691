#pragma once
// The NVIDIA tensor-core attention kernels' OpenCL C (kernels/attention_*_nvidia.cl and the
// bodies they instantiate), for the mma program (gemm_mma.cpp), which puts it after
// gemm_mma_nvidia.cl and gemm_pipelined.cl (mma_f16, mma_tf32, cp.async, ldmatrix).
#include <string>

namespace sb {

// Masked (attention_f16_mma, _x2, _direct, _direct_plain, attention_tf32_mma), their packing
// passes (attention_pack_f16, _tf32) and relative (rel_attention_f16_mma, _tf32_mma).
std::string attention_mma_source();

}  // namespace sb
