// The f16, tf32 and s8 tensor-core GEMMs on a multistage cp.async pipeline:
// y[M, N] = epi(x[M, K] . W[N, K]^T) with x and W half (fp32 for tf32, int8 for s8) in global
// memory, f32 (s8: int32) accumulation, the fp32 epilogue of gemm_mma_body.cl.
// Included after gemm_mma_nvidia.cl (mma_f16); NVIDIA only (inline PTX).
//
// Written by hand because no library reaches NVIDIA's tensor cores from OpenCL: CLBlast's half
// routines need cl_khr_fp16, which NVIDIA's OpenCL lacks, and cuBLAS is CUDA. The structure is
// the one CUTLASS's multistage sm80 GEMM uses, restricted to what inline PTX in OpenCL accepts
// (no wgmma, no TMA on this compiler):
// - a ring of PIPE_STAGES K tiles in local memory filled by cp.async (16-byte copies straight
//   from global, no registers, zero-filled past M, N and K), one barrier per K tile;
// - each tile row is 8 chunks of 16 bytes (64 halves, or 32 fp32 for tf32), chunk c stored at
//   c ^ (row & 7): the
//   eight rows one ldmatrix phase reads land in eight different bank groups, and the eight
//   items that copy one row write eight different ones, without padding;
// - fragments by ldmatrix.x4 (one instruction for a 16 x 16 A block or two 8-column B blocks),
//   32 mma.sync per 8 ldmatrix per k step (k16 for f16; k8 for tf32, where the 8 x 8 b16
//   matrices ldmatrix moves are 8 x 4 fp32 and land exactly in m16n8k8's fragments; each
//   fragment is rounded to tf32 (cvt.rna) in registers, so neither operand needs a pass; k32
//   for s8, whose m16n8k32 fragments are 4 bytes of k per register, again ldmatrix's layout).
// The earlier kernel (gemm_mma_body.cl) staged fp32 through registers and converted while
// storing, about 420 instructions per 32 mma; it stays for rows that are not 16-byte aligned
// (K not a multiple of 8 for f16, 4 for tf32, 16 for s8).
//
// Tiles: 128 x PIPE_BN x 64, 64 x 64 per warp, warps as 2 (M) x PIPE_BN / 64 (N); three
// stages. gemm_pipe_body.cl is included once per variant (gemm_mma.cpp):
//   128 x 256, 8 warps, 144 KB of static local memory: one work-group per SM, the most reuse;
//   128 x 128, 4 warps, 96 KB: two per SM, so that one's epilogue overlaps the other's loop.
// NVIDIA's OpenCL reports 48 KB of local memory but compiles and runs both (H100, H200).
// Which one a shape gets is measured on its first call.

#define PIPE_BM 128
#define PIPE_STAGES 3
#define PIPE_A_CHUNKS (PIPE_BM * 8)  // 16-byte chunks of A per stage (a row: 128 bytes of K)

// A __local pointer is already a shared-window address (NOTES: pass it as a 32-bit register).
inline uint smem_addr(__local const uint4* p) {
  return (uint)(size_t)p;
}

// 16 bytes from `src` into local memory; `bytes` < 16 zero-fills the rest (0: all zeros, src is
// then only required to be a valid address).
inline void cp_async16(__local uint4* dst, __global const uchar* src, int bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;"
               :
               : "r"(smem_addr(dst)), "l"(src), "r"(bytes)
               : "memory");
}

// cp_async16 of all 16 bytes (mma38's steady loop: no src-size operand to keep in a register).
inline void cp_async16_full(__local uint4* dst, __global const uchar* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;"
               :
               : "r"(smem_addr(dst)), "l"(src)
               : "memory");
}

inline void cp_async_commit(void) {
  asm volatile("cp.async.commit_group;" ::: "memory");
}

#define CP_ASYNC_WAIT(n) asm volatile("cp.async.wait_group " #n ";" ::: "memory")

inline void ldmatrix_x4(__local const uint4* p, uint* r) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_addr(p))
               : "memory");
}

// PIPE_HAS_BULK (compute capability 9.0 and later, mma_program_source): the helpers below are
// PTX that sm_80/sm_89 do not have; without it, no bulk variant is in the program either.
#ifdef PIPE_HAS_BULK
// mma39 (gemm_pipe_body.cl's PIPE_BULK): a ring slot filled by the copy engine instead of the
// items' 16-byte cp.async. Each slot has one mbarrier (count 1): the item that arms it announces
// the slot's bytes (expect_tx), each 128-byte row copy (cp.async.bulk, a whole K-tile row)
// completes its bytes on it, and a reader waits for the phase by parity. The copies leave the
// load/store unit's queue, which the items' cp.async shared with ldmatrix (docs/wgmma.md, mma38).
inline void pipe_bar_init(__local ulong* b) {
  asm volatile("mbarrier.init.shared.b64 [%0], 1;" : : "r"((uint)(size_t)b) : "memory");
}

inline void pipe_bar_init_n(__local ulong* b, uint count) {
  asm volatile("mbarrier.init.shared.b64 [%0], %1;" : : "r"((uint)(size_t)b), "r"(count) : "memory");
}

inline void pipe_bar_arrive(__local ulong* b) {
  asm volatile("{\n\t.reg .b64 pba_state;\n\tmbarrier.arrive.shared.b64 pba_state, [%0];\n\t}"
               :
               : "r"((uint)(size_t)b)
               : "memory");
}

inline void pipe_bar_expect(__local ulong* b, uint bytes) {
  asm volatile(
      "{\n\t.reg .b64 pbe_state;\n\t"
      "mbarrier.arrive.expect_tx.shared::cta.b64 pbe_state, [%0], %1;\n\t}"
      :
      : "r"((uint)(size_t)b), "r"(bytes)
      : "memory");
}

// 128 bytes from `src` (16-byte aligned) to `dst`, completing on `b`.
inline void pipe_bulk_row(__local uint4* dst, __global const uchar* src, __local ulong* b) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 128, [%2];"
      :
      : "r"(smem_addr(dst)), "l"(src), "r"((uint)(size_t)b)
      : "memory");
}

// 16 KB (a packed 128-row block of a K tile, PIPE_PACKED) from `src` to `dst`, completing on `b`.
inline void pipe_bulk_block(__local uint4* dst, __global const uchar* src, __local ulong* b) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 16384, [%2];"
      :
      : "r"(smem_addr(dst)), "l"(src), "r"((uint)(size_t)b)
      : "memory");
}

// Until the phase of parity `parity` of `b` has completed.
inline void pipe_bar_wait(__local ulong* b, uint parity) {
  uint done = 0;
  do {
    asm volatile(
        "{\n\t.reg .pred pbw_p;\n\tmbarrier.try_wait.parity.shared.b64 pbw_p, [%1], %2;\n\t"
        "selp.u32 %0, 1, 0, pbw_p;\n\t}"
        : "=r"(done)
        : "r"((uint)(size_t)b), "r"(parity)
        : "memory");
  } while (!done);
}
#endif  // PIPE_HAS_BULK

// Chunk (row, c) of a tile with 8 chunks per row, swizzled.
inline int swz(int row, int c) {
  return row * 8 + (c ^ (row & 7));
}

// Copies K tile `k0` of rows [r0, r0 + rows) of `src` ([R, K] elements of `esize` bytes: half
// or tf32) into `tile`, `threads` items sharing the work. A tile row is 8 chunks of 16 bytes.
// rows x 8 is a multiple of threads, and both are constants where the kernel calls it: the loop
// counts from 0, not from tid, so it unrolls. NVIDIA's compiler does not hoist what does not
// change from tile to tile out of the K loop (mma37 read its PTX: rows, swizzle and bounds again
// for every copy); the f16 GEMMs' PIPE_FAST forms set their copies up once (pipe_copy_rows).
inline void load_rows(__local uint4* tile, __global const uchar* src, int esize, int r0, int rows,
                      int R, int K, int k0, int tid, int threads) {
  const int per_chunk = 16 / esize;
#pragma unroll
  for (int i = 0; i < rows * 8 / threads; ++i) {
    const int e = tid + i * threads, row = e >> 3, c = e & 7;
    const int gr = r0 + row, gk = k0 + c * per_chunk;
    const bool inside = gr < R && gk < K;
    const int bytes = inside ? min(16, (K - gk) * esize) : 0;
    __global const uchar* from = inside ? src + ((size_t)gr * K + gk) * esize : src;
    cp_async16(tile + swz(row, c), from, bytes);
  }
}

// mma37 (gemm_pipe_body.cl's PIPE_FAST): an item's copies `from` .. `to` - 1 of a K tile wholly
// inside K, set up once: copy i is row i x rs of the item's (rows_left rows from its first are
// inside), `k_bytes` into it, to dst + i x rs rows (rs a multiple of 8 keeps the swizzle).
inline void pipe_copy_rows(__local uint4* dst, __global const uchar* first,
                           __global const uchar* fallback, size_t row_bytes, int k_bytes,
                           int rows_left, int from, int to, int rs) {
#pragma unroll
  for (int i = from; i < to; ++i) {
    const bool in = i * rs < rows_left;
    cp_async16(dst + i * rs * 8, in ? first + i * rs * row_bytes + k_bytes : fallback,
               in ? 16 : 0);
  }
}

// A's K tile k0: rows of x ([R, K]), or for an implicit 'same' convolution (taps > 0) rows of
// its input ([R, K / taps]: R = B x len positions, channels last) shifted by the tile's tap and
// zero outside each sequence. K / taps must be a multiple of the tile's K elements, so that a
// tile lies within one tap.
inline void load_a_rows(__local uint4* tile, __global const uchar* src, int esize, int r0,
                        int rows, int R, int K, int k0, int taps, int len, int tid,
                        int threads) {
  if (taps == 0) {
    load_rows(tile, src, esize, r0, rows, R, K, k0, tid, threads);
    return;
  }
  const int per_chunk = 16 / esize, cin = K / taps, tap = k0 / cin, c0 = k0 - tap * cin;
  const int shift = tap - taps / 2;
#pragma unroll
  for (int i = 0; i < rows * 8 / threads; ++i) {
    const int e = tid + i * threads, row = e >> 3, c = e & 7, gr = r0 + row;
    const int l = gr % len + shift;
    const bool inside = gr < R && l >= 0 && l < len;
    __global const uchar* from =
        inside ? src + ((size_t)(gr + shift) * cin + c0 + c * per_chunk) * esize : src;
    cp_async16(tile + swz(row, c), from, inside ? 16 : 0);
  }
}

// The epilogue goes through local memory, as CUTLASS's does: written straight from the mma
// fragments, each item would touch 2 columns of 8 rows per access and wait on every residual
// load in turn (one work-group per SM leaves 8 warps to hide it); a first version spent more
// time there than in the mma loop, and a direct one tried again on 2026-11-26 took 1.2 to 2.2x
// the staged one's time. Staged, each item moves 4 consecutive columns per access, always the
// same 4 (threads is a multiple of the tile's quads), so that its bias and scales are loaded once
// and no index is divided; it issues PIPE_EPI_BATCH residual loads before it uses the first.
// The accesses are 16-byte vectors (LOAD4, AT4; N a multiple of 4 keeps every row's quads
// aligned): vload4 and vstore4, which need only float alignment, compiled to four scalar
// accesses each.
// Each unrolled batch holds one activation's code: with apply_act4(v, act) for a runtime act in
// the unrolled loop (six activations' code eight times over, though act = 0 runs none of it)
// the epilogue alone took 188 us for 65536 x 768 outputs (201 MB) on an H100, against 68 us
// storing the tile as it is and 110 us with the activation's branch outside the loop.
// The C tile's row pitch is the tile's width + 4 floats, which spreads a fragment's 8 rows
// (the accumulators go there in gemm_pipe_body.cl, converted to float: s8's int32 sums are exact
// to the end, |sum| <= 127^2 K).
#define PIPE_EPI_BATCH 8

// Elements at .. at + 3 of a row, gn .. gn + 3 its columns, zero (or not stored) past N.
inline float4 load_quad(__global const float* p, size_t at, int gn, int N, bool vector_rows) {
  return vector_rows ? LOAD4(p, at)
                     : (float4)(p[at], gn + 1 < N ? p[at + 1] : 0.0f, gn + 2 < N ? p[at + 2] : 0.0f,
                                gn + 3 < N ? p[at + 3] : 0.0f);
}

inline void store_quad(__global float* p, size_t at, int gn, int N, bool vector_rows, float4 v) {
  if (vector_rows) {
    AT4(p, at) = v;
    return;
  }
  p[at] = v.x;
  if (gn + 1 < N) p[at + 1] = v.y;
  if (gn + 2 < N) p[at + 2] = v.z;
  if (gn + 3 < N) p[at + 3] = v.w;
}

inline ushort4 half_bits4(float4 v) {
  return (ushort4)(to_half_bits(v.x), to_half_bits(v.y), to_half_bits(v.z), to_half_bits(v.w));
}

// store_quad into a y of half bits.
inline void store_quad_half(__global ushort* p, size_t at, int gn, int N, bool vector_rows,
                            float4 v) {
  const ushort4 h = half_bits4(v);
  if (vector_rows) {
    *(__global ushort4*)(p + at) = h;
    return;
  }
  p[at] = h.x;
  if (gn + 1 < N) p[at + 1] = h.y;
  if (gn + 2 < N) p[at + 2] = h.z;
  if (gn + 3 < N) p[at + 3] = h.w;
}

// The item's quad of columns (col in the tile, gn in y) over rows first, first + step, ... of
// the tile, in batches: y = act(C x scale + shift) + residual, with rows of whole quads (N a
// multiple of 4). Called with constant act and with_residual, so that each call site unrolls
// only its own activation.
__attribute__((always_inline)) inline void epilogue_quads(
    __local const float* c, int pitch, int col, int first, int step, int rows, int m0, int gn,
    int N, float4 scale, float4 shift, int act, bool with_residual, bool half_out,
    __global const float* residual, __global float* y) {
  for (int r0 = first; r0 < rows; r0 += step * PIPE_EPI_BATCH) {
    float4 r[PIPE_EPI_BATCH];
#pragma unroll
    for (int b = 0; b < PIPE_EPI_BATCH; ++b) {
      const int row = r0 + b * step;
      r[b] = with_residual && row < rows ? LOAD4(residual, (size_t)(m0 + row) * N + gn)
                                         : (float4)(0.0f);
    }
#pragma unroll
    for (int b = 0; b < PIPE_EPI_BATCH; ++b) {
      const int row = r0 + b * step;
      if (row >= rows) break;
      const float4 v = *(__local const float4*)(c + row * pitch + col);
      const float4 out = apply_act4(v * scale + shift, act) + r[b];
      const size_t at = (size_t)(m0 + row) * N + gn;
      if (half_out)
        *(__global ushort4*)((__global ushort*)y + at) = half_bits4(out);
      else
        AT4(y, at) = out;
    }
  }
}

// y = act(C x scale + bias) + residual over the tile, 4 columns an access. Residual may be y
// itself: each element is read before it is written, by the same item.
// act | EPI_HALF_OUT (activation_codes.h): y holds half bits (issue 27: a half-precision stage's producer writes what
// its f16 consumer reads, instead of fp32 and a conversion pass: a third of the bytes moved).
// The residual, where there is one, stays fp32 and is added in fp32 before y is rounded
// (Enformer's conv tower writes its pointwise blocks' sums in f16 for the pools that read them).
// s8 (has_scale): C is dequantized, scale = x_scale x col_scale[n].
__attribute__((always_inline)) inline void epilogue_rows(
    __local const float* c, int bm, int bn, int threads, int m0, int n0, int M, int N,
    __global const float* bias, int has_bias, int act, __global const float* residual,
    int has_residual, __global float* y, __global const float* col_scale, float x_scale,
    int has_scale, int tid) {
  const int quads = bn / 4, pitch = bn + 4, step = threads / quads;
  const int col = (tid % quads) * 4, gn = n0 + col, first = tid / quads;
  if (gn >= N) return;
  const bool vector_rows = (N & 3) == 0;
  const float4 scale =
      has_scale ? x_scale * load_quad(col_scale, gn, gn, N, vector_rows) : (float4)(1.0f);
  const float4 shift = has_bias ? load_quad(bias, gn, gn, N, vector_rows) : (float4)(0.0f);
  const int rows = min(bm, M - m0);
  const bool half_out = (act & EPI_HALF_OUT) != 0;
  act &= ~EPI_HALF_OUT;
#define PIPE_EPI(ACT, RES) \
  epilogue_quads(c, pitch, col, first, step, rows, m0, gn, N, scale, shift, ACT, RES, false, \
                 residual, y)
#define PIPE_EPI_HALF(ACT, RES)                                                            \
  epilogue_quads(c, pitch, col, first, step, rows, m0, gn, N, scale, shift, ACT, RES, true, \
                 residual, y)
  // The models' cases: no activation, GELU (both forms) or ReLU, with or without a residual;
  // half outputs with the same activations, and with a residual and no activation. Every fp32
  // branch tests !half_out: one that did not stored floats into a half y (Geneformer's ReLU did,
  // 2026-11-28); every half branch but the residual one tests !has_residual (they drop it).
  const bool f32_vector = vector_rows && !half_out;
  const bool half_vector = vector_rows && half_out && !has_residual;
  if (vector_rows && half_out && has_residual && act == SB_ACT_NONE) {
    PIPE_EPI_HALF(0, true);
  } else if (half_vector && act == SB_ACT_NONE) {
    PIPE_EPI_HALF(0, false);
  } else if (half_vector && act == SB_ACT_RELU) {
    PIPE_EPI_HALF(1, false);
  } else if (half_vector && act == SB_ACT_GELU) {
    PIPE_EPI_HALF(2, false);
  } else if (half_vector && act == SB_ACT_GELU_ERF) {
    PIPE_EPI_HALF(4, false);
  } else if (f32_vector && !has_residual && act == SB_ACT_NONE) {
    PIPE_EPI(0, false);
  } else if (f32_vector && !has_residual && act == SB_ACT_GELU) {
    PIPE_EPI(2, false);
  } else if (f32_vector && !has_residual && act == SB_ACT_GELU_ERF) {
    PIPE_EPI(4, false);
  } else if (f32_vector && !has_residual && act == SB_ACT_RELU) {
    PIPE_EPI(1, false);
  } else if (f32_vector && has_residual && act == SB_ACT_NONE) {
    PIPE_EPI(0, true);
  } else if (f32_vector && has_residual && act == SB_ACT_GELU) {
    PIPE_EPI(2, true);
  } else {
    // Every other case (rows of N not a multiple of 4, the other activations): a row at a time.
#pragma unroll 1
    for (int row = first; row < rows; row += step) {
      const size_t at = (size_t)(m0 + row) * N + gn;
      const float4 r = has_residual ? load_quad(residual, at, gn, N, vector_rows) : (float4)(0.0f);
      const float4 v = *(__local const float4*)(c + row * pitch + col);
      const float4 out = apply_act4(v * scale + shift, act) + r;
      if (half_out)
        store_quad_half((__global ushort*)y, at, gn, N, vector_rows, out);
      else
        store_quad(y, at, gn, N, vector_rows, out);
    }
  }
#undef PIPE_EPI_HALF
#undef PIPE_EPI
}

// fp32 -> half bits, four per item (n a multiple of 4 is not required: the tail is scalar).
__kernel void f32_to_f16(__global const float* src, __global ushort* dst, int n) {
  const int i = get_global_id(0) * 4;
  if (i + 3 < n) {
    const float4 v = LOAD4(src, i);
    *(__global ushort4*)(dst + i) = (ushort4)(to_half_bits(v.x), to_half_bits(v.y),
                                              to_half_bits(v.z), to_half_bits(v.w));
  } else {
    for (int j = i; j < n; ++j) dst[j] = to_half_bits(src[j]);
  }
}

// A convolution's input to half bits for the implicit GEMM, transformed per channel on the way
// (x scale[c] + shift[c], then act; im2col's InputTransform), four elements an item (the pipeline
// takes only channels that are a multiple of 64, so the four share a row). x holds half bits
// where x_half is 1 (Enformer's pools write them in its half-activation stage).
__kernel void channels_to_f16(__global const float* x, __global const float* scale, int has_scale,
                              __global const float* shift, int has_shift, int act, int channels,
                              int n, __global ushort* dst, int x_half) {
  const int i = get_global_id(0) * 4;
  if (i >= n) return;
  const int c = i % channels;
  float4 v = x_half ? vload_half4(i / 4, (__global const half*)x) : LOAD4(x, i);
  if (has_scale) v *= LOAD4(scale, c);
  if (has_shift) v += LOAD4(shift, c);
  v = apply_act4(v, act);
  *(__global ushort4*)(dst + i) =
      (ushort4)(to_half_bits(v.x), to_half_bits(v.y), to_half_bits(v.z), to_half_bits(v.w));
}

// fp32 -> s8 with the calibrated per-tensor scale (x ~= x_scale q), rounded to nearest even and
// saturated as the register-staged kernel quantizes; four per item.
// src holds half bits when in_half (an int8 stage with half activations, issue 27: half the
// bytes read; the int8 GEMM's epilogue writes halves for the next producer).
inline float4 s8_source4(__global const float* src, int i, int in_half) {
  return in_half ? vload_half4(i / 4, (__global const half*)src) : LOAD4(src, i);
}

__kernel void f32_to_s8(__global const float* src, __global char* dst, float inv_scale, int n,
                        int in_half) {
  const int i = get_global_id(0) * 4;
  if (i + 3 < n) {
    const float4 v = s8_source4(src, i, in_half) * inv_scale;
    *(__global char4*)(dst + i) = (char4)(to_s8(v.x), to_s8(v.y), to_s8(v.z), to_s8(v.w));
  } else {
    for (int j = i; j < n; ++j) dst[j] = to_s8(act_load(src, j, in_half) * inv_scale);
  }
}

// Dynamic quantization's per-tensor scale (symmetric, the tensor's own max |x|, as the CPU's
// oneDNN path quantizes activations per call): 1024 groups of 256 items take partial maxima over
// a grid-stride walk, then one group reduces them into scales = [max / 127, 127 / max]. Two
// fixed-order passes rather than atomics: the same input gives the same scale every time.
#define ABSMAX_GROUPS 1024
__kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void absmax_partial(__global const float* src, int n, __global float* partial, int in_half) {
  __local float scratch[256];
  float m = 0.0f;
  for (int i = get_global_id(0); i < n; i += get_global_size(0))
    m = fmax(m, fabs(act_load(src, i, in_half)));
  m = group_max(m, scratch);
  if (get_local_id(0) == 0) partial[get_group_id(0)] = m;
}

__kernel __attribute__((reqd_work_group_size(256, 1, 1)))
void absmax_scales(__global const float* partial, __global float* scales) {
  __local float scratch[256];
  float m = 0.0f;
  for (int i = get_local_id(0); i < ABSMAX_GROUPS; i += 256) m = fmax(m, partial[i]);
  m = group_max(m, scratch);
  if (get_local_id(0) == 0) {
    scales[0] = m / 127.0f;
    scales[1] = m > 0.0f ? 127.0f / m : 0.0f;
  }
}

// f32_to_s8 with the scale absmax_scales left on the device (no read back to the host).
__kernel void f32_to_s8_dynamic(__global const float* src, __global char* dst,
                                __global const float* scales, int n, int in_half) {
  const int i = get_global_id(0) * 4;
  const float inv_scale = scales[1];
  if (i + 3 < n) {
    const float4 v = s8_source4(src, i, in_half) * inv_scale;
    *(__global char4*)(dst + i) = (char4)(to_s8(v.x), to_s8(v.y), to_s8(v.z), to_s8(v.w));
  } else {
    for (int j = i; j < n; ++j) dst[j] = to_s8(act_load(src, j, in_half) * inv_scale);
  }
}

// mma39: an f16 operand [R, K] (K a multiple of 64) packed for PIPE_PACKED: K tile kt of rows
// 128 rb .. 128 rb + 127 becomes one 16 KB block at (rb x K / 64 + kt) x 16 KB, row r's chunk c
// at c ^ (r & 7) as the ring's slots hold it; rows from R up to a multiple of 128 are zeros. One
// item a 16-byte chunk: reads along rows, writes within 128-byte rows.
__kernel void pipe_pack_f16(__global const uint4* src, __global uint4* dst, int R, int K) {
  const int kc = K / 8;  // chunks a row
  const size_t e = get_global_id(0);
  const int row = (int)(e / kc), cc = (int)(e % kc);
  const int kt = cc >> 3, c = cc & 7, rb = row >> 7, r = row & 127;
  const size_t to = (((size_t)rb * (kc >> 3) + kt) * 128 + r) * 8 + (c ^ (r & 7));
  dst[to] = row < R ? src[(size_t)row * kc + cc] : (uint4)(0);
}
