// The f16 GEMM on Hopper's wgmma (issue 27): y[M, N] = epi(x[M, K] . W[N, K]^T), x and W half
// bits in global memory, f32 accumulation, the pipeline's fp32 epilogue (bias, activation,
// residual). Included after common.cl, gemm_mma_nvidia.cl, gemm_pipelined.cl (load_a_rows,
// swz, epilogue_rows) and the wgmma helpers (wgmma_ptx.cpp's helpers()); compiled once per
// variant with WG_NAME, WG_BN (128 or 256), WG_STAGES, WG_AHEAD (K tiles in flight: WG_STAGES - 2,
// or WG_STAGES - 1 with WG_DRAIN, the variant that waits for each K tile's wgmma before the next
// barrier) and WG_WAIT_COPIES (WG_AHEAD - 1, a literal for cp.async.wait_group) defined.
//
// Why we write this kernel ourselves: cuBLAS reaches its f16 speed on Hopper through wgmma, but
// cuBLAS is CUDA and cannot be called on OpenCL buffers; CLBlast has no tensor-core path at all
// (and its half routines need cl_khr_fp16, which NVIDIA's OpenCL lacks). NVIDIA's OpenCL
// compiler emits `.target sm_90` and rejects wgmma (sm_90a) in inline asm, so each wgmma
// instruction is a PTX comment naming its operands; wgmma_program.cpp patches the compiler's
// PTX into the instructions and builds it as a binary (docs/wgmma.md has the route and the
// evidence that it runs: results/h200/wgmma-2026-11-27).
//
// The kernel is the probe's fastest (probes/wgmma/wgmma_gemm.cl, 563.9 TFLOP/s at 8192^3 on an
// H200) made general: tiles past M and N and K's tail are zero-filled by cp.async (load_rows:
// any M and N, K a multiple of 8 for 16-byte rows), the implicit 'same' convolution loads A as
// the pipeline does (load_a_rows), and the accumulators go through local memory to the
// pipeline's epilogue, which stores only what lies inside y. With more than one work-group row
// (get_num_groups(1) > 1: gemm_batched_mma.cpp's split K), row s takes an equal run of the K
// tiles and writes its partial product into slice s of y ([splits, M, N]); the host then passes no
// epilogue and sums the slices in a fixed order. A work-group whose tile lies wholly
// inside x and W (K a multiple of 64, no convolution) copies without those checks
// (wg_load_full): with the checked copies everywhere the 8192^3 product ran at 485 TFLOP/s,
// with this branch at 561, the probe's figure (results/h200/wgmma-ops-2026-11-27/call3). A and W
// are judged apart, and an implicit convolution's interior tiles copy unchecked too (enf33).
//
// A work-group of 256 items (two warpgroups) owns a 128 x WG_BN tile; warpgroup w computes rows
// 64w .. 64w + 63 with m64nWG_BNk16, A and B from local memory through 128-byte-swizzle
// descriptors. The layout is the pipeline's (chunk c of row r at c ^ (r & 7)), which is the
// hardware's 128-byte swizzle once the tile is based on a 1024-byte boundary. K tiles of 64 go
// through a ring of WG_STAGES slots filled by cp.async, WG_AHEAD tiles ahead. Per K tile: wait for
// its copies, proxy fence (cp.async writes through the generic proxy, wgmma reads through the async
// one), barrier, four wgmma (k16 each), commit, issue a later tile's copies, then wait until at
// most one wgmma group (none with WG_DRAIN) is pending. The slot being refilled was last read by a
// tile whose wgmma every warpgroup waited for before this iteration's barrier.

#define WG_BM 128
// gemm36: WG_TF32 builds the same kernels on fp32 operands through wgmma's dense tf32 form
// (m64nNk8): a K tile is still 128 bytes a row (32 floats instead of 64 halves), so the ring, the
// swizzle and the descriptors are the f16 kernels' and each of the four wgmma steps covers
// 32 bytes of K as before. tf32 reads both tiles K-major only, which x [M, K] and W [N, K] are.
// The tensor cores ignore the low 13 mantissa bits of what they read (the mma.sync pipeline
// rounds to nearest with cvt.rna in registers; here the copies land in local memory untouched).
#ifdef WG_TF32
#define WG_ELEM float
#define WG_ESIZE 4
#define WG_BK 32
#else
#define WG_ELEM ushort
#define WG_ESIZE 2
#define WG_BK 64
#endif
#define WG_KSTEPS 4                   // wgmma steps a K tile: 32 bytes of K each
#define WG_CHUNK_ELEMS (16 / WG_ESIZE)  // elements a 16-byte copy moves
#define WG_THREADS 256
#define WG_ACCS (WG_BN / 2)
#define WG_A_CHUNKS (WG_BM * 8)
#define WG_STAGE_CHUNKS (WG_A_CHUNKS + WG_BN * 8)
#ifdef WG_DRAIN
#define WG_WAIT_LOOP WG_WAIT0
#else
#define WG_WAIT_LOOP WG_WAIT1
#endif
#define WG_RASTER 8  // tile rows a group of work-groups shares, so its B tiles stay in L2

#define WG_STR2(x) #x
#define WG_STR(x) WG_STR2(x)
#define WG_JOIN2(a, b) a##b
#define WG_JOIN(a, b) WG_JOIN2(a, b)
#ifdef WG_TF32
#define WG_MMA WG_JOIN(sbw_mma_tf32_n, WG_BN)
#else
#define WG_MMA WG_JOIN(sbw_mma_n, WG_BN)
#endif
#define WG_FENCE WG_JOIN(sbw_fence_n, WG_BN)
#define WG_WAIT0 WG_JOIN(sbw_wait0_n, WG_BN)
#define WG_WAIT1 WG_JOIN(sbw_wait1_n, WG_BN)
// cp.async.wait_group with its count macro expanded first (gemm_pipelined.cl's CP_ASYNC_WAIT
// stringizes its argument as written).
#define WG_CP_WAIT(n) asm volatile("cp.async.wait_group " WG_STR(n) ";" ::: "memory")

// A shared-memory matrix descriptor: start address, leading and stride byte offsets (all >> 4)
// and the swizzle mode in bits 62-63 (1: 128-byte).
inline ulong wg_desc(uint addr, uint lbo, uint sbo, uint swizzle) {
  return (ulong)((addr & 0x3FFFFu) >> 4) | ((ulong)((lbo & 0x3FFFFu) >> 4) << 16) |
         ((ulong)((sbo & 0x3FFFFu) >> 4) << 32) | ((ulong)swizzle << 62);
}

// A K tile of `rows` rows from `src` (the tile's first element), rows `pitch` halves apart, when
// every row and all WG_BK of its K elements lie inside the matrix: 16-byte copies with no bounds
// checks (load_rows computes and tests a bound per chunk).
inline void wg_load_full(__local uint4* tile, __global const WG_ELEM* src, int rows, int pitch,
                         int tid) {
#pragma unroll
  for (int i = 0; i < rows * 8 / WG_THREADS; ++i) {
    const int e = tid + i * WG_THREADS, row = e >> 3, c = e & 7;
    cp_async16(tile + swz(row, c),
               (__global const uchar*)(src + (size_t)row * pitch + c * WG_CHUNK_ELEMS), 16);
  }
}

#ifndef WG_WS  // the warp-specialized kernel (gemm_wgmma_ws.cl) is built instead
__kernel __attribute__((reqd_work_group_size(WG_THREADS, 1, 1)))
void WG_NAME(__global const WG_ELEM* x, __global const WG_ELEM* w, __global const float* bias,
             int has_bias, int act, __global const float* residual, int has_residual, int M,
             int N, int K, __global float* y, int conv_taps, int conv_len) {
  __local uint4 raw[WG_STAGES * WG_STAGE_CHUNKS + 64];
  // Up to a 1024-byte boundary (the swizzle's atom): 64 spare chunks.
  __local uint4* smem = raw + (((1024u - (smem_addr(raw) & 1023u)) & 1023u) >> 4);
  const int tid = get_local_id(0), wg = tid >> 7;

  const int tiles_m = (M + WG_BM - 1) / WG_BM, tiles_n = (N + WG_BN - 1) / WG_BN;
  const int pid = get_group_id(0), per_group = WG_RASTER * tiles_n;
  const int first_m = pid / per_group * WG_RASTER, rows = min(tiles_m - first_m, WG_RASTER);
  const int m0 = (first_m + (pid % per_group) % rows) * WG_BM;
  const int n0 = (pid % per_group) / rows * WG_BN;
  const int k_tiles_all = (K + WG_BK - 1) / WG_BK, splits = get_num_groups(1);
  const int per_split = (k_tiles_all + splits - 1) / splits, kt0 = get_group_id(1) * per_split;
  const int k_tiles = clamp(k_tiles_all - kt0, 0, per_split);  // none: the slice is zeros
  y += (size_t)get_group_id(1) * M * N;
  // Unchecked copies where a tile lies wholly inside its operand (K a multiple of 64): A's rows
  // of a plain GEMM, W's rows, and (unless WG_CONV_CHECKED) the shifted rows of an implicit
  // convolution's tile whose 128 positions, moved by any tap, stay inside one sequence: the
  // interior tiles, all but two per sequence of Enformer's tower. Their tap's rows are then
  // contiguous rows of x with a pitch of K / taps channels, copied as a plain tile's are.
  const bool k_whole = (K % WG_BK) == 0;
#ifdef WG_CONV_CHECKED
  // As measured before enf33 (STAGEBENCH_CONV_FAST_LOADS off): unchecked only where both fit.
  const bool full_a = m0 + WG_BM <= M && n0 + WG_BN <= N && k_whole && conv_taps == 0;
  const bool full_b = full_a;
  const bool conv_inside = false;
  const int half_taps = 0, cin = K;
#else
  const bool full_a = m0 + WG_BM <= M && k_whole && conv_taps == 0;
  const bool full_b = n0 + WG_BN <= N && k_whole;
  const int half_taps = conv_taps / 2, cin = conv_taps > 0 ? K / conv_taps : K;
  const int l0 = conv_taps > 0 ? m0 % conv_len : 0;
  const bool conv_inside = conv_taps > 0 && k_whole && (cin % WG_BK) == 0 && m0 + WG_BM <= M &&
                           l0 >= half_taps && l0 + WG_BM - 1 + half_taps < conv_len;
#endif

  float acc[WG_ACCS];
#pragma unroll
  for (int i = 0; i < WG_ACCS; ++i) acc[i] = 0.0f;

  // K tile kt into its slot, one commit group (empty past K: wait_group counts on it).
#define WG_LOAD_TILE(kt)                                                                        \
  {                                                                                             \
    if ((kt) < k_tiles) {                                                                       \
      __local uint4* stage = smem + ((kt) % WG_STAGES) * WG_STAGE_CHUNKS;                       \
      const int kk = (kt0 + (kt)) * WG_BK;                                                      \
      if (full_a) {                                                                             \
        wg_load_full(stage, x + (size_t)m0 * K + kk, WG_BM, K, tid);                            \
      } else if (conv_inside) {                                                                 \
        const int tap = kk / cin;                                                               \
        wg_load_full(stage, x + (size_t)(m0 + tap - half_taps) * cin + (kk - tap * cin), WG_BM, \
                     cin, tid);                                                                 \
      } else {                                                                                  \
        load_a_rows(stage, (__global const uchar*)x, WG_ESIZE, m0, WG_BM, M, K, kk, conv_taps,         \
                    conv_len, tid, WG_THREADS);                                                 \
      }                                                                                         \
      if (full_b)                                                                               \
        wg_load_full(stage + WG_A_CHUNKS, w + (size_t)n0 * K + kk, WG_BN, K, tid);              \
      else                                                                                      \
        load_rows(stage + WG_A_CHUNKS, (__global const uchar*)w, WG_ESIZE, n0, WG_BN, N, K, kk, tid,   \
                  WG_THREADS);                                                                  \
    }                                                                                           \
    cp_async_commit();                                                                          \
  }

#pragma unroll
  for (int s = 0; s < WG_AHEAD; ++s) WG_LOAD_TILE(s);
  const uint base = smem_addr(smem);
  for (int kt = 0; kt < k_tiles; ++kt) {
    WG_CP_WAIT(WG_WAIT_COPIES);  // tile kt's group has landed for this item
    sbw_proxy_fence();
    barrier(CLK_LOCAL_MEM_FENCE);  // ... for every item
    const int slot = kt % WG_STAGES;
    const uint a_addr = base + (slot * WG_STAGE_CHUNKS + wg * 64 * 8) * 16;
    const uint b_addr = base + (slot * WG_STAGE_CHUNKS + WG_A_CHUNKS) * 16;
    const ulong da = wg_desc(a_addr, 16, 1024, 1), db = wg_desc(b_addr, 16, 1024, 1);
    WG_FENCE(acc);
#pragma unroll
    for (int ks = 0; ks < WG_KSTEPS; ++ks) WG_MMA(acc, da + 2 * ks, db + 2 * ks);
    sbw_commit();
    WG_LOAD_TILE(kt + WG_AHEAD);
    WG_WAIT_LOOP(acc);
  }
  WG_WAIT0(acc);
  WG_CP_WAIT(0);
  barrier(CLK_LOCAL_MEM_FENCE);  // every warpgroup is done with the ring: it becomes the C tile

  // Accumulators of m64nNk16: warp q of the warpgroup holds rows 16q .. 16q + 15; with
  // g = lane >> 2 and t = lane & 3, acc[4j + 0, 1] are row 16q + g, columns 8j + 2t, + 1 and
  // acc[4j + 2, 3] row 16q + g + 8. The C tile's pitch is the pipeline's (WG_BN + 4 floats).
  {
    __local float* c = (__local float*)smem;
    const int lane = tid & 31, q = (tid >> 5) & 3, g = lane >> 2, t = lane & 3;
    const int row = wg * 64 + q * 16 + g;
#pragma unroll
    for (int j = 0; j < WG_BN / 8; ++j) {
      const int col = j * 8 + 2 * t;
      *(__local float2*)(c + row * (WG_BN + 4) + col) = (float2)(acc[4 * j], acc[4 * j + 1]);
      *(__local float2*)(c + (row + 8) * (WG_BN + 4) + col) =
          (float2)(acc[4 * j + 2], acc[4 * j + 3]);
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  epilogue_rows((__local const float*)smem, WG_BM, WG_BN, WG_THREADS, m0, n0, M, N, bias,
                has_bias, act, residual, has_residual, y, bias, 0.0f, 0, tid);
}
#endif  // WG_WS
