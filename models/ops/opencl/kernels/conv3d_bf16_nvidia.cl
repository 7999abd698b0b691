// bf16 on NVIDIA's tensor cores for conv3d's implicit GEMMs (issue 27: DynUNet's bf16-mixed
// stage computes in bf16 on NVIDIA, as PyTorch's autocast does): mma.sync's bf16 form and the
// fp32 -> bf16 conversion. Only conv3d's bf16 program includes this file
// (conv3d_igemm.cpp), so a driver that rejects these forms fails bf16 calls alone.

// bf16 x bf16 -> f32 (sm_80+): mma_f16's fragment layout, so the pipeline's ldmatrix loads serve
// both.
inline void mma_bf16(float* c, uint a0, uint a1, uint a2, uint a3, uint b0, uint b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

// fp32 -> bf16 bits, rounded to nearest even (sm_80+), NaN kept a NaN.
inline ushort to_bf16_bits(float v) {
  ushort r;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(r) : "f"(v));
  return r;
}

// fp32 -> bf16 bits, four per item, as f32_to_f16 (gemm_pipelined.cl).
__kernel void f32_to_bf16(__global const float* src, __global ushort* dst, int n) {
  const int i = get_global_id(0) * 4;
  if (i + 3 < n) {
    const float4 v = LOAD4(src, i);
    *(__global ushort4*)(dst + i) = (ushort4)(to_bf16_bits(v.x), to_bf16_bits(v.y),
                                              to_bf16_bits(v.z), to_bf16_bits(v.w));
  } else {
    for (int j = i; j < n; ++j) dst[j] = to_bf16_bits(src[j]);
  }
}

