// InstanceNorm3d forward and backward in three steps each (issue 27). Why not a work-group per
// (n, c) instance, as volume.cl had: DynUNet's instances are 8 x 16..64 of them over 64^3 voxels,
// so that gave 128-512 work-groups walking 262,144 voxels each, and in ndhwc each item read one
// float out of every C (uncoalesced); two statistics passes and the normalization read x three
// times. On the H100 the norms took 16.8 of the channels-last step's 42.3 ms of device time.
// Here:
//   1. instance_norm_partials: work-groups over (voxel chunk, channel block, sample), each item
//      a fixed channel (ndhwc: the block's channels side by side, so a work-group reads whole
//      rows of [V, C]; ncdhw: one channel, consecutive voxels). One read of x (and dy) gives
//      every sum, each chunk's written to its own slot.
//   2. instance_norm_finalize / instance_norm_backward_finalize: an item per instance adds its
//      chunks' slots in chunk order and writes the per-instance coefficients.
//   3. instance_norm_apply / instance_norm_backward_apply: elementwise, coalesced.
// Sums are of x - p, p the instance's first voxel (the shifted-data form of the one-pass
// variance: no cancellation when the mean is far from 0), in acc_t (double where the device has
// fp64; losses.cl). Every sum runs in a fixed order: results repeat bit for bit.
//
// Group and items as volume_chunks.cl lays them out. Sums per slot: x - p, (x - p)^2, and with
// dy: dy, dy (x - p). partials[((n C + c) chunks + j) ns + k].
__kernel __attribute__((reqd_work_group_size(REDUCE_WG, 1, 1)))
void instance_norm_partials(__global const float* x, __global const float* dy, int has_dy, int C,
                            int V, int ndhwc, int cb_size, int chunk, __global acc_t* partials) {
  __local acc_t scratch[4 * REDUCE_WG];
  const int t = get_local_id(0), j = get_group_id(0), n = get_group_id(2);
  const int rows = REDUCE_WG / cb_size, r = t / cb_size;
  const int c = get_group_id(1) * cb_size + t % cb_size;
  const bool active = r < rows && c < C;
  const int v0 = j * chunk, v1 = min(V, v0 + chunk);
  acc_t s1 = 0, s2 = 0, s3 = 0, s4 = 0;
  if (active) {
    const acc_t p = x[chunk_at(n, c, 0, C, V, ndhwc)];
    int v = v0 + r;
    // Four rows' loads issued before their sums, which then run in the order of the loop below
    // (the same bits): with one load in flight an item, the 26 calls of a DynUNet compile step
    // moved their bytes at about half the H200's copy rate (results/h200/dyn31-2026-11-28,
    // timeline-ring-kernels.txt, against the volumes' sizes; inferred, not profiled).
    for (; v + 3 * rows < v1; v += 4 * rows) {
      float xs[4], gs[4];
#pragma unroll
      for (int u = 0; u < 4; ++u) xs[u] = x[chunk_at(n, c, v + u * rows, C, V, ndhwc)];
      if (has_dy) {
#pragma unroll
        for (int u = 0; u < 4; ++u) gs[u] = dy[chunk_at(n, c, v + u * rows, C, V, ndhwc)];
      }
#pragma unroll
      for (int u = 0; u < 4; ++u) {
        const acc_t d = xs[u] - p;
        s1 += d;
        s2 += d * d;
        if (has_dy) {
          const acc_t g = gs[u];
          s3 += g;
          s4 += g * d;
        }
      }
    }
    for (; v < v1; v += rows) {
      const size_t e = chunk_at(n, c, v, C, V, ndhwc);
      const acc_t d = x[e] - p;
      s1 += d;
      s2 += d * d;
      if (has_dy) {
        const acc_t g = dy[e];
        s3 += g;
        s4 += g * d;
      }
    }
  }
  const int ns = has_dy ? 4 : 2;
  scratch[t] = s1;
  scratch[REDUCE_WG + t] = s2;
  scratch[2 * REDUCE_WG + t] = s3;
  scratch[3 * REDUCE_WG + t] = s4;
  chunk_rows_sum(scratch, ns, t, r, rows, cb_size, active);
  if (active && r == 0) {
    const size_t slot = ((size_t)(n * C + c) * get_num_groups(0) + j) * ns;
    for (int k = 0; k < ns; ++k) partials[slot + k] = scratch[k * REDUCE_WG + t];
  }
}

// The instance's sums over its chunks, by a work-group (group_sum_acc, losses.cl: a fixed
// tree; one item adding 128 chunks' slots took 44 us a call on the H100); mean and
// 1 / sqrt(biased variance + eps).
inline void inorm_moments(__global const acc_t* partials, __global const float* x, int i, int C,
                          int V, int ndhwc, int chunks, int ns, float eps,
                          __local acc_t* scratch, acc_t* sums, acc_t* mean, acc_t* rstd) {
  for (int k = 0; k < ns; ++k) {
    acc_t s = 0;
    for (int j = get_local_id(0); j < chunks; j += REDUCE_WG)
      s += partials[((size_t)i * chunks + j) * ns + k];
    sums[k] = group_sum_acc(s, scratch);
  }
  const acc_t p = x[chunk_at(i / C, i % C, 0, C, V, ndhwc)];
  const acc_t m = sums[0] / V;
  const acc_t var = max(sums[1] / V - m * m, (acc_t)0);
  *mean = p + m;
  *rstd = 1 / sqrt(var + eps);
}

// coef[2 i] = rstd gamma[c], coef[2 i + 1] = beta[c] - mean rstd gamma[c]. A work-group per
// instance.
__kernel __attribute__((reqd_work_group_size(REDUCE_WG, 1, 1)))
void instance_norm_finalize(__global const acc_t* partials, __global const float* x, int C,
                            int V, int ndhwc, int chunks, __global const float* gamma,
                            __global const float* beta, float eps, __global float* coef) {
  __local acc_t scratch[REDUCE_WG];
  const int i = get_group_id(0);
  acc_t sums[2], mean, rstd;
  inorm_moments(partials, x, i, C, V, ndhwc, chunks, 2, eps, scratch, sums, &mean, &rstd);
  if (get_local_id(0) != 0) return;
  const int c = i % C;
  coef[2 * i] = (float)(rstd * gamma[c]);
  coef[2 * i + 1] = (float)(beta[c] - mean * rstd * gamma[c]);
}

inline float inorm_apply_at(__global const float* x, int C, int V, int ndhwc,
                            __global const float* coef, __global const float* residual,
                            int has_residual, int act, int e) {
  const int i = ndhwc ? e / (V * C) * C + e % C : e / V;
  float t = x[e] * coef[2 * i] + coef[2 * i + 1];
  if (has_residual) t += residual[e];
  return apply_act(t, act);
}

// y = act(x coef0 + coef1 + residual) (residual when has_residual); y may be x or the residual.
__kernel void instance_norm_apply(__global const float* x, int C, int V, int ndhwc,
                                  __global const float* coef, __global float* y,
                                  __global const float* residual, int has_residual, int act,
                                  int total) {
  const int e = get_global_id(0);
  if (e >= total) return;
  y[e] = inorm_apply_at(x, C, V, ndhwc, coef, residual, has_residual, act, e);
}

// instance_norm_apply that also writes y's bf16 bits to yb (issue 27): y feeds bf16 convolutions
// (DynUNet's bf16 stages), which read a bf16 copy; written here, 2 bytes an element more, it
// saves the separate f32_to_bf16 pass over y (4 read, 2 written). Statistics and y stay fp32.
__kernel void instance_norm_apply_bf16(__global const float* x, int C, int V, int ndhwc,
                                       __global const float* coef, __global float* y,
                                       __global const float* residual, int has_residual, int act,
                                       int total, __global ushort* yb) {
  const int e = get_global_id(0);
  if (e >= total) return;
  const float t = inorm_apply_at(x, C, V, ndhwc, coef, residual, has_residual, act, e);
  y[e] = t;
  yb[e] = bf16_bits_rne(t);
}

// Four consecutive elements an item (STAGEBENCH_INORM_VEC4, instance_norm.cpp): ndhwc with C a
// multiple of 4 (channels c .. c + 3 of one voxel, their coefficients side by side) or ncdhw
// with V a multiple of 4 (one instance). The scalar kernels move about 2.2 TB/s on an H200 on
// DynUNet's 64^3 volumes (154 us for instance_norm_apply_bf16's 335 MB,
// results/h200/dyn32-2026-11-29/dyn/timeline-new.trace.json.gz), half the copy rate: one 4-byte
// load, a division and a remainder an element. The same products and sums as the scalar kernel.
inline float4 inorm_apply4_at(__global const float* x, int C, int V, int ndhwc,
                              __global const float* coef, __global const float* residual,
                              int has_residual, int act, int q) {
  const int e = 4 * q;
  float4 a, b;
  if (ndhwc) {
    const float8 k = vload8(0, coef + 2 * (e / (V * C) * C + e % C));
    a = k.s0246, b = k.s1357;
  } else {
    const int i = e / V;
    a = (float4)(coef[2 * i]), b = (float4)(coef[2 * i + 1]);
  }
  const float4 v = vload4(q, x);
  float4 t = (float4)(v.x * a.x + b.x, v.y * a.y + b.y, v.z * a.z + b.z, v.w * a.w + b.w);
  if (has_residual) t += vload4(q, residual);
  return (float4)(apply_act(t.x, act), apply_act(t.y, act), apply_act(t.z, act),
                  apply_act(t.w, act));
}

// instance_norm_apply, four elements an item; total4 = total / 4.
__kernel void instance_norm_apply4(__global const float* x, int C, int V, int ndhwc,
                                   __global const float* coef, __global float* y,
                                   __global const float* residual, int has_residual, int act,
                                   int total4) {
  const int q = get_global_id(0);
  if (q >= total4) return;
  vstore4(inorm_apply4_at(x, C, V, ndhwc, coef, residual, has_residual, act, q), q, y);
}

// instance_norm_apply_bf16, four elements an item.
__kernel void instance_norm_apply4_bf16(__global const float* x, int C, int V, int ndhwc,
                                        __global const float* coef, __global float* y,
                                        __global const float* residual, int has_residual,
                                        int act, int total4, __global ushort* yb) {
  const int q = get_global_id(0);
  if (q >= total4) return;
  const float4 t = inorm_apply4_at(x, C, V, ndhwc, coef, residual, has_residual, act, q);
  vstore4(t, q, y);
  vstore4((ushort4)(bf16_bits_rne(t.x), bf16_bits_rne(t.y), bf16_bits_rne(t.z),
                    bf16_bits_rne(t.w)),
          q, yb);
}

// With xhat = (x - mean) rstd: sum dy xhat = rstd (sum dy (x - p) - (mean - p) sum dy).
// sums_out[2 i] = sum dy xhat, [2 i + 1] = sum dy (instance_norm_backward_params' input);
// coef[4 i ..] = mean, rstd gamma, rstd gamma mean(dy), rstd^2 gamma mean(dy xhat), for
// dx = rstd gamma (dy - mean(dy) - xhat mean(dy xhat)).
// A work-group per instance.
__kernel __attribute__((reqd_work_group_size(REDUCE_WG, 1, 1)))
void instance_norm_backward_finalize(__global const acc_t* partials, __global const float* x,
                                     int C, int V, int ndhwc, int chunks,
                                     __global const float* gamma, float eps,
                                     __global acc_t* sums_out, __global float* coef) {
  __local acc_t scratch[REDUCE_WG];
  const int i = get_group_id(0);
  acc_t sums[4], mean, rstd;
  inorm_moments(partials, x, i, C, V, ndhwc, chunks, 4, eps, scratch, sums, &mean, &rstd);
  if (get_local_id(0) != 0) return;
  const acc_t sdy = sums[2], sdyx = rstd * (sums[3] - sums[0] / V * sdy);
  sums_out[2 * i] = sdyx;
  sums_out[2 * i + 1] = sdy;
  const acc_t a = rstd * gamma[i % C];
  coef[4 * i] = (float)mean;
  coef[4 * i + 1] = (float)a;
  coef[4 * i + 2] = (float)(a * sdy / V);
  coef[4 * i + 3] = (float)(a * rstd * sdyx / V);
}

inline float inorm_backward_at(__global const float* x, __global const float* dy, int C, int V,
                               int ndhwc, __global const float* coef, int e) {
  const int i = ndhwc ? e / (V * C) * C + e % C : e / V;
  const float4 k = vload4(i, coef);
  return k.y * dy[e] - k.z - (x[e] - k.x) * k.w;
}

// dx may be dy: each item reads its dy before writing the same element.
__kernel void instance_norm_backward_apply(__global const float* x, __global const float* dy,
                                           int C, int V, int ndhwc, __global const float* coef,
                                           __global float* dx, int total) {
  const int e = get_global_id(0);
  if (e >= total) return;
  dx[e] = inorm_backward_at(x, dy, C, V, ndhwc, coef, e);
}

// instance_norm_backward_apply that also writes dx's bf16 bits to dxb: dx is the dy of a bf16
// convolution's two gradients (instance_norm_apply_bf16 says why).
__kernel void instance_norm_backward_apply_bf16(__global const float* x, __global const float* dy,
                                                int C, int V, int ndhwc,
                                                __global const float* coef, __global float* dx,
                                                int total, __global ushort* dxb) {
  const int e = get_global_id(0);
  if (e >= total) return;
  const float t = inorm_backward_at(x, dy, C, V, ndhwc, coef, e);
  dx[e] = t;
  dxb[e] = bf16_bits_rne(t);
}

// instance_norm_backward_apply, four elements an item (inorm_apply4_at says when).
inline float4 inorm_backward4_at(__global const float* x, __global const float* dy, int C, int V,
                                 int ndhwc, __global const float* coef, int q) {
  const int e = 4 * q;
  float4 m, a, b, c;
  if (ndhwc) {
    const int i = e / (V * C) * C + e % C;
    const float4 k0 = vload4(i, coef), k1 = vload4(i + 1, coef), k2 = vload4(i + 2, coef),
                 k3 = vload4(i + 3, coef);
    m = (float4)(k0.x, k1.x, k2.x, k3.x), a = (float4)(k0.y, k1.y, k2.y, k3.y);
    b = (float4)(k0.z, k1.z, k2.z, k3.z), c = (float4)(k0.w, k1.w, k2.w, k3.w);
  } else {
    const float4 k = vload4(e / V, coef);
    m = (float4)(k.x), a = (float4)(k.y), b = (float4)(k.z), c = (float4)(k.w);
  }
  const float4 g = vload4(q, dy), v = vload4(q, x);
  return (float4)(a.x * g.x - b.x - (v.x - m.x) * c.x, a.y * g.y - b.y - (v.y - m.y) * c.y,
                  a.z * g.z - b.z - (v.z - m.z) * c.z, a.w * g.w - b.w - (v.w - m.w) * c.w);
}

__kernel void instance_norm_backward_apply4(__global const float* x, __global const float* dy,
                                            int C, int V, int ndhwc, __global const float* coef,
                                            __global float* dx, int total4) {
  const int q = get_global_id(0);
  if (q >= total4) return;
  vstore4(inorm_backward4_at(x, dy, C, V, ndhwc, coef, q), q, dx);
}

__kernel void instance_norm_backward_apply4_bf16(__global const float* x, __global const float* dy,
                                                 int C, int V, int ndhwc,
                                                 __global const float* coef, __global float* dx,
                                                 int total4, __global ushort* dxb) {
  const int q = get_global_id(0);
  if (q >= total4) return;
  const float4 t = inorm_backward4_at(x, dy, C, V, ndhwc, coef, q);
  vstore4(t, q, dx);
  vstore4((ushort4)(bf16_bits_rne(t.x), bf16_bits_rne(t.y), bf16_bits_rne(t.z),
                    bf16_bits_rne(t.w)),
          q, dxb);
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
