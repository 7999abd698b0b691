// Narrow convolutions (channels-last [N, D, H, W, C], one input or one output channel; issue 27):
// DynUNet's first convolution from the image's one channel, its 1^3 residual projection of it,
// and its output head to one channel, with their gradients. A GEMM over K = taps x 1 or N = 1
// leaves a tensor-core tile 1/16 busy and the implicit GEMM spent 0.24-0.46 ms a pass on
// what is a memory-bound 0.07-1.8 GFLOP (results/h200/dyn2-27-2026-11-28/call2/rates-new.txt):
// here each pass reads and writes its tensors once, in fp32 (more than bf16 or tf32 ask).

// y[n, od, oh, ow, o] = bias[o] + sum over taps and c of w . x. The weight is read through
// strides: the forward pass's [Co, C, taps] (w_out_step C taps, w_in_step taps, flip 0), or the
// data gradient as a convolution of dy with the forward weight [C, Co, taps] flipped (w_out_step
// taps, w_in_step Co taps, flip 1). Grid (OW Co rounded up, OH, N OD): neighbouring items share
// a voxel's channels, so x's reads are shared through L1. Run for one output channel (one input
// channel takes conv3d_narrow_c1_*). No kernel name here is another's prefix: Oclgrind charges a
// kernel with the __local arrays of every kernel whose name starts with its own.
__kernel void conv3d_narrow_any(__global const float* x, __global const float* w,
                                __global const float* bias, int has_bias, int C, int Co, int D,
                                int H, int W, int ks, int stride, int pad, int OD, int OH, int OW,
                                int w_out_step, int w_in_step, int flip, __global float* y) {
  const int g0 = get_global_id(0), oh = get_global_id(1), z = get_global_id(2);
  if (g0 >= OW * Co) return;
  const int ow = g0 / Co, o = g0 - ow * Co, n = z / OD, od = z - n * OD;
  const int taps = ks * ks * ks;
  float acc = has_bias ? bias[o] : 0.0f;
  __global const float* wo = w + (size_t)o * w_out_step;
  for (int kd = 0; kd < ks; ++kd) {
    const int id = od * stride - pad + kd;
    if (id < 0 || id >= D) continue;
    for (int kh = 0; kh < ks; ++kh) {
      const int ih = oh * stride - pad + kh;
      if (ih < 0 || ih >= H) continue;
      for (int kw = 0; kw < ks; ++kw) {
        const int iw = ow * stride - pad + kw;
        if (iw < 0 || iw >= W) continue;
        const int t = (kd * ks + kh) * ks + kw, tw = flip ? taps - 1 - t : t;
        __global const float* xp = x + ((((size_t)n * D + id) * H + ih) * W + iw) * C;
        for (int c = 0; c < C; ++c) acc += xp[c] * wo[c * w_in_step + tw];
      }
    }
  }
  y[(((size_t)n * OD + od) * OH + oh) * OW * Co + g0] = acc;
}

// One input channel (C = 1): an item an output voxel of a row (n, od, oh), all Co channels. Its
// k^3 taps of x are loaded once into registers (KS a constant); the weight is the same for
// every item of a work-group (a broadcast from the constant cache). The [64, Co] results go
// through local memory so that the row's Co x 64 outputs are stored contiguously: the
// one-item-an-output kernel above re-read the taps per channel and read the weight 16 lines a
// warp (1.9 ms for DynUNet's first convolution on an H200, against the implicit GEMM's 0.30).
// Weight strides as conv3d_narrow_any's: w_out_step per output channel, flip for the data gradient.
#define NARROW_ROW 64
inline void conv3d_narrow_c1_body(__global const float* x, __constant float* w,
                                  __global const float* bias, int has_bias, int Co, int D, int H,
                                  int W, int stride, int pad, int OD, int OH, int OW,
                                  int w_out_step, int flip, __global float* y,
                                  __local float* tile, const int KS) {
  const int lid = get_local_id(0), ow0 = get_group_id(0) * NARROW_ROW, ow = ow0 + lid;
  const int oh = get_global_id(1), z = get_global_id(2), n = z / OD, od = z - n * OD;
  float xv[27];  // KS <= 3
  for (int kd = 0; kd < KS; ++kd)
    for (int kh = 0; kh < KS; ++kh)
      for (int kw = 0; kw < KS; ++kw) {
        const int id = od * stride - pad + kd, ih = oh * stride - pad + kh,
                  iw = ow * stride - pad + kw;
        const bool in = ow < OW && id >= 0 && id < D && ih >= 0 && ih < H && iw >= 0 && iw < W;
        xv[(kd * KS + kh) * KS + kw] = in ? x[(((size_t)n * D + id) * H + ih) * W + iw] : 0.0f;
      }
  for (int o = 0; o < Co; ++o) {
    __constant float* wo = w + o * w_out_step;
    float acc = has_bias ? bias[o] : 0.0f;
    for (int t = 0; t < KS * KS * KS; ++t) acc += xv[t] * wo[flip ? KS * KS * KS - 1 - t : t];
    tile[o * (NARROW_ROW + 1) + lid] = acc;  // + 1: the read below walks o, conflict-free
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  const int valid = min(NARROW_ROW, OW - ow0);
  __global float* yr = y + ((((size_t)n * OD + od) * OH + oh) * OW + ow0) * Co;
  for (int i = lid; i < valid * Co; i += NARROW_ROW) {
    const int p = i / Co, o = i - p * Co;
    yr[i] = tile[o * (NARROW_ROW + 1) + p];
  }
}

// Grid (OW rounded up to 64, OH, N OD), work-groups of 64; Co <= 64.
__kernel __attribute__((reqd_work_group_size(NARROW_ROW, 1, 1))) void conv3d_narrow_c1_k1(
    __global const float* x, __constant float* w, __global const float* bias, int has_bias,
    int Co, int D, int H, int W, int stride, int pad, int OD, int OH, int OW, int w_out_step,
    int flip, __global float* y) {
  __local float tile[64 * (NARROW_ROW + 1)];
  conv3d_narrow_c1_body(x, w, bias, has_bias, Co, D, H, W, stride, pad, OD, OH, OW, w_out_step,
                        flip, y, tile, 1);
}
__kernel __attribute__((reqd_work_group_size(NARROW_ROW, 1, 1))) void conv3d_narrow_c1_k3(
    __global const float* x, __constant float* w, __global const float* bias, int has_bias,
    int Co, int D, int H, int W, int stride, int pad, int OD, int OH, int OW, int w_out_step,
    int flip, __global float* y) {
  __local float tile[64 * (NARROW_ROW + 1)];
  conv3d_narrow_c1_body(x, w, bias, has_bias, Co, D, H, W, stride, pad, OD, OH, OW, w_out_step,
                        flip, y, tile, 3);
}

// 3^3, stride 1, one input channel, Co <= 16: DynUNet's first convolution (1 -> 16 at 64^3).
// conv3d_narrow_c1_k3 above took 178-191 us an H200 for what its bytes let run in ~35 us
// (results/h200/gpu27b-2026-11-28/): each item read all Co x 27 weights through the constant
// cache at a run-time index, one load a multiply-add. Here an item computes four output rows
// (oh0 .. oh0 + 3) of its voxel column, so each weight load serves four multiply-adds; the
// 3 x 6 x 3 taps of x the four rows need are loaded once into registers (every index a
// constant after unrolling). Stores go through a local tile as above, a row of 64 at a time.
// Grid (OW rounded up to 64, OH / 4 rounded up, N OD), work-groups of 64. cuDNN is not
// reachable from OpenCL and CLBlast has no convolution that is not a GEMM over columns.
#define NARROW_ROWS 4
__kernel __attribute__((reqd_work_group_size(NARROW_ROW, 1, 1))) void conv3d_narrow_rows4_k3(
    __global const float* x, __constant float* w, __global const float* bias, int has_bias,
    int Co, int D, int H, int W, int pad, int OD, int OH, int OW, int w_out_step, int flip,
    __global float* y) {
  __local float tile[NARROW_ROWS * 16 * (NARROW_ROW + 1)];
  const int lid = get_local_id(0), ow0 = get_group_id(0) * NARROW_ROW, ow = ow0 + lid;
  const int oh0 = get_global_id(1) * NARROW_ROWS, z = get_global_id(2), n = z / OD,
            od = z - n * OD;
  float xv[3][NARROW_ROWS + 2][3];
#pragma unroll
  for (int kd = 0; kd < 3; ++kd)
#pragma unroll
    for (int r = 0; r < NARROW_ROWS + 2; ++r)
#pragma unroll
      for (int kw = 0; kw < 3; ++kw) {
        const int id = od - pad + kd, ih = oh0 - pad + r, iw = ow - pad + kw;
        const bool in = ow < OW && id >= 0 && id < D && ih >= 0 && ih < H && iw >= 0 && iw < W;
        xv[kd][r][kw] = in ? x[(((size_t)n * D + id) * H + ih) * W + iw] : 0.0f;
      }
  for (int o = 0; o < Co; ++o) {
    __constant float* wo = w + o * w_out_step;
    const float b = has_bias ? bias[o] : 0.0f;
    float acc[NARROW_ROWS];
#pragma unroll
    for (int v = 0; v < NARROW_ROWS; ++v) acc[v] = b;
#pragma unroll
    for (int kd = 0; kd < 3; ++kd)
#pragma unroll
      for (int kh = 0; kh < 3; ++kh)
#pragma unroll
        for (int kw = 0; kw < 3; ++kw) {
          const int t = (kd * 3 + kh) * 3 + kw;
          const float wt = wo[flip ? 26 - t : t];
#pragma unroll
          for (int v = 0; v < NARROW_ROWS; ++v) acc[v] += xv[kd][v + kh][kw] * wt;
        }
#pragma unroll
    for (int v = 0; v < NARROW_ROWS; ++v) tile[(v * 16 + o) * (NARROW_ROW + 1) + lid] = acc[v];
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  const int valid = min(NARROW_ROW, OW - ow0);
  for (int v = 0; v < NARROW_ROWS && oh0 + v < OH; ++v) {
    __global float* yr = y + ((((size_t)n * OD + od) * OH + oh0 + v) * OW + ow0) * Co;
    for (int i = lid; i < valid * Co; i += NARROW_ROW) {
      const int p = i / Co, o = i - p * Co;
      yr[i] = tile[(v * 16 + o) * (NARROW_ROW + 1) + p];
    }
  }
}

// The weight gradient's partial sums, in work-group g's slice of the rows (n, od, oh, ow)
// [g slice, (g + 1) slice): lane j = lid mod (Co C) owns (o, c) = (j / C, j mod C), and the
// local size / (Co C) row lanes of a j take every such row in turn, each holding its taps'
// sums of dy[row, o] x[row's tap, c] and the bias's sum of dy[row, o] in registers (KS is a
// constant: the accumulators are not indexed at run time). The row lanes are then added in
// lane order, so the result is the same bits every run. partial[g] holds dW in its
// [Co, C, taps] order, then dbias's Co.
inline void conv3d_narrow_dw_body(__global const float* x, __global const float* dy, int C, int Co,
                                  int D, int H, int W, int stride, int pad, int OD, int OH, int OW,
                                  int rows, int slice, __global float* partial, __local float* red,
                                  const int KS) {
  const int lid = get_local_id(0), lanes = Co * C, row_lanes = get_local_size(0) / lanes;
  const int j = lid % lanes, r = lid / lanes, o = j / C, c = j - o * C;
  const int g = get_group_id(0), end = min(rows, (g + 1) * slice);
  float acc[27], acc_bias = 0.0f;  // KS <= 3
  for (int t = 0; t < KS * KS * KS; ++t) acc[t] = 0.0f;
  // 1^3, stride 1, no padding: x's voxel is the row itself (no division a row).
  if (KS == 1 && stride == 1 && pad == 0) {
    for (int p = g * slice + r; r < row_lanes && p < end; p += row_lanes) {
      const float d = dy[(size_t)p * Co + o];
      acc_bias += d;
      acc[0] += d * x[(size_t)p * C + c];
    }
  } else {
    for (int p = g * slice + r; r < row_lanes && p < end; p += row_lanes) {
      const int ow = p % OW, q = p / OW, oh = q % OH, q2 = q / OH, od = q2 % OD, n = q2 / OD;
      const float d = dy[(size_t)p * Co + o];
      acc_bias += d;
      for (int kd = 0; kd < KS; ++kd) {
        const int id = od * stride - pad + kd;
        for (int kh = 0; kh < KS; ++kh) {
          const int ih = oh * stride - pad + kh;
          for (int kw = 0; kw < KS; ++kw) {
            const int iw = ow * stride - pad + kw;
            if (id >= 0 && id < D && ih >= 0 && ih < H && iw >= 0 && iw < W)
              acc[(kd * KS + kh) * KS + kw] +=
                  d * x[((((size_t)n * D + id) * H + ih) * W + iw) * C + c];
          }
        }
      }
    }
  }
  const int taps = KS * KS * KS, total = lanes * taps + Co;
  __global float* out = partial + (size_t)g * total;
  for (int t = 0; t <= taps; ++t) {
    float v = acc_bias;
    for (int u = 0; u < KS * KS * KS; ++u) v = u == t ? acc[u] : v;  // unrolled: no indexing
    red[lid] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (r == 0) {
      float s = 0.0f;
      for (int k = 0; k < row_lanes; ++k) s += red[k * lanes + j];
      if (t < taps)
        out[(size_t)j * taps + t] = s;
      else if (c == 0)
        out[lanes * taps + o] = s;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}

// 1^3 (3^3 with one input channel: conv3d_narrow_dw_k3 below). At 3^3 this body (items per
// (row, channel), 27 taps each) ran 1.05 ms for DynUNet's first convolution on an H200, the
// implicit GEMM 0.46 (results/h200/gpu27b-2026-11-28/call1/).
#define NARROW_DW_GROUP 256
__kernel __attribute__((reqd_work_group_size(NARROW_DW_GROUP, 1, 1))) void conv3d_narrow_dw_k1(
    __global const float* x, __global const float* dy, int C, int Co, int D, int H, int W,
    int stride, int pad, int OD, int OH, int OW, int rows, int slice, __global float* partial) {
  __local float red[NARROW_DW_GROUP];
  conv3d_narrow_dw_body(x, dy, C, Co, D, H, W, stride, pad, OD, OH, OW, rows, slice, partial, red,
                        1);
}

// The 3^3 weight gradient of one input channel (DynUNet's first convolution, 1 -> 16 at 64^3):
// the implicit GEMM took 0.46 ms and its dW sum 0.05 for what reads 134 MB of dy and 8 MB of
// x, about 35 us at the copy rate (results/h200/gpu27b-2026-11-28/call4/), and its K of 27 x 1
// leaves a tensor-core tile mostly empty; cuDNN is not reachable from OpenCL, and CLBlast has
// no convolution weight gradient. The kernel above with an item per (row, channel), 27 taps
// each, re-read the taps per channel (1.05 ms). Here an item is a voxel of a row segment of
// 64 and four output channels (local size (64, 4): Co <= 16): it loads the voxel's 27 taps of x
// once (neighbouring items share them through L1) and its four dy values, and keeps 4 x 27 tap
// sums and 4 bias sums in registers (every index a constant after unrolling). Work-group g takes
// segments [g slice, (g + 1) slice) of the N OD OH ceil(OW / 64) row segments; its 64 voxel
// lanes are then added in lane order through local memory, so the result is the same bits every
// run. partial[g] holds dW in its [Co, 1, 27] order, then dbias's Co (conv3d_narrow_dw_sum adds
// the slots).
#define NARROW_DW3_LANES 64
__kernel __attribute__((reqd_work_group_size(NARROW_DW3_LANES, 4, 1))) void conv3d_narrow_dw_k3(
    __global const float* restrict x, __global const float* restrict dy, int Co, int D, int H,
    int W, int stride, int pad, int OD, int OH, int OW, int segs, int slice,
    __global float* partial) {
  __local float red[16 * (NARROW_DW3_LANES + 1)];  // + 1: the sums below walk o, conflict-free
  const int lane = get_local_id(0), q = get_local_id(1), g = get_group_id(0);
  const int chunks = (OW + NARROW_DW3_LANES - 1) / NARROW_DW3_LANES;
  const int end = min(segs, (g + 1) * slice);
  float acc[4][27], accb[4];
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    accb[k] = 0.0f;
#pragma unroll
    for (int t = 0; t < 27; ++t) acc[k][t] = 0.0f;
  }
  for (int sg = g * slice; sg < end; ++sg) {
    const int row = sg / chunks, ow = (sg - row * chunks) * NARROW_DW3_LANES + lane;
    const int oh = row % OH, r2 = row / OH, od = r2 % OD, n = r2 / OD;
    const bool live = ow < OW;
    float d[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const int o = q * 4 + k;
      d[k] = live && o < Co ? dy[((size_t)row * OW + ow) * Co + o] : 0.0f;
      accb[k] += d[k];
    }
#pragma unroll
    for (int kd = 0; kd < 3; ++kd) {
      const int id = od * stride - pad + kd;
#pragma unroll
      for (int kh = 0; kh < 3; ++kh) {
        const int ih = oh * stride - pad + kh;
#pragma unroll
        for (int kw = 0; kw < 3; ++kw) {
          const int iw = ow * stride - pad + kw;
          const bool in = live && id >= 0 && id < D && ih >= 0 && ih < H && iw >= 0 && iw < W;
          const float xv = in ? x[(((size_t)n * D + id) * H + ih) * W + iw] : 0.0f;
#pragma unroll
          for (int k = 0; k < 4; ++k) acc[k][(kd * 3 + kh) * 3 + kw] += d[k] * xv;
        }
      }
    }
  }
  const int lid = q * NARROW_DW3_LANES + lane;
  __global float* out = partial + (size_t)g * (Co * 28);
  for (int t = 0; t < 28; ++t) {  // tap t (27: the bias)
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      float v = accb[k];
#pragma unroll
      for (int u = 0; u < 27; ++u) v = u == t ? acc[k][u] : v;  // no run-time indexing
      red[(q * 4 + k) * (NARROW_DW3_LANES + 1) + lane] = v;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < Co) {
      float s = 0.0f;
      for (int l = 0; l < NARROW_DW3_LANES; ++l) s += red[lid * (NARROW_DW3_LANES + 1) + l];
      out[t < 27 ? lid * 27 + t : Co * 27 + lid] = s;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}

// conv3d_narrow_dw_k3 with its taps split by plane (dyn34; the default, STAGEBENCH_CONV_NARROW=
// direct keeps the kernel above): that kernel took 0.406 ms on an H200 for DynUNet's 1 -> 16 at
// 64^3 where its bytes need about 30 us (results/h200/dyn34-2026-11-29/README.md): each item
// holds 4 x 27 + 4 sums, so few warps fit a multiprocessor to cover its 27 loads' latency. Here a third dimension of the work-group
// takes the tap plane kd: an item holds 4 x 9 + 4 sums, three times the items share a voxel's dy
// (through L1) and each loads 9 taps of x. The same segments, slots and lane order, and each
// (channel, tap) sum made of the same products in the same order: the same bits as the kernel
// above (the bias from the kd = 0 items). On the H200 378.8 against 409.9 us a call
// (results/h200/dyn34-2026-11-29/narrow/narrow-dw.txt): more resident warps bought only 8%.
__kernel __attribute__((reqd_work_group_size(NARROW_DW3_LANES, 4, 3))) void
conv3d_narrow_dw_k3_planes(__global const float* restrict x, __global const float* restrict dy,
                           int Co, int D, int H, int W, int stride, int pad, int OD, int OH, int OW,
                           int segs, int slice, __global float* partial) {
  __local float red[3 * 16 * (NARROW_DW3_LANES + 1)];  // + 1: the sums below walk o
  const int lane = get_local_id(0), q = get_local_id(1), kd = get_local_id(2);
  const int g = get_group_id(0);
  const int chunks = (OW + NARROW_DW3_LANES - 1) / NARROW_DW3_LANES;
  const int end = min(segs, (g + 1) * slice);
  float acc[4][9], accb[4];
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    accb[k] = 0.0f;
#pragma unroll
    for (int t = 0; t < 9; ++t) acc[k][t] = 0.0f;
  }
  for (int sg = g * slice; sg < end; ++sg) {
    const int row = sg / chunks, ow = (sg - row * chunks) * NARROW_DW3_LANES + lane;
    const int oh = row % OH, r2 = row / OH, od = r2 % OD, n = r2 / OD;
    const bool live = ow < OW;
    float d[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const int o = q * 4 + k;
      d[k] = live && o < Co ? dy[((size_t)row * OW + ow) * Co + o] : 0.0f;
      accb[k] += d[k];
    }
    const int id = od * stride - pad + kd;
    const bool din = live && id >= 0 && id < D;
#pragma unroll
    for (int kh = 0; kh < 3; ++kh) {
      const int ih = oh * stride - pad + kh;
#pragma unroll
      for (int kw = 0; kw < 3; ++kw) {
        const int iw = ow * stride - pad + kw;
        const bool in = din && ih >= 0 && ih < H && iw >= 0 && iw < W;
        const float xv = in ? x[(((size_t)n * D + id) * H + ih) * W + iw] : 0.0f;
#pragma unroll
        for (int k = 0; k < 4; ++k) acc[k][kh * 3 + kw] += d[k] * xv;
      }
    }
  }
  const int lid = (kd * 4 + q) * NARROW_DW3_LANES + lane;
  __global float* out = partial + (size_t)g * (Co * 28);
  for (int t = 0; t < 10; ++t) {  // tap t of the plane (9: the bias)
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      float v = accb[k];
#pragma unroll
      for (int u = 0; u < 9; ++u) v = u == t ? acc[k][u] : v;  // no run-time indexing
      red[(kd * 16 + q * 4 + k) * (NARROW_DW3_LANES + 1) + lane] = v;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const int o = lid % 16, p = lid / 16;  // items 0-47: (plane, channel) p, o
    if (lid < 48 && o < Co && (t < 9 || p == 0)) {
      float s = 0.0f;
      for (int l = 0; l < NARROW_DW3_LANES; ++l) s += red[lid * (NARROW_DW3_LANES + 1) + l];
      out[t < 9 ? o * 27 + p * 9 + t : Co * 27 + o] = s;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}

// The slots added in slot order: dW's n_w values, then dbias's (written where has_bias).
__kernel void conv3d_narrow_dw_sum(__global const float* partial, int slots, int n_w, int total,
                                   __global float* dw, __global float* dbias, int has_bias) {
  const int i = get_global_id(0);
  if (i >= total) return;
  float s = 0.0f;
  for (int sl = 0; sl < slots; ++sl) s += partial[(size_t)sl * total + i];
  if (i < n_w)
    dw[i] = s;
  else if (has_bias)
    dbias[i - n_w] = s;
}
