// bf16 on NVIDIA's tensor cores for conv3d's implicit GEMMs (issue 27: DynUNet's bf16-mixed
// stage computes in bf16 on NVIDIA, as PyTorch's autocast does): mma.sync's bf16 form and the
// fp32 -> bf16 conversion. Only conv3d's bf16 program includes this file
// (conv3d_igemm.cpp), so a driver that rejects these forms fails bf16 calls alone.

// bf16 x bf16 -> f32 (sm_80+): mma_f16's fragment layout, so the pipeline's ldmatrix loads serve
// both.
inline void mma_bf16(float* c, uint a0, uint a1, uint a2, uint a3, uint b0, uint b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

// fp32 -> bf16 bits, rounded to nearest even (sm_80+), NaN kept a NaN.
inline ushort to_bf16_bits(float v) {
  ushort r;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(r) : "f"(v));
  return r;
}

// fp32 -> bf16 bits, four per item, as f32_to_f16 (gemm_pipelined.cl).
__kernel void f32_to_bf16(__global const float* src, __global ushort* dst, int n) {
  const int i = get_global_id(0) * 4;
  if (i + 3 < n) {
    const float4 v = LOAD4(src, i);
    *(__global ushort4*)(dst + i) = (ushort4)(to_bf16_bits(v.x), to_bf16_bits(v.y),
                                              to_bf16_bits(v.z), to_bf16_bits(v.w));
  } else {
    for (int j = i; j < n; ++j) dst[j] = to_bf16_bits(src[j]);
  }
}


// The three weight permutations (conv3d_igemm.cl, conv3d_bwd_igemm.cl) writing bf16 bits: a bf16
// GEMM's weight without an fp32 copy and its f32_to_bf16 (two launches of ~4 us each per
// convolution pass, 21 of them a DynUNet step: results/h200/dyn28-2026-11-28). Same arguments.
__kernel void conv3d_weight_taps_first_bf16(__global const float* w, int C, int taps, int k_pad,
                                            int n, __global ushort* out) {
  const int i = get_global_id(0);
  if (i < n) out[i] = to_bf16_bits(conv_weight_taps_first_at(w, C, taps, k_pad, i));
}

__kernel void conv3d_weight_flip_taps_first_bf16(__global const float* w, int Co, int C, int taps,
                                                 int k_pad, int n, __global ushort* out) {
  const int i = get_global_id(0);
  if (i < n) out[i] = to_bf16_bits(conv_weight_flip_at(w, Co, C, taps, k_pad, i));
}

__kernel void conv3d_weight_phases_bf16(__global const float* w, int Co, int C, int k_pad, int n,
                                        __global ushort* out) {
  const int i = get_global_id(0);
  if (i < n) out[i] = to_bf16_bits(conv_weight_phases_at(w, Co, C, k_pad, i));
}

// The k2 s2 transposed convolution's weight [Ci, Co, 8] as the forward GEMM's [8 Co, Ci] in bf16
// bits: row (parity, co), column ci (conv_transpose3d_igemm.cpp), an item an element of it.
__kernel void convt3d_weight_rows_bf16(__global const float* w, int Co, int Ci, int n,
                                       __global ushort* out) {
  const int i = get_global_id(0);
  if (i >= n) return;
  const int row = i / Ci, ci = i - row * Ci, parity = row / Co, co = row - parity * Co;
  out[i] = to_bf16_bits(w[((size_t)ci * Co + co) * 8 + parity]);
}

// The stride-2 data gradient's phases convolution (conv3d_bwd_igemm.cl's conv3d_weight_phases
// says how) storing its C tile straight onto dx, as conv3d_phase_scatter did from an fp32 copy of
// the whole output (185 + 50 us a DynUNet step, and the copy's write and read:
// results/h200/dyn28-2026-11-28): row m = ((n PD + pz) PH + py) PW + px of the phases' output,
// column parity Cx + c (Cx = N / 8, a multiple of 4, so a quad of columns is 4 consecutive
// channels of one dx voxel): dx[n, 2 (pz - 1) + pd, 2 (py - 1) + ph, 2 (px - 1) + pw, c], the
// rows whose voxel falls outside dx (planes -1 and past the end) skipped. The epilogue of a GEMM
// library cannot scatter rows like this; that is why the pipeline takes a PIPE_STORE.
// XO: the plane the phases' rows start from, 1 as above; 0 for the k2 s2 transposed convolution's
// forward pass (conv_transpose3d_igemm.cpp), whose row (n, pz, py, px) is an input voxel and
// whose column (parity, c) goes to dx[n, 2 pz + pd, 2 py + ph, 2 px + pw, c] (+ bias[c] where
// has_bias), so every row lands inside.
inline void conv3d_phase_store(__local const float* c, int bm, int bn, int threads, int m0, int n0,
                               int M, int N, __global float* dx, int PD, int PH, int PW, int XD,
                               int XH, int XW, int XO, __global const float* bias, int has_bias,
                               int tid) {
  const int quads = bn / 4, pitch = bn + 4, step = threads / quads;
  const int col = (tid % quads) * 4, gn = n0 + col, first = tid / quads;
  if (gn >= N) return;
  const int cx = N >> 3, parity = gn / cx, ch = gn - parity * cx;
  const int pd = parity >> 2, ph = (parity >> 1) & 1, pw = parity & 1;
  const float4 b = has_bias ? vload4(0, bias + ch) : (float4)(0.0f);
  const int rows = min(bm, M - m0);
  for (int row = first; row < rows; row += step) {
    int r = m0 + row;
    const int px = r % PW;
    r /= PW;
    const int py = r % PH;
    r /= PH;
    const int pz = r % PD, n = r / PD;
    const int z = 2 * (pz - XO) + pd, y = 2 * (py - XO) + ph, x = 2 * (px - XO) + pw;
    if ((uint)z >= (uint)XD || (uint)y >= (uint)XH || (uint)x >= (uint)XW) continue;
    *(__global float4*)(dx + ((((size_t)n * XD + z) * XH + y) * XW + x) * cx + ch) =
        *(__local const float4*)(c + row * pitch + col) + b;
  }
}

// conv3d_dy_dilate4 (conv3d_bwd_igemm.cl) writing bf16 bits: the spread dy of a bf16 data
// gradient goes straight to the implicit GEMM, without an fp32 spread copy (8x dy's size at
// stride 2) and its f32_to_bf16. Co a multiple of 4; ushort4 stores ask 8-byte alignment, which
// buffers of whole voxels (4 channels, 8 bytes) keep.
__kernel void conv3d_dy_dilate4_bf16(__global const float* dy, int Co4, int OD, int OH, int OW,
                                     int s, int UD, int UH, int UW, __global ushort* out) {
  const int i = get_global_id(0), y = get_global_id(1), nz = get_global_id(2);
  if (i >= Co4 * UW) return;
  size_t at;
  const float4 v = conv3d_dy_spread4(dy, Co4, OD, OH, OW, s, UD, UH, UW, i, y, nz, &at);
  *(__global ushort4*)(out + at) =
      (ushort4)(to_bf16_bits(v.x), to_bf16_bits(v.y), to_bf16_bits(v.z), to_bf16_bits(v.w));
}
