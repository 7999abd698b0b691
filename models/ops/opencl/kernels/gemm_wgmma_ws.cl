// The f16 wgmma GEMM, warp-specialized (issue 27, gemm35): the same product and arguments as
// gemm_wgmma.cl's kernel (included after it, with WG_WS defined so that its kernel is left out),
// but no work-group barrier in the K loop. Three warpgroups (384 items): warpgroup 0 is the
// producer, which only issues the cp.async ring; warpgroups 1 and 2 are the consumers, each
// computing 64 rows of the 128 x WG_BN tile with m64nWG_BNk16.
//
// Why: gemm_wgmma.cl's kernels meet at a barrier every K tile and issue their own copies between
// wgmma groups, and their best (128 x 256, 3 tiles ahead) stayed at 564 TFLOP/s at 8192^3 against
// cuBLAS's 720 (docs/wgmma.md). Here each ring slot has two mbarriers:
// - full[s]: each producer item's `cp.async.mbarrier.arrive.noinc` arrives once its copies into
//   the slot have landed (count 128, the producer's items), so a consumer waits on exactly the
//   data it reads, with no cp.async groups and no barrier;
// - empty[s]: lane 0 of each consumer warp arrives once its warpgroup's wgmma reading the slot
//   has completed (wgmma.wait_group 1 after the next tile's wgmma was issued; count 8), and the
//   producer waits on it before refilling the slot.
// Phases are tracked by parity: round r of slot s waits for parity r & 1 of full[s] and for
// parity (r & 1) ^ 1 of empty[s] (which a fresh barrier reports complete: the first round
// needs no release).
//
// Registers: 384 items may hold 170 registers each, and a consumer's 128 accumulators (WG_BN 256)
// need more. With WG_SETMAXNREG the producer gives registers back (setmaxnreg.dec to 40) and the
// consumers take them (setmaxnreg.inc to 232: 128 x 40 + 256 x 232 <= 65536), the entry capped at
// 168 (the variant's maxnreg, a register budget fixed per kernel as setmaxnreg needs).
//
// WG_PERSIST: a persistent grid (one work-group an SM, the host's choice) walking the tiles in
// the same grouped order as the other kernels, tile pid, pid + groups, ...; the producer runs on
// into the next tile's K tiles while the consumers store the last one's accumulators straight
// from registers (no C tile in local memory, whose 133 KB would leave no ring). That store has no
// epilogue: the host takes this variant only for plain products (no bias, activation, residual,
// f32 y, no convolution, no split K). Without WG_PERSIST, the accumulators go through local
// memory to epilogue_rows as in gemm_wgmma.cl.

#ifdef WG_WS
#define WS_THREADS 384
#define WS_CONSUMERS 256
#define WS_PRODUCER_REGS 40
#define WS_CONSUMER_REGS 232

inline uint ws_bar_addr(__local ulong* b) {
  return (uint)(size_t)b;
}

inline void ws_bar_init(__local ulong* b, uint count) {
  asm volatile("mbarrier.init.shared.b64 [%0], %1;" : : "r"(ws_bar_addr(b)), "r"(count) : "memory");
}

// Arrives on `b` once every cp.async this item issued before it has landed; noinc: the arrival
// counts against the barrier's expected count (the 128 producer items).
inline void ws_bar_arrive_copies(__local ulong* b) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared.b64 [%0];"
               :
               : "r"(ws_bar_addr(b))
               : "memory");
}

inline void ws_bar_arrive(__local ulong* b) {
  asm volatile("{\n\t.reg .b64 sbw_state;\n\tmbarrier.arrive.shared.b64 sbw_state, [%0];\n\t}"
               :
               : "r"(ws_bar_addr(b))
               : "memory");
}

// Until the phase of parity `parity` of `b` has completed (acquire: what the arrivals ordered
// before them is visible after).
inline void ws_bar_wait(__local ulong* b, uint parity) {
  uint done = 0;
  do {
    asm volatile(
        "{\n\t.reg .pred sbw_p;\n\tmbarrier.try_wait.parity.shared.b64 sbw_p, [%1], %2;\n\t"
        "selp.u32 %0, 1, 0, sbw_p;\n\t}"
        : "=r"(done)
        : "r"(ws_bar_addr(b)), "r"(parity)
        : "memory");
  } while (!done);
}

// The consumers' own barrier (id 1, 256 items): the producer never reaches it.
inline void ws_consumer_barrier(void) {
  asm volatile("bar.sync 1, 256;" ::: "memory");
}

// wg_load_full with the producer's 128 items. An item's rows are 16 apart, so its chunk's
// swizzle (c ^ (row & 7)) is the same in every copy: one source and one destination pointer,
// stepped, keep the producer within its few registers.
inline void ws_load_full(__local uint4* tile, __global const WG_ELEM* src, int rows, int pitch,
                         int tid) {
  const int row = tid >> 3, c = tid & 7;
  __local uint4* dst = tile + row * 8 + (c ^ (row & 7));
  __global const uchar* from =
      (__global const uchar*)(src + (size_t)row * pitch + c * WG_CHUNK_ELEMS);
  const size_t step = (size_t)pitch * 16 * WG_ESIZE;  // 16 rows, in bytes
#pragma unroll
  for (int i = 0; i < rows / 16; ++i) cp_async16(dst + i * 128, from + i * step, 16);
}

// Tile `t` of the grouped order: WG_RASTER tile rows share their B tiles in L2.
inline void ws_tile(int t, int tiles_m, int tiles_n, int* m0, int* n0) {
  const int per_group = WG_RASTER * tiles_n, first_m = t / per_group * WG_RASTER;
  const int rows = min(tiles_m - first_m, WG_RASTER);
  *m0 = (first_m + (t % per_group) % rows) * WG_BM;
  *n0 = (t % per_group) / rows * WG_BN;
}

__kernel __attribute__((reqd_work_group_size(WS_THREADS, 1, 1))) void WG_NAME(
    __global const WG_ELEM* x, __global const WG_ELEM* w, __global const float* bias, int has_bias,
    int act, __global const float* residual, int has_residual, int M, int N, int K,
    __global float* y, int conv_taps, int conv_len) {
  __local uint4 raw[WG_STAGES * WG_STAGE_CHUNKS + 64];
  __local ulong bars[2 * WG_STAGES];  // full[s] at s, empty[s] at WG_STAGES + s
  __local uint4* smem = raw + (((1024u - (smem_addr(raw) & 1023u)) & 1023u) >> 4);
  const int tid = get_local_id(0), wg = tid >> 7;

  const int tiles_m = (M + WG_BM - 1) / WG_BM, tiles_n = (N + WG_BN - 1) / WG_BN;
  const int k_tiles_all = (K + WG_BK - 1) / WG_BK, splits = get_num_groups(1);
  const int per_split = (k_tiles_all + splits - 1) / splits, kt0 = get_group_id(1) * per_split;
  const int k_tiles = clamp(k_tiles_all - kt0, 0, per_split);  // none: the slice is zeros
  y += (size_t)get_group_id(1) * M * N;
  const bool k_whole = (K % WG_BK) == 0;
  const int half_taps = conv_taps / 2, cin = conv_taps > 0 ? K / conv_taps : K;
#ifdef WG_PERSIST
  const int tile_first = get_group_id(0), tile_step = get_num_groups(0);
  const int tile_end = tiles_m * tiles_n;
#else
  const int tile_first = get_group_id(0), tile_step = 1, tile_end = tile_first + 1;
#endif

  if (tid < WG_STAGES) {
    ws_bar_init(bars + tid, 128);
    ws_bar_init(bars + WG_STAGES + tid, 8);
  }
  barrier(CLK_LOCAL_MEM_FENCE);  // the only work-group barrier: the mbarriers are initialized

  if (wg == 0) {  // the producer
#ifdef WG_SETMAXNREG
    asm volatile("// SBW_SETMAXNREG dec " WG_STR(WS_PRODUCER_REGS)::: "memory");
#endif
    int it = 0;  // K tiles issued over all of this work-group's tiles: the ring position
    for (int t = tile_first; t < tile_end; t += tile_step) {
      int m0, n0;
      ws_tile(t, tiles_m, tiles_n, &m0, &n0);
      // Unchecked copies where a tile lies wholly inside its operand (gemm_wgmma.cl says why).
      const bool full_a = m0 + WG_BM <= M && k_whole && conv_taps == 0;
      const bool full_b = n0 + WG_BN <= N && k_whole;
      const int l0 = conv_taps > 0 ? m0 % conv_len : 0;
      const bool conv_inside = conv_taps > 0 && k_whole && (cin % WG_BK) == 0 && m0 + WG_BM <= M &&
                               l0 >= half_taps && l0 + WG_BM - 1 + half_taps < conv_len;
      for (int kt = 0; kt < k_tiles; ++kt, ++it) {
        const int slot = it % WG_STAGES;
        ws_bar_wait(bars + WG_STAGES + slot, ((it / WG_STAGES) & 1) ^ 1);
        __local uint4* stage = smem + slot * WG_STAGE_CHUNKS;
        const int kk = (kt0 + kt) * WG_BK;
        if (full_a) {
          ws_load_full(stage, x + (size_t)m0 * K + kk, WG_BM, K, tid);
        } else if (conv_inside) {
          const int tap = kk / cin;
          ws_load_full(stage, x + (size_t)(m0 + tap - half_taps) * cin + (kk - tap * cin), WG_BM,
                       cin, tid);
        } else {  // the checked copies 16 rows (a copy an item) at a time, not unrolled:
                  // unrolled, their addresses spilled the producer's registers
#pragma unroll 1
          for (int p = 0; p < WG_BM / 16; ++p)
            load_a_rows(stage + p * 128, (__global const uchar*)x, WG_ESIZE, m0 + p * 16, 16, M, K, kk,
                        conv_taps, conv_len, tid, 128);
        }
        if (full_b) {
          ws_load_full(stage + WG_A_CHUNKS, w + (size_t)n0 * K + kk, WG_BN, K, tid);
        } else {
#pragma unroll 1
          for (int p = 0; p < WG_BN / 16; ++p)
            load_rows(stage + WG_A_CHUNKS + p * 128, (__global const uchar*)w, WG_ESIZE, n0 + p * 16, 16,
                      N, K, kk, tid, 128);
        }
        ws_bar_arrive_copies(bars + slot);
      }
    }
    return;  // the consumers' full waits cover every copy issued here
  }

  // The consumers.
#ifdef WG_SETMAXNREG
  asm volatile("// SBW_SETMAXNREG inc " WG_STR(WS_CONSUMER_REGS)::: "memory");
#endif
  const int ctid = tid - 128, cw = wg - 1, lane = tid & 31;
  const uint base = smem_addr(smem);
  float acc[WG_ACCS];
  int it = 0;
  for (int t = tile_first; t < tile_end; t += tile_step) {
    int m0, n0;
    ws_tile(t, tiles_m, tiles_n, &m0, &n0);
#pragma unroll
    for (int i = 0; i < WG_ACCS; ++i) acc[i] = 0.0f;
    for (int kt = 0; kt < k_tiles; ++kt, ++it) {
      const int slot = it % WG_STAGES;
      ws_bar_wait(bars + slot, (it / WG_STAGES) & 1);
      sbw_proxy_fence();  // the copies were generic-proxy writes; wgmma reads through the async one
      const uint a_addr = base + (slot * WG_STAGE_CHUNKS + cw * 64 * 8) * 16;
      const uint b_addr = base + (slot * WG_STAGE_CHUNKS + WG_A_CHUNKS) * 16;
      const ulong da = wg_desc(a_addr, 16, 1024, 1), db = wg_desc(b_addr, 16, 1024, 1);
      WG_FENCE(acc);
#pragma unroll
      for (int ks = 0; ks < WG_KSTEPS; ++ks) WG_MMA(acc, da + 2 * ks, db + 2 * ks);
      sbw_commit();
      WG_WAIT1(acc);  // the previous K tile's wgmma is done: its slot goes back to the producer
      if (kt > 0 && lane == 0) ws_bar_arrive(bars + WG_STAGES + (it - 1) % WG_STAGES);
    }
    WG_WAIT0(acc);
    if (k_tiles > 0 && lane == 0) ws_bar_arrive(bars + WG_STAGES + (it - 1) % WG_STAGES);

    // Accumulators of m64nNk16: warp q of the warpgroup holds rows 16q .. 16q + 15; with
    // g = lane >> 2 and c4 = lane & 3, acc[4j + 0, 1] are row 16q + g, columns 8j + 2c4, + 1 and
    // acc[4j + 2, 3] row 16q + g + 8.
    const int q = (ctid >> 5) & 3, g = lane >> 2, c4 = lane & 3;
    const int row = cw * 64 + q * 16 + g;
#ifdef WG_PERSIST
    // Straight to y: a warp's float2 stores cover 8 rows x 32 bytes, whole sectors.
    const bool pairs = (N & 1) == 0;
#pragma unroll
    for (int j = 0; j < WG_BN / 8; ++j) {
      const int col = n0 + j * 8 + 2 * c4;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int r = m0 + row + 8 * h;
        if (r >= M || col >= N) continue;
        __global float* p = y + (size_t)r * N + col;
        if (pairs && col + 1 < N) {
          *(__global float2*)p = (float2)(acc[4 * j + 2 * h], acc[4 * j + 2 * h + 1]);
        } else {
          p[0] = acc[4 * j + 2 * h];
          if (col + 1 < N) p[1] = acc[4 * j + 2 * h + 1];
        }
      }
    }
#else
    ws_consumer_barrier();  // both warpgroups are done with the ring: it becomes the C tile
    __local float* c = (__local float*)smem;
#pragma unroll
    for (int j = 0; j < WG_BN / 8; ++j) {
      const int col = j * 8 + 2 * c4;
      *(__local float2*)(c + row * (WG_BN + 4) + col) = (float2)(acc[4 * j], acc[4 * j + 1]);
      *(__local float2*)(c + (row + 8) * (WG_BN + 4) + col) =
          (float2)(acc[4 * j + 2], acc[4 * j + 3]);
    }
    ws_consumer_barrier();
    epilogue_rows((__local const float*)smem, WG_BM, WG_BN, WS_CONSUMERS, m0, n0, M, N, bias,
                  has_bias, act, residual, has_residual, y, bias, 0.0f, 0, ctid);
#endif
  }
}
#endif  // WG_WS
