// Elementwise ops and the fp32 GEMM epilogue: four consecutive elements an item (16-byte loads
// and stores, LOAD4 and AT4, where all four lie below n, else one at a time), consecutive items on consecutive
// addresses. One element an item, these passes moved about 2 TB/s on the H200 (affine_channels
// and add_key_bias over Geneformer's 2 GB score tensors), under half its memory's bandwidth,
// and the integer division for a channel index ran once per element.
// Outputs may alias inputs: each item reads its elements before writing them.

// Four per-channel values from channel c on, wrapping at `channels`.
inline float4 channels4(__global const float* p, int c, int channels) {
  float4 r;
  r.x = p[c];
  c = c + 1 == channels ? 0 : c + 1;
  r.y = p[c];
  c = c + 1 == channels ? 0 : c + 1;
  r.z = p[c];
  c = c + 1 == channels ? 0 : c + 1;
  r.w = p[c];
  return r;
}

__kernel void affine_channels(__global const float* x, __global const float* scale,
                              int has_scale, __global const float* shift, int has_shift,
                              int channels, int n, __global float* y) {
  const int i = get_global_id(0) * 4;
  if (i + 3 < n) {
    const int c = i % channels;
    float4 v = LOAD4(x, i);
    if (has_scale) v *= channels4(scale, c, channels);
    if (has_shift) v += channels4(shift, c, channels);
    AT4(y, i) = v;
    return;
  }
  for (int j = i; j < n; ++j) {
    float v = x[j];
    if (has_scale) v *= scale[j % channels];
    if (has_shift) v += shift[j % channels];
    y[j] = v;
  }
}

__kernel void sigmoid_scaled(__global const float* x, float alpha, int n, __global float* y) {
  const int i = get_global_id(0) * 4;
  if (i + 3 < n) {
    AT4(y, i) = 1.0f / (1.0f + exp(-alpha * LOAD4(x, i)));
    return;
  }
  for (int j = i; j < n; ++j) y[j] = 1.0f / (1.0f + exp(-alpha * x[j]));
}

__kernel void mul_elements(__global const float* a, __global const float* b, int n,
                           __global float* y) {
  const int i = get_global_id(0) * 4;
  if (i + 3 < n) {
    AT4(y, i) = LOAD4(a, i) * LOAD4(b, i);
    return;
  }
  for (int j = i; j < n; ++j) y[j] = a[j] * b[j];
}

__kernel void add_elements(__global const float* a, __global const float* b, int n,
                           __global float* y) {
  const int i = get_global_id(0) * 4;
  if (i + 3 < n) {
    AT4(y, i) = LOAD4(a, i) + LOAD4(b, i);
    return;
  }
  for (int j = i; j < n; ++j) y[j] = a[j] + b[j];
}

__kernel void activation(__global const float* x, int act, int n, __global float* y) {
  const int i = get_global_id(0) * 4;
  for (int j = i; j < min(i + 4, n); ++j) y[j] = apply_act(x[j], act);
}

// y[r, c] = residual[r, c] + act(acc[r, c] + bias[c]): what a GEMM library leaves undone.
// acc is the GEMM's output: y itself, or a scratch buffer when the residual is y.
__kernel void gemm_epilogue(__global const float* acc, __global const float* bias,
                            int has_bias, int act, __global const float* residual,
                            int has_residual, int cols, int n, __global float* y) {
  const int i = get_global_id(0) * 4;
  if (i + 3 < n) {
    float4 v = LOAD4(acc, i);
    if (has_bias) v += channels4(bias, i % cols, cols);
    v = apply_act4(v, act);
    if (has_residual) v += LOAD4(residual, i);
    AT4(y, i) = v;
    return;
  }
  for (int j = i; j < n; ++j) {
    float v = acc[j];
    if (has_bias) v += bias[j % cols];
    v = apply_act(v, act);
    if (has_residual) v += residual[j];
    y[j] = v;
  }
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

// y = dropout(act(x)): activation's value, then dropout's, as the two kernels compute them; and
// where has_y16, its f16 copy (f16_activations.cpp) rounded as vstore_half rounds.
__kernel void activation_dropout(__global const float* x, int act, uint key, uint threshold,
                                 float scale, int n, __global float* y, __global half* y16,
                                 int has_y16) {
  const int i = get_global_id(0);
  if (i >= n) return;
  const bool keep = (mix32(key ^ mix32((uint)i)) >> 8) >= threshold;
  const float v = keep ? apply_act(x[i], act) * scale : 0.0f;
  y[i] = v;
  if (has_y16) vstore_half(v, i, y16);
}
