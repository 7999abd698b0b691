// The soft Dice loss (InstanceNorm3d: instance_norm.cl; the axis-1 concat and slice run on
// copy_columns, columns.cl). A work-group of REDUCE_WG items per (n, c) instance i = n C + c,
// whose voxels sit at base + v * stride: ncdhw [N, C, V] (base i V, stride 1), ndhwc [N, V, C]
// (base n V C + c, stride C). Sums run in acc_t (double where the device has fp64; typedef and
// group_sum_acc from losses.cl, which comes before this file in the portable program) in a fixed
// order: results repeat exactly.

inline size_t volume_base(int i, int channels, int voxels, int ndhwc) {
  if (!ndhwc) return (size_t)i * voxels;
  const int n = i / channels;
  return (size_t)n * voxels * channels + (i - n * channels);
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
