// conv3d and its backward ops (PyTorch's Conv3d, cubic kernel k, stride, padding), as column
// GEMMs (CLBlast) around these kernels. The columns of a chunk of output voxels: row r of the
// flattened (n, output voxel) index in [r0, r0 + rows), column kk = c k^3 + (kz k + ky) k + kx
// (the weight's [out, in, k, k, k] order), stored at cols[(r - r0) ld_r + kk ld_k] (ld_r = 1 for
// ncdhw's [K, rows] columns, ld_k = 1 for ndhwc's [rows, K]). Volumes are [N, C, D, H, W] in
// ncdhw (channels_last = 0) or ndhwc (channels_last = 1). No atomics: each item writes one
// element.

inline size_t conv3d_at(int channels_last, int n, int c, int z, int y, int x, int C, int D, int H,
                        int W) {
  if (channels_last) return (((size_t)n * D + z) * H + y) * (size_t)W * C + (size_t)x * C + c;
  return (((size_t)n * C + c) * D + z) * (size_t)H * W + (size_t)y * W + x;
}

// An item per column element, in the order they are stored.
__kernel void conv3d_vol2col(__global const float* x, int channels_last, int C, int D, int H,
                             int W, int k, int stride, int pad, int OD, int OH, int OW, int r0,
                             int rows, int ld_r, int ld_k, int n_items, __global float* cols) {
  const int i = get_global_id(0);
  if (i >= n_items) return;
  const int taps = k * k * k, K = C * taps;
  int rr, kk;
  if (ld_r == 1) {
    kk = i / rows;
    rr = i - kk * rows;
  } else {
    rr = i / K;
    kk = i - rr * K;
  }
  const int V = OD * OH * OW, r = r0 + rr, n = r / V, v = r - n * V;
  const int oz = v / (OH * OW), oy = v / OW % OH, ox = v % OW;
  const int c = kk / taps, t = kk - c * taps;
  const int z = oz * stride - pad + t / (k * k), y = oy * stride - pad + t / k % k,
            xx = ox * stride - pad + t % k;
  float value = 0.0f;
  if (z >= 0 && z < D && y >= 0 && y < H && xx >= 0 && xx < W)
    value = x[conv3d_at(channels_last, n, c, z, y, xx, C, D, H, W)];
  cols[(size_t)rr * ld_r + (size_t)kk * ld_k] = value;
}

// dx from the column gradients of rows [r0, r0 + rows): an item per dx element e = base + i
// gathers the columns of the output voxels whose window covers it. The first chunk that touches
// sample n (r0 <= n V) writes, later chunks add.
__kernel void conv3d_col2vol(__global const float* cols, int channels_last, int C, int D, int H,
                             int W, int k, int stride, int pad, int OD, int OH, int OW, int r0,
                             int rows, int ld_r, int ld_k, int base, int n_items,
                             __global float* dx) {
  const int i = get_global_id(0);
  if (i >= n_items) return;
  const int e = base + i;
  int n, c, z, y, x;
  if (channels_last) {
    c = e % C;
    int rest = e / C;
    x = rest % W;
    rest /= W;
    y = rest % H;
    rest /= H;
    z = rest % D;
    n = rest / D;
  } else {
    x = e % W;
    int rest = e / W;
    y = rest % H;
    rest /= H;
    z = rest % D;
    rest /= D;
    c = rest % C;
    n = rest / C;
  }
  const int V = OD * OH * OW, taps = k * k * k;
  float acc = 0.0f;
  for (int kz = 0; kz < k; ++kz) {
    const int qz = z + pad - kz;
    if (qz < 0 || qz % stride != 0 || qz / stride >= OD) continue;
    for (int ky = 0; ky < k; ++ky) {
      const int qy = y + pad - ky;
      if (qy < 0 || qy % stride != 0 || qy / stride >= OH) continue;
      for (int kx = 0; kx < k; ++kx) {
        const int qx = x + pad - kx;
        if (qx < 0 || qx % stride != 0 || qx / stride >= OW) continue;
        const int r = n * V + ((qz / stride) * OH + qy / stride) * OW + qx / stride;
        if (r < r0 || r >= r0 + rows) continue;
        const int kk = c * taps + (kz * k + ky) * k + kx;
        acc += cols[(size_t)(r - r0) * ld_r + (size_t)kk * ld_k];
      }
    }
  }
  dx[e] = r0 <= n * V ? acc : dx[e] + acc;
}

// y[n, o, voxel] += bias[o]: o = (i / inner) % channels (inner = voxels for ncdhw, 1 for ndhwc).
__kernel void conv3d_add_bias(__global float* y, __global const float* bias, int channels,
                              int inner, int n) {
  const int i = get_global_id(0);
  if (i < n) y[i] += bias[i / inner % channels];
}

// dbias[o] = sum of dy[n, o, voxels] over n and the voxels: a work-group per channel, each item
// a strided partial sum, then the fixed tree of group_sum.
__kernel __attribute__((reqd_work_group_size(REDUCE_WG, 1, 1)))
void conv3d_bias_grad(__global const float* dy, int channels_last, int channels, int voxels,
                      int batch, __global float* dbias) {
  __local float scratch[REDUCE_WG];
  const int o = get_group_id(0);
  const int total = batch * voxels;
  float s = 0.0f;
  for (int j = get_local_id(0); j < total; j += REDUCE_WG) {
    const int n = j / voxels, v = j - n * voxels;
    s += channels_last ? dy[(size_t)j * channels + o]
                       : dy[((size_t)n * channels + o) * voxels + v];
  }
  s = group_sum(s, scratch);
  if (get_local_id(0) == 0) dbias[o] = s;
}
