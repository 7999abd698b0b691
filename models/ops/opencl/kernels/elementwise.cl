// Elementwise ops and the fp32 GEMM epilogue: one work-item per element,
// consecutive items on consecutive addresses (coalesced on GPUs, vectorized by PoCL).
// Outputs may alias inputs: each item reads its element before writing it.

__kernel void affine_channels(__global const float* x, __global const float* scale,
                              int has_scale, __global const float* shift, int has_shift,
                              int channels, int n, __global float* y) {
  const int i = get_global_id(0);
  if (i >= n) return;
  const int c = i % channels;
  float v = x[i];
  if (has_scale) v *= scale[c];
  if (has_shift) v += shift[c];
  y[i] = v;
}

__kernel void sigmoid_scaled(__global const float* x, float alpha, int n, __global float* y) {
  const int i = get_global_id(0);
  if (i < n) y[i] = 1.0f / (1.0f + exp(-alpha * x[i]));
}

__kernel void mul_elements(__global const float* a, __global const float* b, int n,
                           __global float* y) {
  const int i = get_global_id(0);
  if (i < n) y[i] = a[i] * b[i];
}

__kernel void add_elements(__global const float* a, __global const float* b, int n,
                           __global float* y) {
  const int i = get_global_id(0);
  if (i < n) y[i] = a[i] + b[i];
}

__kernel void activation(__global const float* x, int act, int n, __global float* y) {
  const int i = get_global_id(0);
  if (i < n) y[i] = apply_act(x[i], act);
}

// y[r, c] = residual[r, c] + act(acc[r, c] + bias[c]): what a GEMM library leaves undone.
// acc is the GEMM's output: y itself, or a scratch buffer when the residual is y.
__kernel void gemm_epilogue(__global const float* acc, __global const float* bias,
                            int has_bias, int act, __global const float* residual,
                            int has_residual, int cols, int n, __global float* y) {
  const int i = get_global_id(0);
  if (i >= n) return;
  float v = acc[i];
  if (has_bias) v += bias[i % cols];
  v = apply_act(v, act);
  if (has_residual) v += residual[i];
  y[i] = v;
}

// The dropout mask's hash (sb::DropoutKey; models/ops/dropout_hash.h on the host).
inline uint mix32(uint x) {
  x ^= x >> 16;
  x *= 0x21f0aaadu;
  x ^= x >> 15;
  x *= 0x735a2d97u;
  x ^= x >> 15;
  return x;
}

// y[i] = x[i] * scale where (mix32(key ^ mix32(i)) >> 8) >= threshold, else 0; y may be x.
__kernel void dropout(__global const float* x, uint key, uint threshold, float scale, int n,
                      __global float* y) {
  const int i = get_global_id(0);
  if (i >= n) return;
  const bool keep = (mix32(key ^ mix32((uint)i)) >> 8) >= threshold;
  y[i] = keep ? x[i] * scale : 0.0f;
}
