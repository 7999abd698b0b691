// conv3d's forward pass as an implicit GEMM on the tensor-core pipeline (issue 27): the
// pipelined GEMM of gemm_pipe_body.cl with its A tile gathered straight from a channels-last
// input volume, so the k^3 x larger column buffer of the vol2col path (conv3d.cl) is never
// written or read back. Included after gemm_pipelined.cl; NVIDIA only (inline PTX).
//
// Written here because nothing reaches NVIDIA's tensor cores from OpenCL (gemm_pipelined.cl says
// why), and the vol2col path spent most of DynUNet's reduced-precision time moving columns:
// columns of K = 27 C floats per output voxel written, read back, then packed again for the mma
// kernel. The layout is CUTLASS's implicit GEMM (its "analytic" activation iterator):
//   rows    m = (n, oz, oy, ox), the output voxels of y [N, OD, OH, OW, Cout] (= y's rows);
//   columns the output channels (W [Cout, K] with K in (tap, channel) order, permuted once a
//           call by conv3d_weight_taps_first);
//   K       = taps x C, so a 16-byte chunk of A (4 tf32 or 8 halves) is 4 or 8 consecutive
//           channels of one input voxel: C a multiple of that keeps every chunk inside one tap,
//           and cp.async copies it with zero fill where the tap falls in the padding (tf32
//           with other C: four 4-byte copies a chunk, conv3d_load_a_words).
// Each item copies the same chunk column (tid & 7) of its rows in every K tile, so the tap and
// channel it reads are worked out once a tile, and each row's window corner once a call
// (conv3d_rows, before the K loop); a tile then costs each row three bound checks and an add.
// The copies go through L1 (cp.async.ca): the 27 taps of neighbouring voxels read overlapping
// input, which .cg (L2 only) would fetch from L2 27 times.

#define CONV_CORNER_BIAS 16  // packed corner coordinates are stored + this, 10 bits each
#define CONV_NO_ROW 0x3fffffff  // a corner past every volume: rows past M read nothing

inline void cp_async16_ca(__local uint4* dst, __global const uchar* src, int bytes) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 16, %2;"
               :
               : "r"(smem_addr(dst)), "l"(src), "r"(bytes)
               : "memory");
}

// The item's rows (tid >> 3) + i (threads >> 3), i < n_rows, of the tile at m0: each one's
// window corner (oz s - p, oy s - p, ox s - p) packed into corner[i] and the element offset of
// channel 0 there (possibly outside the volume; only in-range taps use it) in base[i].
inline void conv3d_rows(int m0, int M, int tid, int threads, int n_rows, int C, int D, int H,
                        int W, int stride, int pad, int OD, int OH, int OW, int* base,
                        int* corner) {
  const int plane = OH * OW, V = OD * plane;
#pragma unroll
  for (int i = 0; i < n_rows; ++i) {
    const int gr = m0 + (tid >> 3) + i * (threads >> 3);
    if (gr >= M) {
      base[i] = 0;
      corner[i] = CONV_NO_ROW;
      continue;
    }
    const int n = gr / V, v = gr - n * V, oz = v / plane, rest = v - oz * plane;
    const int oy = rest / OW, ox = rest - oy * OW;
    const int iz = oz * stride - pad, iy = oy * stride - pad, ix = ox * stride - pad;
    base[i] = (((n * D + iz) * H + iy) * W + ix) * C;
    corner[i] = (iz + CONV_CORNER_BIAS) | ((iy + CONV_CORNER_BIAS) << 10) |
                ((ix + CONV_CORNER_BIAS) << 20);
  }
}

inline void cp_async4_ca(__local uint4* dst, int word, __global const uchar* src, int bytes) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;"
               :
               : "r"(smem_addr(dst) + 4 * word), "l"(src), "r"(bytes)
               : "memory");
}

// Whether element (z, y, x) of the volume is inside it.
inline bool conv3d_inside(int corner, int kz, int ky, int kx, int D, int H, int W) {
  const int z = (corner & 1023) - CONV_CORNER_BIAS + kz;
  const int y = ((corner >> 10) & 1023) - CONV_CORNER_BIAS + ky;
  const int x = ((corner >> 20) & 1023) - CONV_CORNER_BIAS + kx;
  return (uint)z < (uint)D && (uint)y < (uint)H && (uint)x < (uint)W;
}

// Input channels that do not fill a 16-byte chunk (DynUNet's first convolutions read a single
// channel), tf32 only: each of the chunk's 4 elements is its own 4-byte copy, from its own tap.
// The weight's rows are padded to K, a multiple of 4, with zeros; taps past the kernel read
// nothing. Kernels of their own ("_words"), so that the chunked kernels carry none of it.
inline void conv3d_load_a_words(__local uint4* tile, __global const uchar* src, int k0, int C,
                                int D, int H, int W, int ks, int tid, int threads, int n_rows,
                                const int* base, const int* corner) {
  const int c = tid & 7, real_k = C * ks * ks * ks;
  int kz[4], ky[4], kx[4], offset[4];
  bool k_inside[4];
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    const int k = k0 + c * 4 + j, tap = k / C, ci = k - tap * C;
    kz[j] = tap / (ks * ks);
    const int kyx = tap - kz[j] * ks * ks;
    ky[j] = kyx / ks;
    kx[j] = kyx - ky[j] * ks;
    offset[j] = ((kz[j] * H + ky[j]) * W + kx[j]) * C + ci;
    k_inside[j] = k < real_k;
  }
#pragma unroll
  for (int i = 0; i < n_rows; ++i) {
    __local uint4* dst = tile + swz((tid >> 3) + i * (threads >> 3), c);
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const bool inside = k_inside[j] && conv3d_inside(corner[i], kz[j], ky[j], kx[j], D, H, W);
      cp_async4_ca(dst, j, inside ? src + (size_t)(base[i] + offset[j]) * 4 : src,
                   inside ? 4 : 0);
    }
  }
}

// A's K tile k0 for the rows conv3d_rows set up: the item's chunk column c = tid & 7 is
// channels ci .. ci + 3 (tf32) or + 7 (f16) of tap (kz, ky, kx) for every row.
inline void conv3d_load_a(__local uint4* tile, __global const uchar* src, int esize, int k0,
                          int K, int C, int D, int H, int W, int ks, int tid, int threads,
                          int n_rows, const int* base, const int* corner) {
  const int c = tid & 7, k = k0 + c * (16 / esize);
  const int tap = k / C, ci = k - tap * C, kz = tap / (ks * ks), kyx = tap - kz * ks * ks;
  const int ky = kyx / ks, kx = kyx - ky * ks;
  const int offset = ((kz * H + ky) * W + kx) * C + ci;
  const bool k_inside = k < K;
#pragma unroll
  for (int i = 0; i < n_rows; ++i) {
    // Written out here, not through conv3d_inside(): with the helper's short-circuit the 3^3
    // shapes ran 15-50% slower on an H200 (results/h200/conv-igemm-2026-11-27/call5/).
    const int z = (corner[i] & 1023) - CONV_CORNER_BIAS + kz;
    const int y = ((corner[i] >> 10) & 1023) - CONV_CORNER_BIAS + ky;
    const int x = ((corner[i] >> 20) & 1023) - CONV_CORNER_BIAS + kx;
    const bool inside = k_inside && (uint)z < (uint)D && (uint)y < (uint)H && (uint)x < (uint)W;
    __global const uchar* from = inside ? src + (size_t)(base[i] + offset) * esize : src;
    cp_async16_ca(tile + swz((tid >> 3) + i * (threads >> 3), c), from, inside ? 16 : 0);
  }
}

// w [out, C, taps] -> [out, k_pad] in (tap, channel) order, zero past C taps: the implicit GEMM's
// K order, where a K tile's chunk is consecutive channels of one tap, its rows
// padded to 16 bytes. An item per element of the output. Here rather than in conv3d.cl: the
// portable program's kernels must all be launched by the Oclgrind pass's cases, and this one runs
// only on NVIDIA.
inline float conv_weight_taps_first_at(__global const float* w, int C, int taps, int k_pad, int i) {
  const int o = i / k_pad, r = i - o * k_pad, t = r / C, c = r - t * C;
  return r < taps * C ? w[((size_t)o * C + c) * taps + t] : 0.0f;
}

__kernel void conv3d_weight_taps_first(__global const float* w, int C, int taps, int k_pad, int n,
                                       __global float* out) {
  const int i = get_global_id(0);
  if (i >= n) return;
  out[i] = conv_weight_taps_first_at(w, C, taps, k_pad, i);
}

// The data gradient's weights (conv3d_bwd_igemm.cl's conv3d_weight_flip_taps_first and
// conv3d_weight_phases say what), element i, here so that the bf16 program
// (conv3d_bf16_nvidia.cl) writes them as bf16 too.
inline float conv_weight_flip_at(__global const float* w, int Co, int C, int taps, int k_pad,
                                 int i) {
  const int ci = i / k_pad, r = i - ci * k_pad, t = r / Co, co = r - t * Co;
  return r < taps * Co ? w[((size_t)co * C + ci) * taps + (taps - 1 - t)] : 0.0f;
}

inline float conv_weight_phases_at(__global const float* w, int Co, int C, int k_pad, int i) {
  const int row = i / k_pad, k = i - row * k_pad, parity = row / C, c = row - parity * C;
  const int a = k / Co, co = k - a * Co;
  int tap = 0;
  bool hit = k < 8 * Co;
  for (int axis = 2; axis >= 0; --axis) {  // d, h, w: bits 2, 1, 0 of parity and of a
    const int p = (parity >> axis) & 1, b = (a >> axis) & 1;
    const int t = p == 0 ? (b == 0 ? 1 : -1) : (b == 0 ? 2 : 0);
    hit = hit && t >= 0;
    tap = tap * 3 + max(t, 0);
  }
  return hit ? w[((size_t)co * C + c) * 27 + tap] : 0.0f;
}

// One mma fragment (16 x 8 in the C layout: rows m and m + 8, columns n and n + 1 of this item)
// of a weight gradient's partial tile into its slot [Co][Nn], clipped to the matrix: the tf32
// (conv3d_bwd_igemm.cl) and bf16 (conv3d_dw_bf16_nvidia.cl) kernels' split-reduction store.
inline void conv_dw_store_fragment(__global float* slot, int Co, int Nn, int m, int n, float4 c) {
  if (m < Co) {
    if (n < Nn) slot[(size_t)m * Nn + n] = c.x;
    if (n + 1 < Nn) slot[(size_t)m * Nn + n + 1] = c.y;
  }
  if (m + 8 < Co) {
    if (n < Nn) slot[(size_t)(m + 8) * Nn + n] = c.z;
    if (n + 1 < Nn) slot[(size_t)(m + 8) * Nn + n + 1] = c.w;
  }
}

// The item (i = x Co4 + channel group, y, n UD + z) of dy's spread onto the stride-1 grid
// [N, UD, UH, UW, Co] (zeros between the stride's points): its four channels of dy, and at *at
// their offset in the spread. conv3d_dy_dilate4 stores them as fp32, conv3d_dy_dilate4_bf16 as
// bf16 bits.
inline float4 conv3d_dy_spread4(__global const float* dy, int Co4, int OD, int OH, int OW, int s,
                                int UD, int UH, int UW, int i, int y, int nz, size_t* at) {
  const int x = i / Co4, c4 = i - x * Co4;
  const int n = nz / UD, z = nz - n * UD;
  const int oz = z / s, oy = y / s, ox = x / s;
  const bool hit = z == oz * s && y == oy * s && x == ox * s && oz < OD && oy < OH && ox < OW;
  *at = ((((size_t)n * UD + z) * UH + y) * UW + x) * Co4 * 4 + c4 * 4;
  return hit ? vload4(c4, dy + ((((size_t)n * OD + oz) * OH + oy) * OW + ox) * Co4 * 4)
             : (float4)(0.0f);
}
