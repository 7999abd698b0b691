// Shared helpers of the portable program. OpenCL C 1.2; no cl_khr_fp16 needed anywhere.
// REDUCE_WG (work-group size of the row reductions) is set by the build options.

// The activation codes (SB_ACT_*) and the half flags (ACT_HALF_*) come from
// models/ops/activation_codes.h, which C++ reads too (sb::Act); cl_common_source puts it first.
inline float apply_act(float v, int act) {
  if (act == SB_ACT_RELU) return fmax(v, 0.0f);
  if (act == SB_ACT_GELU) return v / (1.0f + exp(-1.702f * v));
  if (act == SB_ACT_SOFTPLUS)
    return fmax(v, 0.0f) + log1p(exp(-fabs(v)));  // no overflow for large v
  if (act == SB_ACT_GELU_ERF) return 0.5f * v * (1.0f + erf(v * M_SQRT1_2_F));
  if (act == SB_ACT_LEAKY_RELU) return v > 0.0f ? v : 0.01f * v;
  if (act == SB_ACT_SIGMOID) return 1.0f / (1.0f + exp(-v));
  return v;
}

inline float4 apply_act4(float4 v, int act) {
  return (float4)(apply_act(v.x, act), apply_act(v.y, act), apply_act(v.z, act),
                  apply_act(v.w, act));
}

// Activations that may hold half bits (issue 27: a half-precision stage keeps them in f16
// between its kernels; statistics and arithmetic stay fp32). A kernel taking them has an
// `int halves` argument: which of its tensors are f16 (ACT_HALF_*, set by the host from their
// dtypes).
inline float act_load(__global const float* p, size_t i, int in_half) {
  return in_half ? vload_half(i, (__global const half*)p) : p[i];
}
inline void act_store(__global float* p, size_t i, float v, int in_half) {
  if (in_half)
    vstore_half_rte(v, i, (__global half*)p);
  else
    p[i] = v;
}

// Elements i .. i + 3 of a tensor's buffer as one 16-byte access, for kernels taking four
// consecutive elements an item: i is a multiple of 4 and buffers start aligned (sub-buffers at
// CL_DEVICE_MEM_BASE_ADDR_ALIGN), so unlike vload4, whose pointer need only be float-aligned,
// this compiles to one vector instruction.
#define AT4(p, i) (*(__global float4*)((p) + (i)))
#define LOAD4(p, i) (*(__global const float4*)((p) + (i)))

// Tree reductions over a work-group of REDUCE_WG items; every item gets the result.
// `scratch` holds REDUCE_WG floats.
inline float group_sum(float v, __local float* scratch) {
  const int t = get_local_id(0);
  scratch[t] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int offset = REDUCE_WG / 2; offset > 0; offset >>= 1) {
    if (t < offset) scratch[t] += scratch[t + offset];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const float r = scratch[0];
  barrier(CLK_LOCAL_MEM_FENCE);  // scratch may be reused right after
  return r;
}

inline float group_max(float v, __local float* scratch) {
  const int t = get_local_id(0);
  scratch[t] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int offset = REDUCE_WG / 2; offset > 0; offset >>= 1) {
    if (t < offset) scratch[t] = fmax(scratch[t], scratch[t + offset]);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const float r = scratch[0];
  barrier(CLK_LOCAL_MEM_FENCE);
  return r;
}

// fp32 -> bf16 bits rounded to nearest even, a NaN kept a NaN: the bits of cvt.rn.bf16.f32
// (conv3d_bf16_nvidia.cl's to_bf16_bits, what f32_to_bf16 writes) in integer arithmetic that
// every device has, for producers that write the bf16 copy a bf16 convolution reads beside
// their fp32 output (instance_norm.cl, columns.cl; models/ops/opencl/bf16_copies.cpp).
inline ushort bf16_bits_rne(float v) {
  const uint b = as_uint(v);
  if ((b & 0x7fffffffu) > 0x7f800000u) return (ushort)0x7fff;
  return (ushort)((b + 0x7fffu + ((b >> 16) & 1u)) >> 16);
}

// Eight consecutive activations from element i (a multiple of 8; buffers start aligned): one
// 16-byte load of f16 bits, two of fp32. Out of range (in == 0): zeros, nothing read.
inline void act_load8(__global const float* p, size_t i, int in_half, int in, float* v) {
  if (!in) {
#pragma unroll
    for (int k = 0; k < 8; ++k) v[k] = 0.0f;
  } else if (in_half) {
    const uint4 raw = *(__global const uint4*)((__global const ushort*)p + i);
#pragma unroll
    for (int k = 0; k < 8; ++k) v[k] = vload_half(k, (const __private half*)&raw);
  } else {
    const float4 a = LOAD4(p, i), b = LOAD4(p, i + 4);
    v[0] = a.x, v[1] = a.y, v[2] = a.z, v[3] = a.w, v[4] = b.x, v[5] = b.y, v[6] = b.z, v[7] = b.w;
  }
}

inline void act_store8(__global float* p, size_t i, const float* v, int in_half) {
  if (in_half) {
    uint4 raw;
#pragma unroll
    for (int k = 0; k < 8; ++k) vstore_half_rte(v[k], k, (__private half*)&raw);
    *(__global uint4*)((__global ushort*)p + i) = raw;
  } else {
    AT4(p, i) = (float4)(v[0], v[1], v[2], v[3]);
    AT4(p, i + 4) = (float4)(v[4], v[5], v[6], v[7]);
  }
}

// LayerNorm's last step for the eight columns c .. c+7 a lane holds: o = (v - mean) inv_std gamma
// + beta.
inline void layernorm_values8(const float* v, float mean, float inv_std,
                              __global const float* gamma, __global const float* beta, int c,
                              float* o) {
  const float4 g0 = LOAD4(gamma, c), g1 = LOAD4(gamma, c + 4);
  const float4 b0 = LOAD4(beta, c), b1 = LOAD4(beta, c + 4);
  const float gs[8] = {g0.x, g0.y, g0.z, g0.w, g1.x, g1.y, g1.z, g1.w};
  const float bs[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
  for (int k = 0; k < 8; ++k) o[k] = (v[k] - mean) * inv_std * gs[k] + bs[k];
}

// layernorm_values8's values stored at y + i as act_store8 does (the portable vec8 kernels,
// norms.cl, and NVIDIA's warp kernels, layernorm_warp_nvidia.cl).
inline void layernorm_store8(const float* v, float mean, float inv_std, __global const float* gamma,
                             __global const float* beta, int c, __global float* y, size_t i,
                             int in_half) {
  float o[8];
  layernorm_values8(v, mean, inv_std, gamma, beta, c, o);
  act_store8(y, i, o, in_half);
}
