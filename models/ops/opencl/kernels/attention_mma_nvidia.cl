// NVIDIA-only fused masked attention on tensor cores (built with gemm_mma_nvidia.cl, whose
// fragment layouts, mma_f16 / mma_tf32 and conversions it uses), and the helpers the masked and
// relative kernels share. Head size 64. One body (attention_mma_body.cl) serves every
// precision, instantiated per precision's row of the table (attention_f16_nvidia.cl: fp16,
// m16n8k16; attention_tf32_nvidia.cl: tf32, m16n8k8, for stages in TF32 mode) as the GEMMs'
// precisions share gemm_pipe_body.cl. This comment tells the f16 kernel's story; tf32's
// differs where its fragments do (tiles of fp32, twice the bytes: a 2-stage ring; P through
// local memory, since its accumulator layout is not tf32's A layout).
//
// attention_pack_<precision> (attention_pack_body.cl) first converts K and V once per call to
// the mma's operands, per (batch, head): K as [n, 64] rows and V transposed as [64, n], so that
// the attention kernel's many work-groups per head copy ready-made tiles with 16-byte loads
// instead of each converting (and transposing) the same fp32 values again.
// A 128-item work-group (4 warps) owns 64 FA_MBLK queries of one (batch, head); each warp
// FA_MBLK blocks of 16 (FA_MBLK 1 or 2: an attention_mma_body.cl instance each). Two blocks
// halve the ldmatrix traffic per mma: each K or V fragment feeds both, as FlashAttention-2's
// 4-warp, 128-query tiles do. With one block, a 64-key tile costs a warp 32 ldmatrix.x4
// (128 bytes a clock of local memory: 128 clocks an SM) against 64 mma (about 106 clocks at
// the measured mma.sync ceiling), so local memory, not the tensor cores, set the pace.
// (One block used 165 registers an item: 8-warp groups ran one per SM; Geneformer full's 5
// attention calls took 3.70 ms with them, 3.18 ms with 4 warps, on an H100.)
// Tiles of 64 keys of K (row per key) and V (transposed: row per dimension) stream through a
// 3-stage cp.async ring in local memory (the GEMM's helpers, gemm_pipelined.cl), so the
// next tiles load while this one is multiplied, one barrier per tile; fragments come by
// ldmatrix.x4 (rows padded to 144 bytes: the 8 rows of one phase hit 8 bank groups). Per tile,
// S = Q K^T with m16n8k16 mma (Q fragments held in registers for the whole loop), an
// online softmax in fp32 on the S fragments (row max and sum across the 4 threads sharing a
// row), then P is repacked from the S accumulator layout straight into A fragments (the layouts
// match: no trip through memory) and O += P V with mma. Nothing of size n x n exists anywhere.
// The score scale and log2(e) are folded into Q so the softmax uses exp2.
// In a half-precision stage (issue 27) q, k, v and out hold half bits (`halves`, `half_in`):
// the QKV GEMM writes f16 and the output projection reads f16, with no conversion pass.
#define FA_THREADS 128
#define FA_KEYS 64
#define FA_DH 64

inline float shfl_xor(float v, int mask) {
  float r;
  asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=f"(r) : "f"(v), "r"(mask));
  return r;
}

inline void warp_sync(void) {
  asm volatile("bar.warp.sync 0xffffffff;" ::: "memory");
}

inline uint pack_half2(float lo, float hi) {
  return (uint)to_half_bits(lo) | ((uint)to_half_bits(hi) << 16);
}

// pack_half2 in one instruction (cvt.rn.f16x2.f32 puts its first source in the upper half):
// the same rounding, half the conversions, no shift and or. The direct kernel's P repack
// converts 64 scores an item per 64-key tile, as many as it has exponentials.
inline uint pack_half2_x2(float lo, float hi) {
  uint r;
  asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}

// P's pairs by either conversion (fast: pack_half2_x2), fast a constant at every call.
inline uint pack_p(float lo, float hi, int fast) {
  return fast ? pack_half2_x2(lo, hi) : pack_half2(lo, hi);
}

// exp2 as one MUFU.EX2: without -cl-denorms-are-zero, native_exp2 may become the non-ftz
// ex2.approx, which ptxas wraps in a range test and two multiplies for subnormal results.
// Softmax weights below 2^-126 are zero either way once P is rounded to f16.
inline float exp2_ftz(float x) {
  float r;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}

// ldmatrix.x4 with .trans: each 8 x 8 block arrives transposed, so V in its natural layout
// (row per key) gives the B fragments of P V directly, as V^T rows do without .trans (the
// relative kernel's V and the direct masked kernel's).
inline void ldmatrix_x4_trans(__local const uint4* p, uint* r) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_addr(p))
               : "memory");
}

// B fragments of two n8 tiles for k step st: rows row0 .. row0 + 15 of a local tile (keys of K,
// band rows, dimensions of V^T), `pitch` 16-byte chunks apart, by one ldmatrix.x4; lm_row and
// lm_chunk are the lane's row and chunk in the caller (b0, b1 of the first block, then of the
// second).
#define FA_LDM_B(b, tile, row0, pitch, st) \
  ldmatrix_x4((tile) + ((row0) + lm_row) * (pitch) + (st) * 2 + lm_chunk, b)

// Two n8 tiles, c[2 j] and c[2 j + 1], += a . b for one k step with the precision's mma (AT_MMA,
// defined by the row of the table in force where this expands); b as ldmatrix.x4 leaves two
// tiles' B fragments: b0, b1 of the first, then of the second.
#define FA_MMA_PAIR(c, j, a, b)                                               \
  {                                                                           \
    AT_MMA((c)[2 * (j)], (a)[0], (a)[1], (a)[2], (a)[3], (b)[0], (b)[1]);     \
    AT_MMA((c)[2 * (j) + 1], (a)[0], (a)[1], (a)[2], (a)[3], (b)[2], (b)[3]); \
  }

// The scores s (c0, c1 of tile j: row g, keys 8 j + 2t and + 1; c2, c3: row g + 8) into a
// 16 x 64 float tile of local memory, rows `pitch` floats apart: tf32's P goes there, since
// its A fragments (row g, keys t and t + 4) are not the accumulators' layout.
__attribute__((always_inline)) inline void stash_scores(float s[8][4], __local float* p,
                                                        int pitch, int g, int t) {
#pragma unroll
  for (int j = 0; j < 8; ++j) {
    vstore2((float2)(s[j][0], s[j][1]), 0, p + g * pitch + j * 8 + 2 * t);
    vstore2((float2)(s[j][2], s[j][3]), 0, p + (g + 8) * pitch + j * 8 + 2 * t);
  }
}

// ldmatrix.x4 of fp32 words (8 x 4 per matrix: m16n8k8's tf32 fragments), rounded to tf32.
inline void ldmatrix_x4_tf32(__local const uint4* p, uint* r) {
  ldmatrix_x4(p, r);
#pragma unroll
  for (int e = 0; e < 4; ++e) r[e] = to_tf32(as_float(r[e]));
}

// Online softmax over one 64-key tile of S for the warp's rows g and g + 8 (c0, c1 of tile j
// are row g, keys 8 j + 2t and + 1; c2, c3 row g + 8): adds the tile's key biases, updates the
// running maxima m and per-thread partial sums l, rescales O's `o_tiles` n8 tiles, and leaves
// exp2(s - max) in s. Shared by the f16, tf32 and relative kernels (o_tiles is a constant at
// every call, so the loops unroll and O stays in registers; ftz, also a constant, picks
// exp2_ftz). Both helpers are always inlined: S and O reach them as arrays, which stay in
// registers only once the call is gone (clang, not inlining these, put them on the stack).
__attribute__((always_inline)) inline void online_softmax_tile(float s[8][4],
                                                               __local const float* bias, int t,
                                                               float* m0, float* m8, float* l0,
                                                               float* l8, float o[][4],
                                                               int o_tiles, int ftz) {
  float mx0 = *m0, mx8 = *m8;
#pragma unroll
  for (int j = 0; j < 8; ++j) {
    const float b0 = bias[j * 8 + 2 * t], b1 = bias[j * 8 + 2 * t + 1];
    s[j][0] += b0;
    s[j][1] += b1;
    s[j][2] += b0;
    s[j][3] += b1;
    mx0 = fmax(mx0, fmax(s[j][0], s[j][1]));
    mx8 = fmax(mx8, fmax(s[j][2], s[j][3]));
  }
  mx0 = fmax(mx0, shfl_xor(mx0, 1));
  mx0 = fmax(mx0, shfl_xor(mx0, 2));
  mx8 = fmax(mx8, shfl_xor(mx8, 1));
  mx8 = fmax(mx8, shfl_xor(mx8, 2));
#define FA_EXP2(x) (ftz ? exp2_ftz(x) : native_exp2(x))
  const float c0 = FA_EXP2(*m0 - mx0), c8 = FA_EXP2(*m8 - mx8);
  *m0 = mx0;
  *m8 = mx8;
  float sum0 = 0.0f, sum8 = 0.0f;
#pragma unroll
  for (int j = 0; j < 8; ++j) {
    s[j][0] = FA_EXP2(s[j][0] - mx0);
    s[j][1] = FA_EXP2(s[j][1] - mx0);
    s[j][2] = FA_EXP2(s[j][2] - mx8);
    s[j][3] = FA_EXP2(s[j][3] - mx8);
    sum0 += s[j][0] + s[j][1];
    sum8 += s[j][2] + s[j][3];
  }
#undef FA_EXP2
  *l0 = *l0 * c0 + sum0;  // reduced across the row at the end
  *l8 = *l8 * c8 + sum8;
#pragma unroll
  for (int i = 0; i < o_tiles; ++i) {
    o[i][0] *= c0;
    o[i][1] *= c0;
    o[i][2] *= c8;
    o[i][3] *= c8;
  }
}

// One pair of O's values, a row's columns c and c + 1 at `row` + c of a row of fp32 (one
// 8-byte store) or of half bits (half_out: one 4-byte store; a half-precision stage, issue 27,
// whose next linear layer reads f16). c is even (head widths are multiples of 8), which vstore2
// could not assume.
inline void store_pair(__global float* row, int c, float a, float b, int half_out) {
  if (half_out)
    *(__global uint*)((__global ushort*)row + c) = pack_half2(a, b);
  else
    *(__global float2*)(row + c) = (float2)(a, b);
}

// O / l for rows r0 and r0 + 8 (those below n) into `out` from element `at` on (row 0 of the
// batch item, the head's first column plus 2t); rows are ld_out apart. O has o_tiles n8 tiles
// (a constant), of which the first cols / 8 are stored.
__attribute__((always_inline)) inline void store_attention_rows(float o[][4], int o_tiles,
                                                                int cols, float l0, float l8,
                                                                int r0, int n,
                                                                __global float* out, long at,
                                                                int ld_out, int half_out) {
  l0 += shfl_xor(l0, 1);
  l0 += shfl_xor(l0, 2);
  l8 += shfl_xor(l8, 1);
  l8 += shfl_xor(l8, 2);
  const float inv0 = 1.0f / l0, inv8 = 1.0f / l8;
  // Rows r0 and r0 + 8 (in elements of the output's format).
  const long e0 = at + (long)r0 * ld_out, e8 = at + (long)(r0 + 8) * ld_out;
  __global float* row0 = half_out ? (__global float*)((__global ushort*)out + e0) : out + e0;
  __global float* row8 = half_out ? (__global float*)((__global ushort*)out + e8) : out + e8;
#pragma unroll
  for (int i = 0; i < o_tiles; ++i) {
    if (i * 8 >= cols) break;
    if (r0 < n) store_pair(row0, i * 8, o[i][0] * inv0, o[i][1] * inv0, half_out);
    if (r0 + 8 < n) store_pair(row8, i * 8, o[i][2] * inv8, o[i][3] * inv8, half_out);
  }
}
