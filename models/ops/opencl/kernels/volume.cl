// The 3-D volume ops that are not convolutions: InstanceNorm3d and its backward, the soft Dice
// loss (the axis-1 concat and slice run on copy_columns, columns.cl). A work-group of REDUCE_WG
// items per (n, c) instance i = n C + c, whose voxels sit at base + v * stride: ncdhw
// [N, C, V] (base i V, stride 1), ndhwc [N, V, C] (base n V C + c, stride C). Sums run in acc_t
// (double where the device has fp64; typedef and group_sum_acc from losses.cl, which comes
// before this file in the portable program) in a fixed order: results repeat exactly.

inline size_t volume_base(int i, int channels, int voxels, int ndhwc) {
  if (!ndhwc) return (size_t)i * voxels;
  const int n = i / channels;
  return (size_t)n * voxels * channels + (i - n * channels);
}

// mean and 1 / sqrt(biased variance + eps) of one instance, two passes.
inline void volume_moments(__global const float* x, size_t base, int stride, int voxels,
                           float eps, __local acc_t* scratch, acc_t* mean, acc_t* rstd) {
  acc_t s = 0;
  for (int v = get_local_id(0); v < voxels; v += REDUCE_WG) s += x[base + (size_t)v * stride];
  const acc_t m = group_sum_acc(s, scratch) / voxels;
  acc_t q = 0;
  for (int v = get_local_id(0); v < voxels; v += REDUCE_WG) {
    const acc_t d = x[base + (size_t)v * stride] - m;
    q += d * d;
  }
  *mean = m;
  *rstd = 1 / sqrt(group_sum_acc(q, scratch) / voxels + eps);
}

// y = act((x - mean) rstd gamma[c] + beta[c] + residual) (residual when has_residual); y may
// be x. A work-group per instance.
__kernel __attribute__((reqd_work_group_size(REDUCE_WG, 1, 1)))
void instance_norm(__global const float* x, int channels, int voxels, int ndhwc,
                   __global const float* gamma, __global const float* beta, float eps,
                   __global float* y, __global const float* residual, int has_residual, int act) {
  __local acc_t scratch[REDUCE_WG];
  const int i = get_group_id(0), c = i % channels;
  const size_t base = volume_base(i, channels, voxels, ndhwc);
  const int stride = ndhwc ? channels : 1;
  acc_t mean, rstd;
  volume_moments(x, base, stride, voxels, eps, scratch, &mean, &rstd);
  const float scale = (float)(rstd * gamma[c]);
  const float shift = (float)(beta[c] - mean * rstd * gamma[c]);
  for (int v = get_local_id(0); v < voxels; v += REDUCE_WG) {
    const size_t e = base + (size_t)v * stride;
    float t = x[e] * scale + shift;
    if (has_residual) t += residual[e];
    y[e] = apply_act(t, act);
  }
}

// dx = rstd (gamma dy - mean(gamma dy) - xhat mean(gamma dy xhat)); dx may be dy (every dy is
// read into the sums before the first dx is written, and each item rewrites only what it read).
// partials[2 i] = sum dy xhat, partials[2 i + 1] = sum dy (acc_t). A work-group per instance.
__kernel __attribute__((reqd_work_group_size(REDUCE_WG, 1, 1)))
void instance_norm_backward(__global const float* x, int channels, int voxels, int ndhwc,
                            __global const float* gamma, float eps, __global const float* dy,
                            __global float* dx, __global acc_t* partials) {
  __local acc_t scratch[REDUCE_WG];
  const int i = get_group_id(0), c = i % channels;
  const size_t base = volume_base(i, channels, voxels, ndhwc);
  const int stride = ndhwc ? channels : 1;
  acc_t mean, rstd;
  volume_moments(x, base, stride, voxels, eps, scratch, &mean, &rstd);
  acc_t sdy = 0, sdyx = 0;
  for (int v = get_local_id(0); v < voxels; v += REDUCE_WG) {
    const size_t e = base + (size_t)v * stride;
    sdy += dy[e];
    sdyx += dy[e] * ((x[e] - mean) * rstd);
  }
  sdy = group_sum_acc(sdy, scratch);
  sdyx = group_sum_acc(sdyx, scratch);
  if (get_local_id(0) == 0) {
    partials[2 * i] = sdyx;
    partials[2 * i + 1] = sdy;
  }
  const acc_t g = gamma[c];
  const acc_t mg = g * sdy / voxels, mgx = g * sdyx / voxels;
  for (int v = get_local_id(0); v < voxels; v += REDUCE_WG) {
    const size_t e = base + (size_t)v * stride;
    const acc_t xhat = (x[e] - mean) * rstd;
    dx[e] = (float)(rstd * (g * dy[e] - mg - xhat * mgx));
  }
}

// dgamma[c], dbeta[c]: the instances' partials summed over the batch in order. An item per
// channel.
__kernel void instance_norm_backward_params(__global const acc_t* partials, int batch,
                                            int channels, __global float* dgamma,
                                            __global float* dbeta) {
  const int c = get_global_id(0);
  if (c >= channels) return;
  acc_t g = 0, b = 0;
  for (int n = 0; n < batch; ++n) {
    g += partials[2 * (n * channels + c)];
    b += partials[2 * (n * channels + c) + 1];
  }
  dgamma[c] = (float)g;
  dbeta[c] = (float)b;
}

inline acc_t dice_sigmoid(float z) {
  const acc_t e = exp(-fabs((acc_t)z));
  return z >= 0.0f ? 1 / (1 + e) : e / (1 + e);
}

// Per instance, p = sigmoid(z): I = sum p t, S = sum p + sum t + smooth, f[i] = 1 - (2 I +
// smooth) / S; dz = -k (2 t S - (2 I + smooth)) / S^2 p (1 - p), k = scale / (N C).
// A work-group per instance.
__kernel __attribute__((reqd_work_group_size(REDUCE_WG, 1, 1)))
void soft_dice(__global const float* z, __global const float* t, int channels, int voxels,
               int ndhwc, float smooth, float k, __global acc_t* f, __global float* dz) {
  __local acc_t scratch[REDUCE_WG];
  const int i = get_group_id(0);
  const size_t base = volume_base(i, channels, voxels, ndhwc);
  const int stride = ndhwc ? channels : 1;
  acc_t inter = 0, sp = 0, st = 0;
  for (int v = get_local_id(0); v < voxels; v += REDUCE_WG) {
    const size_t e = base + (size_t)v * stride;
    const acc_t p = dice_sigmoid(z[e]);
    inter += p * t[e];
    sp += p;
    st += t[e];
  }
  inter = group_sum_acc(inter, scratch);
  sp = group_sum_acc(sp, scratch);
  st = group_sum_acc(st, scratch);
  const acc_t num = 2 * inter + smooth, den = sp + st + smooth;
  if (get_local_id(0) == 0) f[i] = 1 - num / den;
  const acc_t g = -k / (den * den);
  for (int v = get_local_id(0); v < voxels; v += REDUCE_WG) {
    const size_t e = base + (size_t)v * stride;
    const acc_t p = dice_sigmoid(z[e]);
    dz[e] = (float)(g * (2 * t[e] * den - num) * p * (1 - p));
  }
}

// loss[slot] = the mean of f over the instances, in order. One item.
__kernel void soft_dice_mean(__global const acc_t* f, int count, int slot, __global float* loss) {
  if (get_global_id(0) != 0) return;
  acc_t s = 0;
  for (int i = 0; i < count; ++i) s += f[i];
  loss[slot] = (float)(s / count);
}
