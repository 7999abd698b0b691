// ConvTranspose3d with kernel == stride, padding 0 (non-overlapping): each output voxel o of
// an axis comes from input voxel i = o / k through tap t = o % k, so the op is one GEMM into
// columns cols[v, co k^3 + t] (v the input voxel (n, iz, iy, ix)) plus these moves between the
// columns and the volume. An item per element of the volume, consecutive items on consecutive
// addresses of it; every output written once (no atomics, deterministic).

// The column offset of volume element g ([N, C, D, H, W] or, channels_last, [N, D, H, W, C],
// D = d k, ...), for columns of n_ch * k^3 per input voxel.
inline size_t convt3d_column(int g, int channels_last, int n_ch, int d, int h, int w, int k,
                             int* co) {
  const int od = d * k, oh = h * k, ow = w * k;
  int r = g, n, oz, oy, ox;
  if (channels_last) {
    *co = r % n_ch;
    r /= n_ch;
    ox = r % ow;
    r /= ow;
    oy = r % oh;
    r /= oh;
    oz = r % od;
    n = r / od;
  } else {
    ox = r % ow;
    r /= ow;
    oy = r % oh;
    r /= oh;
    oz = r % od;
    r /= od;
    *co = r % n_ch;
    n = r / n_ch;
  }
  const size_t v = ((size_t)(n * d + oz / k) * h + oy / k) * w + ox / k;
  const int t = ((oz % k) * k + oy % k) * k + ox % k;
  return (v * n_ch + *co) * (size_t)(k * k * k) + t;
}

// Forward: y[g] = cols[column(g)] + bias[co].
__kernel void convt3d_scatter(__global const float* cols, __global const float* bias, int has_bias,
                              int channels_last, int n_ch, int d, int h, int w, int k, int total,
                              __global float* y) {
  const int g = get_global_id(0);
  if (g >= total) return;
  int co;
  const size_t c = convt3d_column(g, channels_last, n_ch, d, h, w, k, &co);
  y[g] = has_bias ? cols[c] + bias[co] : cols[c];
}

// Backward: cols[column(g)] = dy[g] (the columns are exactly a permutation of dy).
__kernel void convt3d_gather(__global const float* dy, int channels_last, int n_ch, int d, int h,
                             int w, int k, int total, __global float* cols) {
  const int g = get_global_id(0);
  if (g >= total) return;
  int co;
  cols[convt3d_column(g, channels_last, n_ch, d, h, w, k, &co)] = dy[g];
}

// dbias[co] = sum of dy over the batch and the voxels: a work-group of CONVT3D_WG items per
// channel, strided partial sums and a fixed tree (the same order on every run).
#define CONVT3D_WG 64
__kernel __attribute__((reqd_work_group_size(CONVT3D_WG, 1, 1))) void convt3d_bias_grad(
    __global const float* dy, int channels_last, int n_ch, int batch, int voxels,
    __global float* dbias) {
  __local float part[CONVT3D_WG];
  const int co = get_group_id(0), l = get_local_id(0);
  float acc = 0.0f;
  for (int n = 0; n < batch; ++n) {
    const size_t base =
        channels_last ? (size_t)n * voxels * n_ch + co : ((size_t)n * n_ch + co) * voxels;
    const size_t step = channels_last ? (size_t)n_ch : 1;
    for (int v = l; v < voxels; v += CONVT3D_WG) acc += dy[base + (size_t)v * step];
  }
  part[l] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = CONVT3D_WG / 2; s > 0; s >>= 1) {
    if (l < s) part[l] += part[l + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (l == 0) dbias[co] = part[0];
}
