// One variant of the pipelined GEMM (gemm_pipelined.cl; conv_taps > 0: an implicit 'same'
// convolution of conv_len-long sequences, see load_a_rows), included with PIPE_NAME, PIPE_BN
// (128 or 256), PIPE_THREADS (2 x PIPE_BN / 64 warps), PIPE_ELEM (ushort: half bits, float or
// char), PIPE_MMA (mma_f16, mma_tf32 or mma_s8), PIPE_FRAG(r) (what a fragment register becomes:
// itself, or rounded to tf32), PIPE_ACC (float, or int for s8), PIPE_DOUBLE_BUFFER (1: fragments
// double-buffered, 0: one set), PIPE_EXTRA_PARAMS and PIPE_SCALE_ARGS (s8's column scales and x
// scale) defined. Optional (defaults in brackets, the GEMMs' tiles): PIPE_TILE_M rows a tile
// [PIPE_BM], PIPE_MI 16-row blocks a warp [4], PIPE_WN columns a warp [64], PIPE_A_SETUP
// statements before the K loop [none] and PIPE_LOAD_A(stage, k0) A's K tile [load_a_rows]:
// the implicit conv3d (conv3d_igemm.cl) gathers A there and has narrow tiles (N of 16 to 64).
// mma37's (the GEMMs' f16 forms, pipe_variants.h): PIPE_PAIR [0] two K tiles a barrier,
// PIPE_OWN_RING [the program's] the variant's ring; 16 warps of 32 x 64 are PIPE_THREADS 512 with
// PIPE_MI 2. PIPE_PROBE [0]: the probe's timing-only forms (below).
#ifndef PIPE_TILE_M
#define PIPE_TILE_M PIPE_BM
#endif
#ifndef PIPE_MI
#define PIPE_MI 4
#endif
#ifndef PIPE_WN
#define PIPE_WN 64
#endif
#ifndef PIPE_A_SETUP
#define PIPE_A_SETUP
#endif
#ifndef PIPE_LOAD_A
#define PIPE_LOAD_A(stage, k0)                                                                   \
  load_a_rows(stage, (__global const uchar*)x, sizeof(PIPE_ELEM), m0, PIPE_TILE_M, M, K, k0,    \
              conv_taps, conv_len, tid, PIPE_THREADS)
#endif
// gemm36 (issue 27, the mma.sync f16 target): PIPE_RING 4 (STAGEBENCH_PIPE_RING=4, the nvidia_mma
// program's option) deepens the GEMMs' ring from gemm_pipelined.cl's PIPE_STAGES (3) to 4 K tiles,
// one more in flight (147 -> 197 KB of local memory for the 128 x 256 tile); wgmma went from 492
// to 564 TFLOP/s at 8192^3 with one more (docs/wgmma.md). The wait counts are literals (the asm
// text stringizes them).
// mma37: PIPE_PAIR 1 (a variant's own) computes two K tiles between barriers on a ring of its
// own 4 tiles, whatever the program's PIPE_RING: half the barriers of one a tile, with the same
// two tiles of cover as the 3-tile ring (see its loop below).
#ifndef PIPE_PAIR
#define PIPE_PAIR 0
#endif
// mma39: PIPE_BULK 1 (the GEMMs' f16 forms, plain products with K a multiple of the K tile: the
// host's choice, gemm_mma.cpp) fills the ring with the copy engine: one cp.async.bulk of 128
// bytes per tile row (1 or 2 an item a K tile instead of 12 cp.async.cg of 16), completing on the
// slot's mbarrier, which the readers wait on (no cp.async group, no wait_group). A bulk copy
// cannot swizzle, so rows are padded to 144 bytes (PIPE_PITCH 9 chunks): the eight rows one
// ldmatrix phase reads still land in eight bank groups. Rows past M or N re-read the last row
// (the epilogue stores none of them). Its ring is PIPE_OWN_RING's, else 4 tiles (4 x 54 KB).
// PIPE_BULK 2: the same without the work-group barrier in the K loop: each slot has a second
// mbarrier, `empty` (count: the warps), on which lane 0 of each warp arrives once the warp's mma
// have taken the slot's last fragments; a warp waits on it before issuing its copies into that
// slot, one k step later than BULK 1's barrier, so warps drift up to a step apart instead of
// meeting every tile.
// PIPE_PACKED 1 (with PIPE_BULK): x and w arrive packed by pipe_pack_f16 (gemm_pipelined.cl:
// 128-row blocks of each K tile contiguous and already swizzled, rows padded with zeros to a
// multiple of 128), so a slot is three 16 KB bulk copies that one item issues (A's block, B's
// two) instead of 384 of 128 bytes, which kept the copy engine at about 13 cycles a copy and ran
// the 8192^3 product at half the speed (mma39 call 1); the layout is the swizzled one of the
// other forms. The op layer packs on every call (gemm_mma.cpp's launch_pipe).
#ifndef PIPE_BULK
#define PIPE_BULK 0
#endif
#ifndef PIPE_PACKED
#define PIPE_PACKED 0
#endif
// mma40: PIPE_PERSIST 1 (with PIPE_BULK 2 and PIPE_PACKED) runs that loop persistently, one
// work-group an SM walking the tiles, the ring continuing from one tile into the next (below);
// PIPE_PERSIST 2 takes the tiles from a counter (a parameter tile_counter in
// PIPE_EXTRA_PARAMS, zero before the first launch; the kernel leaves it zero).
#ifndef PIPE_PERSIST
#define PIPE_PERSIST 0
#endif
#ifndef PIPE_BULK_AT  // PIPE_BULK 2: the k step after whose mma tile kt + RING - 1 goes out
#define PIPE_BULK_AT 1
#endif
#if PIPE_BULK
#if !PIPE_PACKED
#define PIPE_PITCH 9
#endif
#ifdef PIPE_OWN_RING
#define PIPE_RING_N PIPE_OWN_RING
#else
#define PIPE_RING_N 4
#endif
#elif PIPE_PAIR || PIPE_SPREAD
#define PIPE_RING_N 4
#elif defined(PIPE_OWN_RING)  // a variant's own ring (mma37), whatever the program's
#define PIPE_RING_N PIPE_OWN_RING
#elif defined(PIPE_RING)  // the program's option; PIPE_RING_N is this variant's (undefined at the end)
#define PIPE_RING_N PIPE_RING
#else
#define PIPE_RING_N PIPE_STAGES
#endif
// mma37: PIPE_FAST 1 (the GEMMs' own A loads only) sets each item's copies up once before the K
// loop: every copy of a K tile that lies wholly inside K is then an address add and the copy
// (load_rows recomputed the rows, the swizzle and the bounds of every copy, and the implicit
// convolution's division with them: probed, the K loop ran 1.64x as long with its copies as
// without). PIPE_SPREAD 1 (with PIPE_FAST, a ring of 4) issues tile kt + 3's copies in three
// parts between tile kt's first three k steps, into the slot tile kt - 1 left, instead of all at
// the barrier, so the warps that feed the tensor cores never stop for a burst of copies.
#ifndef PIPE_FAST
#define PIPE_FAST 0
#endif
#ifndef PIPE_SPREAD
#define PIPE_SPREAD 0
#endif
// mma38 (the GEMMs' f16 forms, with PIPE_SPREAD): PIPE_CLEAN 1 runs the K loop's steady part
// (every tile but the ring's last three) apart when the work-group's tile lies wholly inside M, N
// and K of a plain product: its copies then have no bounds, no branch and no fallback, two
// pointers stepping 128 bytes a tile (the spread loop kept the bounds' selects and a branch
// between every k step, and the implicit convolution's path in the loop). PIPE_CLEAN 2: the same,
// with the copies woven one after each row of mma (4 a k step) instead of one burst a k step, so
// that a warp whose copy waits for the load/store queue stalls before 8 mma rather than 32.
// PIPE_CLEAN 3: as 2, and the next k step's ldmatrix woven too (one A block and one pair of B
// blocks after each row of mma) instead of 8 before the step's 32 mma.
// PIPE_RASTER R [0: launch order]: the work-groups walk the tiles in bands of R tile rows (the
// wgmma kernels' WG_RASTER), so that a wave's B tiles are read from DRAM once per band.
#ifndef PIPE_CLEAN
#define PIPE_CLEAN 0
#endif
#ifndef PIPE_RASTER
#define PIPE_RASTER 0
#endif
// mma37's probe (probes/wgmma, PIPE_PROBE, never in the op layer): time with a part of the K loop
// left out, to place the loop's time by differences. 1: no copies in the loop (the prologue's ring
// is re-read), 2: nor barriers, 3: nor ldmatrix (the first fragments, reused). The products are
// then wrong; only the time means anything.
#ifndef PIPE_PROBE
#define PIPE_PROBE 0
#endif
#if PIPE_RING_N == 4
#define PIPE_WAIT_RING_1() CP_ASYNC_WAIT(3)
#define PIPE_WAIT_RING_2() CP_ASYNC_WAIT(2)
#else
#define PIPE_WAIT_RING_1() CP_ASYNC_WAIT(2)
#define PIPE_WAIT_RING_2() CP_ASYNC_WAIT(1)
#endif
#ifndef PIPE_PITCH
#define PIPE_PITCH 8  // 16-byte chunks a tile row: swizzled (8), or padded (PIPE_BULK's 9)
#endif
#if PIPE_PITCH == 8
#define PIPE_CHUNK(row, c) swz(row, c)
#else
#define PIPE_CHUNK(row, c) ((row) * PIPE_PITCH + (c))
#endif
#define PIPE_A_CH (PIPE_TILE_M * PIPE_PITCH)  // 16-byte chunks of A per stage
#define PIPE_NI (PIPE_WN / 8)                 // n8 blocks a warp
#define PIPE_NJ (PIPE_WN / 16)                // ldmatrix.x4 of B a k step
#define PIPE_STAGE_CHUNKS (PIPE_A_CH + PIPE_BN * PIPE_PITCH)
#define PIPE_BK (128 / (int)sizeof(PIPE_ELEM))  // K elements per tile: 128 bytes a row

#define PIPE_JOIN2(a, b) a##_##b
#define PIPE_JOIN(a, b) PIPE_JOIN2(a, b)
#define PIPE_LOAD_FRAGS PIPE_JOIN(load_frags, PIPE_NAME)
#define PIPE_MMA_FRAGS PIPE_JOIN(mma_frags, PIPE_NAME)

// The fragments of k step `ks` (2 chunks: k16 f16, k8 tf32, k32 s8) of the tile at `as`; the
// lane's ldmatrix rows and chunks as the kernel computes them. `convert`: apply PIPE_FRAG here
// (else the caller does, just before the mma).
inline void PIPE_LOAD_FRAGS(__local const uint4* as, int ks, int a_row, int a_chunk, int b_row,
                            int b_chunk, uint a[PIPE_MI][4], uint b[PIPE_NJ][4], bool convert) {
#pragma unroll
  for (int mi = 0; mi < PIPE_MI; ++mi) {
    ldmatrix_x4(as + PIPE_CHUNK(a_row + mi * 16, ks * 2 + a_chunk), a[mi]);
#pragma unroll
    for (int e = 0; e < 4; ++e)
      if (convert) a[mi][e] = PIPE_FRAG(a[mi][e]);
  }
#pragma unroll
  for (int nj = 0; nj < PIPE_NJ; ++nj) {
    ldmatrix_x4(as + PIPE_A_CH + PIPE_CHUNK(b_row + nj * 16, ks * 2 + b_chunk), b[nj]);
#pragma unroll
    for (int e = 0; e < 4; ++e)
      if (convert) b[nj][e] = PIPE_FRAG(b[nj][e]);
  }
}

// One k step's PIPE_MI x PIPE_NI mma on fragments a and b.
inline void PIPE_MMA_FRAGS(PIPE_ACC acc[PIPE_MI][PIPE_NI][4], uint a[PIPE_MI][4],
                           uint b[PIPE_NJ][4]) {
#pragma unroll
  for (int mi = 0; mi < PIPE_MI; ++mi)
#pragma unroll
    for (int ni = 0; ni < PIPE_NI; ++ni)
      PIPE_MMA(acc[mi][ni], PIPE_FRAG(a[mi][0]), PIPE_FRAG(a[mi][1]), PIPE_FRAG(a[mi][2]),
               PIPE_FRAG(a[mi][3]), PIPE_FRAG(b[ni >> 1][(ni & 1) * 2]),
               PIPE_FRAG(b[ni >> 1][(ni & 1) * 2 + 1]));
}

__kernel __attribute__((reqd_work_group_size(PIPE_THREADS, 1, 1)))
void PIPE_NAME(__global const PIPE_ELEM* x, __global const PIPE_ELEM* w,
                        __global const float* bias, int has_bias, int act,
                        __global const float* residual, int has_residual, int M, int N, int K,
                        __global float* y, int conv_taps, int conv_len PIPE_EXTRA_PARAMS) {
  __local uint4 smem[PIPE_RING_N * PIPE_STAGE_CHUNKS];
  const int tid = get_local_id(0);
  const int lane = tid & 31, warp = tid >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int warps_n = PIPE_BN / PIPE_WN;
  const int wm = (warp / warps_n) * (PIPE_MI * 16), wn = (warp % warps_n) * PIPE_WN;  // its block
#if PIPE_RASTER
  // Grouped order: group ids in launch order (x fastest) fill bands of PIPE_RASTER tile rows
  // column by column, as gemm_wgmma.cl's tiles do.
  const int tiles_n = get_num_groups(0), tiles_m = get_num_groups(1);
  const int pid = get_group_id(1) * tiles_n + get_group_id(0), per_band = PIPE_RASTER * tiles_n;
  const int band_m = pid / per_band * PIPE_RASTER, band_rows = min(tiles_m - band_m, PIPE_RASTER);
  const int m0 = (band_m + (pid % per_band) % band_rows) * PIPE_TILE_M;
  const int n0 = (pid % per_band) / band_rows * PIPE_BN;
#else
  const int m0 = get_group_id(1) * PIPE_TILE_M, n0 = get_group_id(0) * PIPE_BN;
#endif
  const int k_tiles = (K + PIPE_BK - 1) / PIPE_BK;

  PIPE_ACC acc[PIPE_MI][PIPE_NI][4];
#pragma unroll
  for (int mi = 0; mi < PIPE_MI; ++mi)
#pragma unroll
    for (int ni = 0; ni < PIPE_NI; ++ni)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[mi][ni][e] = 0;

  // K tile `kt` into its ring slot, one commit group (empty past K, which keeps the count that
  // wait_group relies on).
#define PIPE_LOAD_TILE(kt)                                                                       \
  {                                                                                             \
    if ((kt) < k_tiles) {                                                                       \
      __local uint4* stage = smem + ((kt) % PIPE_RING_N) * PIPE_STAGE_CHUNKS;                     \
      PIPE_LOAD_A(stage, (kt) * PIPE_BK);                                                       \
      load_rows(stage + PIPE_A_CH, (__global const uchar*)w, sizeof(PIPE_ELEM), n0, PIPE_BN, \
                N, K, (kt) * PIPE_BK, tid, PIPE_THREADS);                                       \
    }                                                                                           \
    cp_async_commit();                                                                          \
  }

#if PIPE_FAST
  // The item's copies: rows cp_row + i x PIPE_THREADS / 8 of each tile (a multiple of 8 apart,
  // so one swizzle for all: the destinations are cp_dst + constants), chunk cp_c of each row.
  const int cp_row = tid >> 3, cp_c = tid & 7, cp_dst = swz(cp_row, cp_c);
  const size_t cp_row_bytes = (size_t)K * sizeof(PIPE_ELEM);
  __global const uchar* a_src =
      (__global const uchar*)x + (size_t)(m0 + cp_row) * cp_row_bytes + cp_c * 16;
  __global const uchar* b_src =
      (__global const uchar*)w + (size_t)(n0 + cp_row) * cp_row_bytes + cp_c * 16;
#define PIPE_RS (PIPE_THREADS / 8)                          // rows between an item's copies
#define PIPE_A_PER (PIPE_TILE_M * 8 / PIPE_THREADS)         // its copies of A a tile
#define PIPE_B_PER (PIPE_BN * 8 / PIPE_THREADS)             // and of B
  // Whether tile kt takes the set-up copies: a plain product's tile wholly inside K.
#define PIPE_FAST_TILE(kt) (conv_taps == 0 && ((kt) + 1) * PIPE_BK <= K)
#define PIPE_COPY_A(stage, kt)                                                                 \
  pipe_copy_rows((stage) + cp_dst, a_src, (__global const uchar*)x, cp_row_bytes, (kt) * 128,    \
                 M - m0 - cp_row, 0, PIPE_A_PER, PIPE_RS)
#define PIPE_COPY_B(stage, kt, from, to)                                                       \
  pipe_copy_rows((stage) + PIPE_A_CH + cp_dst, b_src, (__global const uchar*)w, cp_row_bytes,   \
                 (kt) * 128, N - n0 - cp_row, from, to, PIPE_RS)
#undef PIPE_LOAD_TILE
#define PIPE_LOAD_TILE(kt)                                                                     \
  {                                                                                           \
    if ((kt) < k_tiles) {                                                                     \
      __local uint4* stage = smem + ((kt) % PIPE_RING_N) * PIPE_STAGE_CHUNKS;                   \
      if (PIPE_FAST_TILE(kt)) {                                                               \
        PIPE_COPY_A(stage, kt);                                                               \
        PIPE_COPY_B(stage, kt, 0, PIPE_B_PER);                                                \
      } else {                                                                                \
        PIPE_LOAD_A(stage, (kt) * PIPE_BK);                                                   \
        load_rows(stage + PIPE_A_CH, (__global const uchar*)w, sizeof(PIPE_ELEM), n0, PIPE_BN, \
                  N, K, (kt) * PIPE_BK, tid, PIPE_THREADS);                                   \
      }                                                                                       \
    }                                                                                         \
    cp_async_commit();                                                                        \
  }
#endif

  // Lane -> the row and chunk it addresses for ldmatrix.x4: A's four 8 x 8 matrices are rows
  // 0-7 / 8-15 at k 0-7, then at k 8-15 (a0..a3 of m16n8k16); B's are columns n 0-7 at k 0-7
  // and 8-15 (b0, b1 of one n8 block), then n 8-15 (the next block's).
  const int a_row = wm + (lane & 15), a_chunk = lane >> 4;
  const int b_row = wn + ((lane >> 4) << 3) + (lane & 7), b_chunk = (lane >> 3) & 1;
  PIPE_A_SETUP

#if PIPE_PERSIST
#if PIPE_BULK != 2 || !PIPE_PACKED || PIPE_TILE_M != 128 || PIPE_BN % 128 != 0
#error "PIPE_PERSIST is the packed bulk2 loop, walked over the tiles"
#endif
  // mma40: one work-group an SM (the host launches as many as the device has compute units, a
  // 1D grid) walks tiles (in bands of PIPE_RASTER tile rows) as one flat sequence of K tiles:
  // step f = j x k_tiles + kt (the group's j-th tile, its K tile kt) is ring slot f % RING's
  // phase f / RING, so the copies of the next tile's first RING - 1 K tiles go out during the
  // current tile's last ones, as any other step's, and the ring never drains. PIPE_PERSIST 1:
  // the group's tiles are gid, gid + groups, ... (static); 2: item 0 takes each next tile from
  // a counter (tile_counter, an extra parameter) as it issues the tile's first copies, so that
  // the tiles in flight stay the launch order's neighbours however the groups drift; the
  // group's tile ids pass through p_tile (a slot a ring slot: a tile's id is written at most
  // RING - 1 steps ahead, after every warp has read the id it replaces). The grab after the
  // last tile gives -1, and its slot's mbarrier is completed without copies, so the readers see
  // it; the last grab of all (tiles + groups of them) sets the counter back to 0 for the next
  // launch. The C tile cannot go through local memory (the ring holds the next tile's data):
  // each item stores its accumulators straight from registers, two floats a row, the eight rows
  // of a fragment whole 32-byte sectors. Plain products only (no bias, activation, residual,
  // f32 y, no taps). The probe's forms only (probes/wgmma): at 8192^3 on an H200 both lost to
  // the non-persistent loop (results/h200/mma40-2026-11-30/README.md), so the op layer has none.
  __local ulong pipe_full[PIPE_RING_N], pipe_empty[PIPE_RING_N];
  const int p_tiles_n = (N + PIPE_BN - 1) / PIPE_BN, p_tiles_m = (M + PIPE_TILE_M - 1) / PIPE_TILE_M;
  const int p_tiles = p_tiles_m * p_tiles_n;
  const int groups = get_num_groups(0), gid = get_group_id(0);
#if PIPE_PERSIST == 2
  __local int p_tile[PIPE_RING_N];
  bool p_done = false;  // item 0's: the counter ran out
#define PIPE_P_MORE(f) (!p_done)
#else
  const int my_tiles = gid < p_tiles ? (p_tiles - 1 - gid) / groups + 1 : 0;
  const int total = my_tiles * k_tiles;  // the group's steps
#define PIPE_P_MORE(f) ((f) < total)
#endif
#define PIPE_P_BAND (PIPE_RASTER > 0 ? PIPE_RASTER : 1)
  // Tile i's row and column of tiles: bands of PIPE_P_BAND tile rows, walked column by column.
#define PIPE_P_TILE(i, tm, tn)                                                                 \
  {                                                                                            \
    const int per_band = PIPE_P_BAND * p_tiles_n, band_m = (i) / per_band * PIPE_P_BAND;        \
    const int band_rows = min(p_tiles_m - band_m, PIPE_P_BAND);                                 \
    tm = band_m + ((i) % per_band) % band_rows;                                                \
    tn = ((i) % per_band) / band_rows;                                                         \
  }
  // Step f's three 16 KB blocks into its slot (item 0 only): A's block (tm, kt), B's (tn's).
#if PIPE_PERSIST == 2
#define PIPE_P_ID(f)                                                                           \
  int id;                                                                                      \
  if ((f) % k_tiles == 0) {                                                                    \
    id = atomic_inc(tile_counter);                                                             \
    if (id >= p_tiles) {                                                                       \
      if (id == p_tiles + groups - 1) atomic_xchg(tile_counter, 0);                            \
      id = -1;                                                                                 \
      p_done = true;                                                                           \
    }                                                                                          \
    p_tile[(f) / k_tiles % PIPE_RING_N] = id;                                                  \
    if (id < 0) pipe_bar_arrive(pipe_full + (f) % PIPE_RING_N);                                \
  } else {                                                                                     \
    id = p_tile[(f) / k_tiles % PIPE_RING_N];                                                  \
  }
#else
#define PIPE_P_ID(f) const int id = gid + (f) / k_tiles * groups;
#endif
#define PIPE_P_ISSUE(f)                                                                        \
  {                                                                                            \
    if (PIPE_P_MORE(f)) {                                                                      \
      PIPE_P_ID(f)                                                                             \
      if (id >= 0) {                                                                           \
        const int slot = (f) % PIPE_RING_N, pk = (f) % k_tiles;                                \
        int tm, tn;                                                                            \
        PIPE_P_TILE(id, tm, tn);                                                               \
        __local uint4* st = smem + slot * PIPE_STAGE_CHUNKS;                                   \
        pipe_bar_expect(pipe_full + slot, (PIPE_TILE_M + PIPE_BN) * 128);                      \
        pipe_bulk_block(st, (__global const uchar*)x + ((size_t)tm * k_tiles + pk) * 16384,    \
                        pipe_full + slot);                                                     \
        for (int j = 0; j < PIPE_BN / 128; ++j)                                                \
          pipe_bulk_block(                                                                     \
              st + PIPE_A_CH + j * 1024,                                                       \
              (__global const uchar*)w +                                                       \
                  (((size_t)tn * (PIPE_BN / 128) + j) * k_tiles + pk) * 16384,                  \
              pipe_full + slot);                                                               \
      }                                                                                        \
    }                                                                                          \
  }
  if (tid == 0) {
    for (int s = 0; s < PIPE_RING_N; ++s) pipe_bar_init(pipe_full + s);
    for (int s = 0; s < PIPE_RING_N; ++s) pipe_bar_init_n(pipe_empty + s, PIPE_THREADS / 32);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (tid == 0)
    for (int s = 0; s < PIPE_RING_N - 1; ++s) PIPE_P_ISSUE(s);
  uint a[2][PIPE_MI][4], b[2][PIPE_NJ][4];
  const bool n_even = (N & 1) == 0;
  for (int j = 0;; ++j) {
    const int f0 = j * k_tiles;
#if PIPE_PERSIST == 2
    pipe_bar_wait(pipe_full + f0 % PIPE_RING_N, (f0 / PIPE_RING_N) & 1);
    const int id = p_tile[j % PIPE_RING_N];  // written before the mbarrier's phase completed
    if (id < 0) break;
#else
    if (j >= my_tiles) break;
    const int id = gid + j * groups;
    pipe_bar_wait(pipe_full + f0 % PIPE_RING_N, (f0 / PIPE_RING_N) & 1);
#endif
    int tm, tn;
    PIPE_P_TILE(id, tm, tn);
    const int pm0 = tm * PIPE_TILE_M, pn0 = tn * PIPE_BN;
#pragma unroll
    for (int mi = 0; mi < PIPE_MI; ++mi)
#pragma unroll
      for (int ni = 0; ni < PIPE_NI; ++ni)
#pragma unroll
        for (int e = 0; e < 4; ++e) acc[mi][ni][e] = 0;
    PIPE_LOAD_FRAGS(smem + (f0 % PIPE_RING_N) * PIPE_STAGE_CHUNKS, 0, a_row, a_chunk, b_row,
                    b_chunk, a[0], b[0], false);
    for (int kt = 0; kt < k_tiles; ++kt) {
      const int f = f0 + kt;
      __local const uint4* as = smem + (f % PIPE_RING_N) * PIPE_STAGE_CHUNKS;
#pragma unroll
      for (int ks = 0; ks < 4; ++ks) {
        if (ks < 3) {
          PIPE_LOAD_FRAGS(as, ks + 1, a_row, a_chunk, b_row, b_chunk, a[(ks + 1) & 1],
                          b[(ks + 1) & 1], false);
        } else if (kt + 1 < k_tiles) {  // the next tile's first fragments load after its stores
          pipe_bar_wait(pipe_full + (f + 1) % PIPE_RING_N, ((f + 1) / PIPE_RING_N) & 1);
          PIPE_LOAD_FRAGS(smem + ((f + 1) % PIPE_RING_N) * PIPE_STAGE_CHUNKS, 0, a_row, a_chunk,
                          b_row, b_chunk, a[0], b[0], false);
        }
        PIPE_MMA_FRAGS(acc, a[ks & 1], b[ks & 1]);
        // As PIPE_BULK 2's loop: once every warp is done with step f - 1's slot, step
        // f + RING - 1 (this tile's or the next one's) goes into it.
        if (ks == PIPE_BULK_AT && tid == 0 && PIPE_P_MORE(f + PIPE_RING_N - 1)) {
          if (f > 0) pipe_bar_wait(pipe_empty + (f - 1) % PIPE_RING_N, ((f - 1) / PIPE_RING_N) & 1);
          PIPE_P_ISSUE(f + PIPE_RING_N - 1);
        }
        if (ks == 3 && lane == 0) pipe_bar_arrive(pipe_empty + f % PIPE_RING_N);
      }
    }
    // The tile from registers: rows g and g + 8 of each 16-row block, columns 2t, 2t + 1.
#pragma unroll
    for (int mi = 0; mi < PIPE_MI; ++mi)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = pm0 + wm + mi * 16 + g + h * 8;
        if (row < M) {
          __global float* yr = y + (size_t)row * N;
#pragma unroll
          for (int ni = 0; ni < PIPE_NI; ++ni) {
            const int col = pn0 + wn + ni * 8 + 2 * t;
            const float2 v = (float2)((float)acc[mi][ni][2 * h], (float)acc[mi][ni][2 * h + 1]);
            if (n_even && col + 1 < N) {
              *(__global float2*)(yr + col) = v;
            } else {
              if (col < N) yr[col] = v.x;
              if (col + 1 < N) yr[col + 1] = v.y;
            }
          }
        }
      }
  }
#undef PIPE_P_BAND
#undef PIPE_P_TILE
#undef PIPE_P_ISSUE
#undef PIPE_P_ID
#undef PIPE_P_MORE
#else

#if PIPE_BULK
#if !PIPE_DOUBLE_BUFFER || PIPE_PROBE || PIPE_SPREAD || PIPE_PAIR
#error "PIPE_BULK is a double-buffered loop of its own"
#endif
  // The loop of the double-buffered one below (the barrier before each tile's last k step, the
  // next tile's first fragments during its mma), with the ring filled by bulk copies: tile
  // kt + RING - 1 goes out at tile kt's start into the slot that tile kt - 1 left (every warp
  // passed the barrier after its last ldmatrix), and a warp waits on tile kt + 1's mbarrier
  // before its first ldmatrix of it. Tile t is slot t % RING's phase t / RING.
  __local ulong pipe_full[PIPE_RING_N];
#if PIPE_BULK == 2
  __local ulong pipe_empty[PIPE_RING_N];
#endif
#define PIPE_BULK_ROWS (PIPE_TILE_M + PIPE_BN)  // a slot's rows: A's, then B's
  const size_t row_bytes = (size_t)K * sizeof(PIPE_ELEM);
  // The item's rows: tid and tid + PIPE_THREADS of the slot (the second only where the slot has
  // it), each clamped to x's or w's last row.
#if PIPE_BULK_ROWS > 2 * PIPE_THREADS
#error "PIPE_BULK copies two rows an item at most"
#endif
#define PIPE_BULK_SRC(r)                                                                    \
  ((r) < PIPE_TILE_M                                                                        \
       ? (__global const uchar*)x + (size_t)min(m0 + (r), M - 1) * row_bytes                \
       : (__global const uchar*)w + (size_t)min(n0 + (r) - PIPE_TILE_M, N - 1) * row_bytes)
#if PIPE_PACKED
#if PIPE_TILE_M != 128 || PIPE_BN % 128 != 0
#error "PIPE_PACKED reads 128-row blocks"
#endif
  // Block (rb, kt) of a packed operand is 16 KB at (rb x k_tiles + kt) x 16 KB.
  __global const uchar* bulk_src0 = (__global const uchar*)x + (size_t)(m0 >> 7) * k_tiles * 16384;
  __global const uchar* bulk_src1 = (__global const uchar*)w + (size_t)(n0 >> 7) * k_tiles * 16384;
#else
  const int bulk_r1 = min(tid + PIPE_THREADS, PIPE_BULK_ROWS - 1);
  __global const uchar* bulk_src0 = PIPE_BULK_SRC(tid);
  __global const uchar* bulk_src1 = PIPE_BULK_SRC(bulk_r1);
#endif
#undef PIPE_BULK_SRC
  if (tid == 0) {
    for (int s = 0; s < PIPE_RING_N; ++s) pipe_bar_init(pipe_full + s);
#if PIPE_BULK == 2
    for (int s = 0; s < PIPE_RING_N; ++s) pipe_bar_init_n(pipe_empty + s, PIPE_THREADS / 32);
#endif
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  barrier(CLK_LOCAL_MEM_FENCE);
#if PIPE_PACKED
#define PIPE_BULK_ISSUER (tid == 0)
#define PIPE_BULK_TILE(t)                                                                      \
  {                                                                                            \
    if ((t) < k_tiles && tid == 0) {                                                           \
      const int slot = (t) % PIPE_RING_N;                                                      \
      __local uint4* st = smem + slot * PIPE_STAGE_CHUNKS;                                     \
      pipe_bar_expect(pipe_full + slot, PIPE_BULK_ROWS * 128);                                 \
      pipe_bulk_block(st, bulk_src0 + (size_t)(t) * 16384, pipe_full + slot);                  \
      for (int j = 0; j < PIPE_BN / 128; ++j)                                                  \
        pipe_bulk_block(st + PIPE_A_CH + j * 1024,                                             \
                        bulk_src1 + ((size_t)j * k_tiles + (t)) * 16384, pipe_full + slot);    \
    }                                                                                          \
  }
#else
#define PIPE_BULK_ISSUER 1
#define PIPE_BULK_TILE(t)                                                                      \
  {                                                                                            \
    if ((t) < k_tiles) {                                                                       \
      const int slot = (t) % PIPE_RING_N;                                                      \
      __local uint4* st = smem + slot * PIPE_STAGE_CHUNKS;                                     \
      if (tid == 0) pipe_bar_expect(pipe_full + slot, PIPE_BULK_ROWS * 128);                   \
      pipe_bulk_row(st + tid * PIPE_PITCH, bulk_src0 + (size_t)(t) * 128, pipe_full + slot);   \
      if (tid + PIPE_THREADS < PIPE_BULK_ROWS)                                                 \
        pipe_bulk_row(st + bulk_r1 * PIPE_PITCH, bulk_src1 + (size_t)(t) * 128,                \
                      pipe_full + slot);                                                       \
    }                                                                                          \
  }
#endif
#pragma unroll
  for (int s = 0; s < PIPE_RING_N - 1; ++s) PIPE_BULK_TILE(s);
  pipe_bar_wait(pipe_full, 0);
  uint a[2][PIPE_MI][4], b[2][PIPE_NJ][4];
  PIPE_LOAD_FRAGS(smem, 0, a_row, a_chunk, b_row, b_chunk, a[0], b[0], false);
  for (int kt = 0; kt < k_tiles; ++kt) {
    __local const uint4* as = smem + (kt % PIPE_RING_N) * PIPE_STAGE_CHUNKS;
#if PIPE_BULK == 1
    PIPE_BULK_TILE(kt + PIPE_RING_N - 1);
#endif
#pragma unroll
    for (int ks = 0; ks < 4; ++ks) {
      if (ks < 3) {
        PIPE_LOAD_FRAGS(as, ks + 1, a_row, a_chunk, b_row, b_chunk, a[(ks + 1) & 1],
                        b[(ks + 1) & 1], false);
      } else {
#if PIPE_BULK == 1
        barrier(CLK_LOCAL_MEM_FENCE);  // every warp is done with tile kt's slot
#endif
        if (kt + 1 < k_tiles) {
          pipe_bar_wait(pipe_full + (kt + 1) % PIPE_RING_N, ((kt + 1) / PIPE_RING_N) & 1);
          PIPE_LOAD_FRAGS(smem + ((kt + 1) % PIPE_RING_N) * PIPE_STAGE_CHUNKS, 0, a_row, a_chunk,
                          b_row, b_chunk, a[0], b[0], false);
        }
      }
      PIPE_MMA_FRAGS(acc, a[ks & 1], b[ks & 1]);
#if PIPE_BULK == 2
      // Step PIPE_BULK_AT's mma are issued (in order, so the warp's tile kt - 1 fragments were
      // taken long ago): wait until every warp is done with tile kt - 1's slot, then refill it.
      if (ks == PIPE_BULK_AT) {
        if (PIPE_BULK_ISSUER && kt > 0 && kt + PIPE_RING_N - 1 < k_tiles)
          pipe_bar_wait(pipe_empty + (kt - 1) % PIPE_RING_N, ((kt - 1) / PIPE_RING_N) & 1);
        PIPE_BULK_TILE(kt + PIPE_RING_N - 1);
      }
      // Step 3's mma hold this warp's last fragments of tile kt: its slot is free of this warp.
      if (ks == 3 && lane == 0) pipe_bar_arrive(pipe_empty + kt % PIPE_RING_N);
#endif
    }
  }
#undef PIPE_BULK_TILE
#undef PIPE_BULK_ISSUER
#undef PIPE_BULK_ROWS
#elif PIPE_DOUBLE_BUFFER
  // The whole ring in flight, then fragments double-buffered: each k step's ldmatrix is issued
  // before the previous step's 32 mma, so no mma waits on local memory (CUTLASS's
  // warp-level pipelining). The barrier sits before the tile's last step: by then every warp
  // holds that tile's last fragments in registers, so its slot is refilled at once and the next
  // tile's first fragments load during the last step's mma. tf32 rounds the fragments as the
  // mma takes them: rounded when loaded, two sets stay live and the 128-wide tile spilled.
#if PIPE_SPREAD
#pragma unroll
  for (int s = 0; s < PIPE_RING_N - 1; ++s) PIPE_LOAD_TILE(s);  // the loop fills the last slot
#else
#pragma unroll
  for (int s = 0; s < PIPE_RING_N; ++s) PIPE_LOAD_TILE(s);
#endif
#if PIPE_PAIR || PIPE_SPREAD
  CP_ASYNC_WAIT(2);  // pair: tiles 0 and 1 have landed for this item; spread: tile 0
#else
  PIPE_WAIT_RING_1();  // PIPE_RING_N - 1: tile 0 has landed for this item
#endif
  barrier(CLK_LOCAL_MEM_FENCE);
  uint a[2][PIPE_MI][4], b[2][PIPE_NJ][4];
  PIPE_LOAD_FRAGS(smem, 0, a_row, a_chunk, b_row, b_chunk, a[0], b[0], false);

#define PIPE_MMA_STEP(set) PIPE_MMA_FRAGS(acc, a[set], b[set])
#if PIPE_PROBE >= 3
#define PIPE_STEP_FRAGS(as, ks, set)
#else
#define PIPE_STEP_FRAGS(as, ks, set) \
  PIPE_LOAD_FRAGS(as, ks, a_row, a_chunk, b_row, b_chunk, a[set], b[set], false)
#endif
#if PIPE_PROBE >= 3
  PIPE_LOAD_FRAGS(smem, 1, a_row, a_chunk, b_row, b_chunk, a[1], b[1], false);
#endif
#if PIPE_SPREAD
  // Tile kt + 3 goes into the slot of tile kt - 1, which every warp left before the previous
  // barrier; its three parts (A, B's halves) go out after the first three k steps' ldmatrix, and
  // its commit group closes before the barrier, which then waits for tile kt + 1 (three groups
  // out, two may stay pending). A tile that needs bounds or taps is copied at once, as before.
  int kt_first = 0;  // the general loop's first tile (past the steady part's, where it ran)
#if PIPE_CLEAN
#if !PIPE_FAST
#error "PIPE_CLEAN needs PIPE_FAST and PIPE_SPREAD"
#endif
#if PIPE_CLEAN >= 2 && PIPE_A_PER + PIPE_B_PER != 3 * PIPE_MI
#error "PIPE_CLEAN weaves an item's copies of a tile into three k steps' rows of mma"
#endif
#if PIPE_CLEAN == 3 && PIPE_NJ != PIPE_MI
#error "PIPE_CLEAN 3 loads one A block and one B pair after each row of mma"
#endif
  // The steady part (see PIPE_CLEAN above): tile kt + 3's copies into tile kt - 1's slot, as the
  // spread loop below issues them, without bounds. Work-group uniform, so the barrier is safe.
  if (conv_taps == 0 && K % PIPE_BK == 0 && m0 + PIPE_TILE_M <= M && n0 + PIPE_BN <= N) {
    const size_t row_step = (size_t)PIPE_RS * cp_row_bytes;  // between an item's rows
    __global const uchar* ap = a_src + (PIPE_RING_N - 1) * 128;  // tile 3's 16 bytes of A
    __global const uchar* bp = b_src + (PIPE_RING_N - 1) * 128;  // ... and of B
    for (; kt_first < k_tiles - (PIPE_RING_N - 1); ++kt_first) {
      const int kt = kt_first;
      __local const uint4* as = smem + (kt % PIPE_RING_N) * PIPE_STAGE_CHUNKS;
      __local uint4* nd = smem + ((kt + PIPE_RING_N - 1) % PIPE_RING_N) * PIPE_STAGE_CHUNKS + cp_dst;
#pragma unroll
      for (int ks = 0; ks < 4; ++ks) {
        if (ks < 3) {
#if PIPE_CLEAN < 3
          PIPE_STEP_FRAGS(as, ks + 1, (ks + 1) & 1);
#endif
        } else {
          cp_async_commit();  // tile kt + 3's group
          CP_ASYNC_WAIT(2);   // tile kt + 1 has landed for this item
          barrier(CLK_LOCAL_MEM_FENCE);
#if PIPE_CLEAN < 3
          PIPE_STEP_FRAGS(smem + ((kt + 1) % PIPE_RING_N) * PIPE_STAGE_CHUNKS, 0, 0);
#endif
        }
#if PIPE_CLEAN == 3
        // The next k step's fragments: step ks + 1 of this tile, or step 0 of the next.
        __local const uint4* fs = ks < 3 ? as : smem + ((kt + 1) % PIPE_RING_N) * PIPE_STAGE_CHUNKS;
        const int fk = ks < 3 ? ks + 1 : 0;
#endif
#if PIPE_CLEAN >= 2
        // Copy j = ks x PIPE_MI + mi after row mi's mma: A's first, then B's. PIPE_CLEAN 3: the
        // next step's fragments too, A's block mi and B's pair of n8 blocks mi after row mi.
#pragma unroll
        for (int mi = 0; mi < PIPE_MI; ++mi) {
#pragma unroll
          for (int ni = 0; ni < PIPE_NI; ++ni)
            PIPE_MMA(acc[mi][ni], PIPE_FRAG(a[ks & 1][mi][0]), PIPE_FRAG(a[ks & 1][mi][1]),
                     PIPE_FRAG(a[ks & 1][mi][2]), PIPE_FRAG(a[ks & 1][mi][3]),
                     PIPE_FRAG(b[ks & 1][ni >> 1][(ni & 1) * 2]),
                     PIPE_FRAG(b[ks & 1][ni >> 1][(ni & 1) * 2 + 1]));
#if PIPE_CLEAN == 3
          ldmatrix_x4(fs + PIPE_CHUNK(a_row + mi * 16, fk * 2 + a_chunk), a[(ks + 1) & 1][mi]);
          ldmatrix_x4(fs + PIPE_A_CH + PIPE_CHUNK(b_row + mi * 16, fk * 2 + b_chunk),
                      b[(ks + 1) & 1][mi]);
#endif
          const int j = ks * PIPE_MI + mi;
          if (ks < 3 && j < PIPE_A_PER) cp_async16_full(nd + j * PIPE_RS * 8, ap + j * row_step);
          if (ks < 3 && j >= PIPE_A_PER)
            cp_async16_full(nd + PIPE_A_CH + (j - PIPE_A_PER) * PIPE_RS * 8,
                            bp + (j - PIPE_A_PER) * row_step);
        }
#else
        if (ks == 0)
#pragma unroll
          for (int i = 0; i < PIPE_A_PER; ++i)
            cp_async16_full(nd + i * PIPE_RS * 8, ap + i * row_step);
        if (ks == 1 || ks == 2)
#pragma unroll
          for (int i = (ks - 1) * PIPE_B_PER / 2; i < ks * PIPE_B_PER / 2; ++i)
            cp_async16_full(nd + PIPE_A_CH + i * PIPE_RS * 8, bp + i * row_step);
        PIPE_MMA_STEP(ks & 1);
#endif
      }
      ap += 128;
      bp += 128;
    }
  }
#endif
  for (int kt = kt_first; kt < k_tiles; ++kt) {
    __local const uint4* as = smem + (kt % PIPE_RING_N) * PIPE_STAGE_CHUNKS;
    const int nt = kt + PIPE_RING_N - 1;
    __local uint4* ns = smem + (nt % PIPE_RING_N) * PIPE_STAGE_CHUNKS;
    const bool fast = nt < k_tiles && PIPE_FAST_TILE(nt);
    if (nt < k_tiles && !fast) {
      PIPE_LOAD_A(ns, nt * PIPE_BK);
      load_rows(ns + PIPE_A_CH, (__global const uchar*)w, sizeof(PIPE_ELEM), n0, PIPE_BN, N, K,
                nt * PIPE_BK, tid, PIPE_THREADS);
    }
#pragma unroll
    for (int ks = 0; ks < 4; ++ks) {
      if (ks < 3) {
        PIPE_STEP_FRAGS(as, ks + 1, (ks + 1) & 1);
        if (fast) {
          if (ks == 0) PIPE_COPY_A(ns, nt);
          if (ks == 1) PIPE_COPY_B(ns, nt, 0, PIPE_B_PER / 2);
          if (ks == 2) PIPE_COPY_B(ns, nt, PIPE_B_PER / 2, PIPE_B_PER);
        }
      } else {
        cp_async_commit();  // tile nt's group (empty past K)
        CP_ASYNC_WAIT(2);   // tile kt + 1 has landed for this item
        barrier(CLK_LOCAL_MEM_FENCE);  // ... for every item, and every warp is done with tile kt
        if (kt + 1 < k_tiles)
          PIPE_STEP_FRAGS(smem + ((kt + 1) % PIPE_RING_N) * PIPE_STAGE_CHUNKS, 0, 0);
      }
      PIPE_MMA_STEP(ks & 1);
    }
  }
#elif PIPE_PAIR
  // Tiles kt and kt + 1 between barriers (mma37): the barrier sits before kt + 1's last step,
  // when every warp holds that step's fragments, so both slots are free; it first waits for
  // every copy (tiles kt + 2 and kt + 3, issued at the previous barrier), then refills the two
  // slots with kt + 4 and kt + 5. An odd last tile leaves the loop after its first half.
  for (int kt = 0; kt < k_tiles; kt += 2) {
    __local const uint4* as = smem + (kt % PIPE_RING_N) * PIPE_STAGE_CHUNKS;
    __local const uint4* as1 = smem + ((kt + 1) % PIPE_RING_N) * PIPE_STAGE_CHUNKS;
#pragma unroll
    for (int ks = 0; ks < 4; ++ks) {
      if (ks < 3) {
        PIPE_STEP_FRAGS(as, ks + 1, (ks + 1) & 1);
      } else if (kt + 1 < k_tiles) {
        PIPE_STEP_FRAGS(as1, 0, 0);
      }
      PIPE_MMA_STEP(ks & 1);
    }
    if (kt + 1 >= k_tiles) break;
#pragma unroll
    for (int ks = 0; ks < 4; ++ks) {
      if (ks < 3) {
        PIPE_STEP_FRAGS(as1, ks + 1, (ks + 1) & 1);
      } else {
#if PIPE_PROBE < 1
        CP_ASYNC_WAIT(0);  // tiles kt + 2 and kt + 3 have landed for this item
#endif
#if PIPE_PROBE < 2
        barrier(CLK_LOCAL_MEM_FENCE);  // ... for every item, and every warp is done with kt, kt + 1
#endif
#if PIPE_PROBE < 1
        PIPE_LOAD_TILE(kt + 4);
        PIPE_LOAD_TILE(kt + 5);
#endif
        if (kt + 2 < k_tiles) PIPE_STEP_FRAGS(smem + ((kt + 2) % PIPE_RING_N) * PIPE_STAGE_CHUNKS, 0, 0);
      }
      PIPE_MMA_STEP(ks & 1);
    }
  }
#else
  for (int kt = 0; kt < k_tiles; ++kt) {
    __local const uint4* as = smem + (kt % PIPE_RING_N) * PIPE_STAGE_CHUNKS;
#pragma unroll
    for (int ks = 0; ks < 4; ++ks) {
      if (ks < 3) {
        PIPE_STEP_FRAGS(as, ks + 1, (ks + 1) & 1);
      } else {
#if PIPE_PROBE < 1
        PIPE_WAIT_RING_2();  // PIPE_RING_N - 2: tile kt + 1 has landed for this item
#endif
#if PIPE_PROBE < 2
        barrier(CLK_LOCAL_MEM_FENCE);  // ... for every item, and every warp is done with tile kt
#endif
#if PIPE_PROBE < 1
        PIPE_LOAD_TILE(kt + PIPE_RING_N);
#endif
        if (kt + 1 < k_tiles)
          PIPE_STEP_FRAGS(smem + ((kt + 1) % PIPE_RING_N) * PIPE_STAGE_CHUNKS, 0, 0);
      }
      PIPE_MMA_STEP(ks & 1);
    }
  }
#endif
#undef PIPE_MMA_STEP
#undef PIPE_STEP_FRAGS
#else
  // One set of fragments, loaded after the barrier that starts each tile. It won on Geneformer's
  // GEMMs (K of 256 to 1024: few tiles, where the deeper prologue does not pay) on the H200;
  // which loop a shape runs is measured (gemm_mma.cpp).
#pragma unroll
  for (int s = 0; s < PIPE_RING_N - 1; ++s) PIPE_LOAD_TILE(s);
  for (int kt = 0; kt < k_tiles; ++kt) {
    PIPE_WAIT_RING_2();  // PIPE_RING_N - 2: tile kt has landed for this item
    barrier(CLK_LOCAL_MEM_FENCE);  // ... for every item, and the slot refilled next is free
    PIPE_LOAD_TILE(kt + PIPE_RING_N - 1);
    __local const uint4* as = smem + (kt % PIPE_RING_N) * PIPE_STAGE_CHUNKS;
#pragma unroll
    for (int ks = 0; ks < 4; ++ks) {
      uint a[PIPE_MI][4], b[PIPE_NJ][4];
      PIPE_LOAD_FRAGS(as, ks, a_row, a_chunk, b_row, b_chunk, a, b, true);
#pragma unroll
      for (int mi = 0; mi < PIPE_MI; ++mi)
#pragma unroll
        for (int ni = 0; ni < PIPE_NI; ++ni)
          PIPE_MMA(acc[mi][ni], a[mi][0], a[mi][1], a[mi][2], a[mi][3], b[ni >> 1][(ni & 1) * 2],
                   b[ni >> 1][(ni & 1) * 2 + 1]);
    }
  }
#endif
  CP_ASYNC_WAIT(0);
  barrier(CLK_LOCAL_MEM_FENCE);  // every warp is done with the ring: it becomes the C tile
  {
    __local float* c = (__local float*)smem;
#pragma unroll
    for (int mi = 0; mi < PIPE_MI; ++mi)
#pragma unroll
      for (int ni = 0; ni < PIPE_NI; ++ni)
#pragma unroll
        for (int h = 0; h < 2; ++h)
          *(__local float2*)(c + (wm + mi * 16 + g + h * 8) * (PIPE_BN + 4) + wn + ni * 8 + 2 * t) =
              (float2)((float)acc[mi][ni][2 * h], (float)acc[mi][ni][2 * h + 1]);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
#ifdef PIPE_STORE  // a caller's own store of the C tile (conv3d_igemm.cpp's phase store)
  PIPE_STORE((__local const float*)smem, PIPE_TILE_M, PIPE_BN, PIPE_THREADS, m0, n0, M, N, y, tid);
#else
  epilogue_rows((__local const float*)smem, PIPE_TILE_M, PIPE_BN, PIPE_THREADS, m0, n0, M, N, bias,
                has_bias, act, residual, has_residual, y, PIPE_SCALE_ARGS, tid);
#endif
#endif  // PIPE_PERSIST
}

#undef PIPE_STAGE_CHUNKS
#undef PIPE_TILE_M
#undef PIPE_MI
#undef PIPE_WN
#undef PIPE_A_SETUP
#undef PIPE_LOAD_A
#undef PIPE_A_CH
#undef PIPE_NI
#undef PIPE_NJ
#undef PIPE_LOAD_TILE
#undef PIPE_LOAD_FRAGS
#undef PIPE_MMA_FRAGS
#undef PIPE_JOIN
#undef PIPE_JOIN2
#undef PIPE_BK
#undef PIPE_RING_N
#undef PIPE_WAIT_RING_1
#undef PIPE_WAIT_RING_2
#undef PIPE_PAIR
#undef PIPE_FAST
#undef PIPE_SPREAD
#undef PIPE_RS
#undef PIPE_A_PER
#undef PIPE_B_PER
#undef PIPE_FAST_TILE
#undef PIPE_COPY_A
#undef PIPE_COPY_B
#undef PIPE_OWN_RING
#undef PIPE_PROBE
#undef PIPE_CLEAN
#undef PIPE_RASTER
#undef PIPE_BULK
#undef PIPE_PACKED
#undef PIPE_BULK_AT
#undef PIPE_PERSIST
#undef PIPE_PITCH
#undef PIPE_CHUNK
