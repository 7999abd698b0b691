// The soft Dice loss (InstanceNorm3d: instance_norm.cl; the axis-1 concat and slice run on
// copy_columns, columns.cl), per (n, c) instance i = n C + c of [N, C, V] (ncdhw) or [N, V, C]
// (ndhwc). Sums run in acc_t (double where the device has fp64; typedef from losses.cl, which
// comes before this file in the portable program, as volume_chunks.cl does) in a fixed order:
// results repeat exactly.

inline acc_t dice_sigmoid(float z) {
  const acc_t e = exp(-fabs((acc_t)z));
  return z >= 0.0f ? 1 / (1 + e) : e / (1 + e);
}

// Per instance, p = sigmoid(z): I = sum p t, S = sum p + sum t + smooth, f[i] = 1 - (2 I +
// smooth) / S; dz = -k (2 t S - (2 I + smooth)) / S^2 p (1 - p), k = scale / (N C). In three
// steps, as instance_norm.cl: chunk sums (volume_chunks.cl's work-groups; DynUNet's 8 instances
// of 64^3 voxels, a work-group each, took 1.3 ms on an H100), a fixed-order sum per instance,
// then dz elementwise.
// partials[((n C + c) chunks + j) 3 + k]: sum p t, sum p, sum t over chunk j.
__kernel __attribute__((reqd_work_group_size(REDUCE_WG, 1, 1)))
void soft_dice_partials(__global const float* z, __global const float* t, int C, int V,
                        int ndhwc, int cb_size, int chunk, __global acc_t* partials) {
  __local acc_t scratch[3 * REDUCE_WG];
  const int item = get_local_id(0), j = get_group_id(0), n = get_group_id(2);
  const int rows = REDUCE_WG / cb_size, r = item / cb_size;
  const int c = get_group_id(1) * cb_size + item % cb_size;
  const bool active = r < rows && c < C;
  const int v0 = j * chunk, v1 = min(V, v0 + chunk);
  acc_t inter = 0, sp = 0, st = 0;
  if (active)
    for (int v = v0 + r; v < v1; v += rows) {
      const size_t e = chunk_at(n, c, v, C, V, ndhwc);
      const acc_t p = dice_sigmoid(z[e]);
      inter += p * t[e];
      sp += p;
      st += t[e];
    }
  scratch[item] = inter;
  scratch[REDUCE_WG + item] = sp;
  scratch[2 * REDUCE_WG + item] = st;
  chunk_rows_sum(scratch, 3, item, r, rows, cb_size, active);
  if (active && r == 0) {
    const size_t slot = ((size_t)(n * C + c) * get_num_groups(0) + j) * 3;
    for (int k = 0; k < 3; ++k) partials[slot + k] = scratch[k * REDUCE_WG + item];
  }
}

// f[i] and coef[2 i] = 2 I + smooth, coef[2 i + 1] = S. An item per instance.
__kernel void soft_dice_finalize(__global const acc_t* partials, int count, int chunks,
                                 float smooth, __global acc_t* f, __global acc_t* coef) {
  const int i = get_global_id(0);
  if (i >= count) return;
  acc_t s[3] = {0, 0, 0};
  for (int j = 0; j < chunks; ++j)
    for (int k = 0; k < 3; ++k) s[k] += partials[((size_t)i * chunks + j) * 3 + k];
  const acc_t num = 2 * s[0] + smooth, den = s[1] + s[2] + smooth;
  f[i] = 1 - num / den;
  coef[2 * i] = num;
  coef[2 * i + 1] = den;
}

__kernel void soft_dice_apply(__global const float* z, __global const float* t, int C, int V,
                              int ndhwc, __global const acc_t* coef, float k, __global float* dz,
                              int total) {
  const int e = get_global_id(0);
  if (e >= total) return;
  const int i = ndhwc ? e / (V * C) * C + e % C : e / V;
  const acc_t num = coef[2 * i], den = coef[2 * i + 1];
  const acc_t p = dice_sigmoid(z[e]);
  dz[e] = (float)(-k / (den * den) * (2 * t[e] * den - num) * p * (1 - p));
}

// loss[slot] = the mean of f over the instances, in order. One item.
__kernel void soft_dice_mean(__global const acc_t* f, int count, int slot, __global float* loss) {
  if (get_global_id(0) != 0) return;
  acc_t s = 0;
  for (int i = 0; i < count; ++i) s += f[i];
  loss[slot] = (float)(s / count);
}
