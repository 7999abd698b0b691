// Losses (cross_entropy: one work-group computes the gradient and reduces the loss, small
// [rows, classes] tensors; bce_with_logits, like sum_squares, a work-group per chunk, then one
// work-group over the chunks: partials_final). Every sum runs in a fixed order for a given device and shape, so
// results repeat exactly from run to run. Sums accumulate in double where the device has fp64
// (the portable program never requires it).
#if defined(cl_khr_fp64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double acc_t;
#else
typedef float acc_t;
#endif

// group_sum (common.cl) in acc_t.
inline acc_t group_sum_acc(acc_t v, __local acc_t* scratch) {
  const int t = get_local_id(0);
  scratch[t] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int offset = REDUCE_WG / 2; offset > 0; offset >>= 1) {
    if (t < offset) scratch[t] += scratch[t + offset];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const acc_t r = scratch[0];
  barrier(CLK_LOCAL_MEM_FENCE);
  return r;
}

// dz = scale (sigmoid(z) - t) / n over a chunk of per_group elements a work-group, and the
// chunk's sum of max(z, 0) - z t + log1p(exp(-|z|)) into partials[group]; partials_final then
// writes their mean. Chunks, not one work-group: DynUNet full's 2M logits took 2.35 ms on one
// H100 multiprocessor (results/h100/gpu27-2026-11-28/check/).
__kernel __attribute__((reqd_work_group_size(REDUCE_WG, 1, 1)))
void bce_with_logits_partial(__global const float* z, __global const float* target, int n,
                             int per_group, float scale, __global acc_t* partials,
                             __global float* dz) {
  __local acc_t scratch[REDUCE_WG];
  const int start = get_group_id(0) * per_group;
  const int end = min(n, start + per_group);
  acc_t s = 0;
  for (int i = start + get_local_id(0); i < end; i += REDUCE_WG) {
    const float v = z[i], t = target[i];
    const float e = exp(-fabs(v));
    s += fmax(v, 0.0f) - v * t + log1p(e);
    const float sig = v >= 0.0f ? 1.0f / (1.0f + e) : e / (1.0f + e);
    dz[i] = scale * (sig - t) / n;
  }
  s = group_sum_acc(s, scratch);
  if (get_local_id(0) == 0) partials[get_group_id(0)] = s;
}

// torch.nn.functional.cross_entropy(weight=w, label_smoothing=eps, reduction='mean') over
// z [rows, classes] and labels [rows]; w = 1 without weights (has_w = 0):
//   loss = sum_r [(1-eps) w[y_r] (lse_r - z[r,y_r]) + eps/C sum_c w[c] (lse_r - z[r,c])] / W,
//   W = sum_r w[y_r],
//   dz[r,c] = scale / W [(1-eps) w[y_r] (p[r,c] - [c = y_r]) + eps/C (sum_k w[k] p[r,c] - w[c])].
// One work-group: an item per row (classes are few), the loss and W reduced over the group.
__kernel __attribute__((reqd_work_group_size(REDUCE_WG, 1, 1)))
void cross_entropy(__global const float* z, __global const int* labels, __global const float* w,
                   int has_w, int rows, int classes, float smoothing, float scale, int slot,
                   __global float* loss, __global float* dz) {
  __local acc_t scratch[REDUCE_WG];
  const float keep = 1.0f - smoothing, spread = smoothing / classes;
  float w_all = 0.0f;  // sum_k w[k]
  for (int c = 0; c < classes; ++c) w_all += has_w ? w[c] : 1.0f;
  acc_t num = 0, den = 0;
  for (int r = get_local_id(0); r < rows; r += REDUCE_WG) {
    __global const float* zr = z + (size_t)r * classes;
    const int y = labels[r];
    float m = -INFINITY;
    for (int c = 0; c < classes; ++c) m = fmax(m, zr[c]);
    float e = 0.0f;
    for (int c = 0; c < classes; ++c) e += exp(zr[c] - m);
    const float lse = m + log(e);
    float smooth = 0.0f;
    for (int c = 0; c < classes; ++c) smooth += (has_w ? w[c] : 1.0f) * (lse - zr[c]);
    const float wy = has_w ? w[y] : 1.0f;
    num += keep * wy * (lse - zr[y]) + spread * smooth;
    den += wy;
  }
  num = group_sum_acc(num, scratch);
  den = group_sum_acc(den, scratch);
  if (get_local_id(0) == 0) loss[slot] = (float)(num / den);
  const float g = scale / (float)den;
  for (int r = get_local_id(0); r < rows; r += REDUCE_WG) {
    __global const float* zr = z + (size_t)r * classes;
    __global float* dr = dz + (size_t)r * classes;
    const int y = labels[r];
    float m = -INFINITY;
    for (int c = 0; c < classes; ++c) m = fmax(m, zr[c]);
    float e = 0.0f;
    for (int c = 0; c < classes; ++c) e += exp(zr[c] - m);
    const float lse = m + log(e);
    const float wy = has_w ? w[y] : 1.0f;
    for (int c = 0; c < classes; ++c) {
      const float p = exp(zr[c] - lse);
      const float d = keep * wy * (p - (c == y ? 1.0f : 0.0f)) +
                      spread * (w_all * p - (has_w ? w[c] : 1.0f));
      dr[c] = g * d;
    }
  }
}

// partials[g] = sum of x[i]^2 over the group's chunk [g * per_group, (g + 1) * per_group).
__kernel __attribute__((reqd_work_group_size(REDUCE_WG, 1, 1)))
void sum_squares_partial(__global const float* x, int n, int per_group,
                         __global acc_t* partials) {
  __local acc_t scratch[REDUCE_WG];
  const int start = get_group_id(0) * per_group;
  const int end = min(n, start + per_group);
  acc_t s = 0;
  for (int i = start + get_local_id(0); i < end; i += REDUCE_WG) {
    const acc_t v = x[i];
    s += v * v;
  }
  s = group_sum_acc(s, scratch);
  if (get_local_id(0) == 0) partials[get_group_id(0)] = s;
}

// out[slot] = the sum of the partials / divisor (1: sum_squares; n: the BCE mean); one
// work-group.
__kernel __attribute__((reqd_work_group_size(REDUCE_WG, 1, 1)))
void partials_final(__global const acc_t* partials, int groups, int divisor, int slot,
                    __global float* out) {
  __local acc_t scratch[REDUCE_WG];
  acc_t s = 0;
  for (int g = get_local_id(0); g < groups; g += REDUCE_WG) s += partials[g];
  s = group_sum_acc(s, scratch);
  if (get_local_id(0) == 0) out[slot] = (float)(s / divisor);
}
