#pragma once
// The tensor-core GEMM pipeline's variants: operand kinds, tiles and the wgmma kernels' table,
// with the knobs that choose among them (gemm_mma.cpp, gemm_wgmma.cpp; declared apart from
// OpenCLBackend because the tests and the PTX patch read the table without a backend).
#include <cstdint>
#include <string>
#include <vector>

#include "models/ops/tensor.h"

namespace sb {

// The pipelined tensor-core GEMM's operand kinds (kernels/gemm_pipelined.cl); bf16: conv3d's
// implicit GEMMs only (conv3d_igemm.cpp).
enum class PipeKind : uint8_t { f16, tf32, s8, bf16 };
// s8's dequantization: y = x_scale x col_scale[n] x the int32 product.
struct PipeScales {
  const Tensor* col_scale = nullptr;  // per output column (the weight's)
  float x_scale = 0.f;                // per tensor (the calibrated input's)
  const Tensor* x_scales = nullptr;   // or on the device, found per call: [x_scale, 1 / x_scale]
};

// A pipelined GEMM kernel: its tile's width (128 x bn) and whether its warps double-buffer
// their fragments (kernels/gemm_pipe_body.cl), or (wgmma) the f16 wgmma kernel of that width
// (kernels/gemm_wgmma.cl), `id` naming which of kWgmmaVariants. Which one a shape runs is
// measured among its path's candidates.
struct PipeTile {
  int bn = 256;
  bool double_buffered = true;
  bool wgmma = false;
  int id = 0;  // wgmma: the variant's id (WgmmaVariant::id); 0 reads as bn
  // mma37 (f16 only, kPipeTilesF16; kernels/gemm_pipe_body.cl): fast, each item's copies set up
  // once before the K loop (PIPE_FAST); pair, two K tiles a barrier on a ring of 4 (PIPE_PAIR);
  // spread, a ring of 4 whose next tile's copies go out between the k steps (PIPE_SPREAD).
  bool pair = false, fast = false, spread = false;
  // mma38 (with spread; kernels/gemm_pipe_body.cl): clean 1, the K loop's steady part apart where
  // the tile lies wholly inside the product, its copies without bounds (PIPE_CLEAN 1); 2, those
  // copies woven one after each row of mma (PIPE_CLEAN 2); 3, the next k step's ldmatrix woven
  // too (PIPE_CLEAN 3); raster R > 0, tiles walked in bands of R tile rows (PIPE_RASTER).
  int clean = 0, raster = 0;
  // mma39 (f16, double-buffered, none of the above): bulk 1, the ring filled by the copy engine
  // (cp.async.bulk of whole 128-byte rows into 144-byte rows, mbarriers; PIPE_BULK); 2, the same
  // with mbarriers for the slots' release instead of the work-group barrier; ring its K tiles
  // (0: the kernel's 4). Plain products with K a multiple of 64 only (pipe_tile). packed (with
  // bulk): x and w packed first into 128-row blocks of each K tile (pipe_pack_f16), three 16 KB
  // bulk copies a slot (PIPE_PACKED).
  int bulk = 0;
  int ring = 0;
  bool packed = false;
  int threads() const { return 32 * 2 * bn / 64; }
};
inline constexpr PipeTile kPipeTiles[] = {{256, true}, {128, true}, {256, false}, {128, false}};
// The f16 GEMMs' further candidates, timed beside kPipeTiles (128 x 256, 8 warps, double-buffered,
// a ring of 4, copies set up once and spread over the k steps; kernels/gemm_pipe_body.cl):
// - mma37's gemm_f16_pipe_256_spread_db: 362.5 TFLOP/s at 8192^3 in the probe against the old
//   default's 300.2 (docs/wgmma.md, "mma37");
// - mma38's steady loop apart, its copies without bounds and woven one after each row of mma, in
//   bands of 8 tile rows (gemm_f16_pipe_256_spread_wv_r8_db: the stage's choice at 8192^3 in
//   mma38's call 1, 2.890 ms against the spread kernel's 3.039), and with the next k step's
//   ldmatrix woven too (gemm_f16_pipe_256_spread_wl_db: the probe's fastest in call 2, 355.1
//   TFLOP/s against 320.2 for the spread kernel in turns). docs/wgmma.md, "mma38".
// Left out (each costs the program's build time on every NVIDIA start): mma37's copies set up
// once without the spread (_fc_db, slower than the spread kernel in every timing) and mma38's
// steady loop with its copies in bursts (_cl, slower than the woven ones); the bands of 8 tile
// rows gained nothing consistent (1-3% either way in the probe), so one woven form has them and
// one not. All stay in the probe's list (probes/wgmma).
// - mma39's ring filled by bulk copies from operands packed first into 128-row blocks
//   (gemm_f16_pipe_256_bulk_pk_db: PIPE_BULK 1, PIPE_PACKED) and the same without the K loop's
//   barrier (_bulk2_pk_db), timed beside them where a product can take them (plain, K a multiple
//   of 64). Its bulk copies of 128-byte rows from unpacked operands (_bulk_db, _bulk2_db) ran the
//   8192^3 product at half the speed (5.5 ms against 2.9) and stay in the probe only.
//   docs/wgmma.md, "mma39".
// - mma40: of the packed forms, only _bulk2_pk walking its tiles in bands of 8 tile rows
//   (gemm_f16_pipe_256_r8_bulk2_pk_db): alone, its 8192^3 stage ran at 2.616 ms (kernel 2.401)
//   where every candidate of mma39's list and mma40's ran it at 2.705 ms (_bulk_pk_db chosen by
//   its own timing, kernel 2.584), and it ran 1.4-3.1% ahead of _bulk2_pk_db in three probes.
//   _bulk_pk_db and _bulk2_pk_db, and mma40's persistent forms of the same loop (PIPE_PERSIST:
//   static tiles, 2.603-2.646 ms; tiles from a counter, 2.857 ms), stay in the probe.
//   docs/wgmma.md, "mma40".
inline constexpr PipeTile kPipeTilesF16[] = {
    {256, true, false, 0, false, true, true},
    {256, true, false, 0, false, true, true, 2, 8},
    {256, true, false, 0, false, true, true, 3},
    {256, true, false, 0, false, false, false, 0, 8, 2, 0, true}};
// STAGEBENCH_PIPE_ONLY: one mma.sync pipeline kernel's name (pipe_kernel_name), or unset: every
// candidate. Throws where the name is none of them.
const char* pipe_only_knob();
// The wgmma kernels. The first two are the probe's fastest of each width on an H200 at 8192^3
// (results/h200/wgmma-2026-11-27/run3/gemm.json): 128 x 256 with 4 stages waiting for each K
// tile's wgmma (3 tiles ahead, 563.9 TFLOP/s) and 128 x 128 with 6 stages (4 ahead, 491.5); their
// ids are their widths, which gemm_batched_mma.cpp's split products name. The third (gemm34,
// STAGEBENCH_WGMMA_MORE=off leaves it out): 128 x 128 in 3 stages (drained, 2 ahead) capped at
// 128 registers, so that two work-groups share an SM and one's epilogue and ring fill overlap the
// other's wgmma (a persistent kernel's gain without its scheduling). It won 64 of Enformer full's
// 90 products and the 8192^3 GEMM on an H200; a 7-stage 128 x 128 ring, timed beside it, won
// none and was dropped (results/h200/gemm34-2026-11-29/README.md).
// The warp-specialized variants (kernels/gemm_wgmma_ws.cl, gemm35):
// ws: a producer warpgroup fills the ring and signals the two consumer warpgroups through
// mbarriers (384 items, no work-group barrier in the K loop); setmaxnreg: the producer's
// registers go to the consumers; persist: one work-group an SM walks the tiles, storing each
// from registers, without an epilogue (plain products only: launch_wgmma sends any other call,
// and any split K, to wgmma_f16_256). A persistent variant with the pipeline's epilogue stored
// per pair of columns ran the 8192^3 product 23% slower and won no product of Enformer's or
// Geneformer's (results/h200/gemm35-2026-11-29/README.md), so it was dropped.
// gemm36: tf32 marks the same warp-specialized kernels on fp32 operands through wgmma's dense
// tf32 form (WG_TF32 in kernels/gemm_wgmma.cl): tf32 GEMMs time them beside the mma.sync
// pipeline's tiles, and STAGEBENCH_WGMMA_TF32=off leaves them out (tf32 then stays on mma.sync).
// STAGEBENCH_WGMMA_WS=off leaves the f16 ones out (A/B runs); STAGEBENCH_WGMMA_ONLY=<kernel name>
// makes that variant the only candidate (the original two are still built: split products and the
// persistent kernel's fallback name them), so that one call can time each alone.
struct WgmmaVariant {
  int id, bn, stages;
  bool drain;
  int maxnreg;       // 0: no cap
  const char* name;  // the kernel's name
  bool ws = false, setmaxnreg = false, persist = false, tf32 = false;
  int ahead() const { return drain ? stages - 1 : stages - 2; }
  int threads() const { return ws ? 384 : 256; }
};
inline constexpr WgmmaVariant kWgmmaVariants[] = {
    {256, 256, 4, true, 0, "wgmma_f16_256"},
    {128, 128, 6, false, 0, "wgmma_f16_128"},
    {1128, 128, 3, true, 128, "wgmma_f16_128_x2"},
    {2256, 256, 4, false, 168, "wgmma_f16_ws256", true, false, false},
    {3256, 256, 4, false, 168, "wgmma_f16_ws256_r", true, true, false},
    {4256, 256, 4, false, 168, "wgmma_f16_ws256_p", true, true, true},
    {5256, 256, 4, false, 168, "wgmma_tf32_ws256", true, false, false, true},
    {6256, 256, 4, false, 168, "wgmma_tf32_ws256_r", true, true, false, true},
    {7256, 256, 4, false, 168, "wgmma_tf32_ws256_p", true, true, true, true}};
// The variant a persistent one's call goes to when it has an epilogue or splits K.
inline constexpr int kWgmmaF16Fallback = 256, kWgmmaTf32Fallback = 6256;
bool wgmma_ws_variants();       // STAGEBENCH_WGMMA_WS: on unless "off"
bool wgmma_plain_only(int id);  // whether that variant takes only plain products
bool wgmma_is_tf32(int id);     // whether that variant reads fp32 operands (tf32 wgmma)
bool wgmma_tf32_variants();     // STAGEBENCH_WGMMA_TF32: on unless "off" (gemm36)
// STAGEBENCH_WGMMA_MORE: on (unset, "" or "on") builds and times every variant above, "off" only
// the first two (as before gemm34, for A/B runs); anything else throws.
bool wgmma_more_variants();
// The variants built here (the knob) and their tiles, the candidates pipe_tile() times.
std::vector<WgmmaVariant> wgmma_variants();
std::vector<PipeTile> wgmma_tiles();

// An implicit 'same' convolution through the pipelined GEMM: x holds `len`-long sequences of
// K / taps channels; taps == 0 is a plain GEMM.
struct PipeConv {
  int64_t taps = 0, len = 0;
};

// STAGEBENCH_PIPE_RING (gemm36): the mma.sync GEMMs' ring of K tiles, 3 (unset or "3": as before)
// or 4 (kernels/gemm_pipe_body.cl's PIPE_RING); anything else throws.
int parse_pipe_ring(const char* value);
int pipe_ring_requested();  // the environment's, read once

// The mma.sync pipeline kernel's name for an operand kind's name ("f16", "tf32", "s8") and a
// tile:
// gemm_<kind>_pipe_<bn>[_fc][_pair][_spread][_cl|_wv|_wl][_r<raster>][_bulk|_bulk2][_pk][_ring<n>][_db].
std::string pipe_kernel_name(const char* kind, PipeTile tile);

// The NVIDIA tensor-core program's source (every mma.sync kernel and pipeline variant);
// bulk_copies: with mma39's bulk-copy variants and the sm_90 helpers they use (PIPE_HAS_BULK),
// which only compute capability 9.0 and later compile.
std::string mma_program_source(bool bulk_copies);

// A pipeline variant's operand macros for gemm_pipe_body.cl (PIPE_ELEM, PIPE_MMA, PIPE_FRAG).
std::string pipe_operand_defines(PipeKind kind);

}  // namespace sb
