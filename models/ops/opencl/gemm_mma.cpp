// The NVIDIA tensor-core path: tf32 and f16 GEMMs through inline PTX mma.sync
// (kernels/gemm_mma_nvidia.cl), chosen when a compile probe shows the device takes it.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <stdexcept>
#include <vector>

#include "models/ops/knobs.h"
#include "models/ops/opencl/attention_choice.h"
#include "models/ops/opencl/attention_mma_source.h"
#include "models/ops/opencl/kernel_sources.h"
#include "models/ops/opencl/opencl_backend_impl.h"
#include "models/ops/opencl/wgmma_program.h"

namespace sb {
namespace {

// The smallest program that needs what the GEMM kernels need: tf32 conversion and the
// m16n8k8 tf32 mma (sm_80+). Compiled on NVIDIA platforms only.
constexpr const char* kProbeSource = R"CLC(
__kernel void mma_probe(__global float* out) {
  uint a;
  float c0 = 0.0f, c1 = 0.0f, c2 = 0.0f, c3 = 0.0f;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(a) : "f"(out[0]));
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
      : "+f"(c0), "+f"(c1), "+f"(c2), "+f"(c3)
      : "r"(a), "r"(a), "r"(a), "r"(a), "r"(a), "r"(a));
  out[get_global_id(0)] = c0 + c1 + c2 + c3;
}
)CLC";

struct MmaVariant {
  const char* name;
  const char* weight_type;
  const char* load;     // LOAD_WEIGHT(w, i)
  const char* store_x;  // STORE_X(tile, r, kk, v)
  const char* store_w;
  const char* warp_tile;
  const char* extra_params = "";
  const char* scale_acc = "(v)";  // SCALE_ACC(v, n)
  const char* acc_type = "float";
};

std::string mma_variant(const MmaVariant& v) {
  return std::string("#define MMA_NAME ") + v.name + "\n#define WEIGHT_T " + v.weight_type +
         "\n#define LOAD_WEIGHT(w, i) " + v.load + "\n#define STORE_X " + v.store_x +
         "\n#define STORE_W " + v.store_w + "\n#define WARP_TILE " + v.warp_tile +
         "\n#define ACC_T " + v.acc_type + "\n#define EXTRA_PARAMS " + v.extra_params +
         "\n#define SCALE_ACC(v, n) " + v.scale_acc + "\n" +
         std::string(embedded_cl_source("gemm_mma_body.cl")) +
         "\n#undef MMA_NAME\n#undef WEIGHT_T\n#undef LOAD_WEIGHT\n#undef STORE_X\n"
         "#undef STORE_W\n#undef WARP_TILE\n#undef ACC_T\n#undef EXTRA_PARAMS\n#undef SCALE_ACC\n";
}

// Must match PIPE_BM in kernels/gemm_pipelined.cl; a variant has PipeTile::threads() items.
constexpr int64_t kPipeTileM = 128;

const char* pipe_name(PipeKind kind) {
  switch (kind) {
    case PipeKind::f16:
      return "f16";
    case PipeKind::tf32:
      return "tf32";
    case PipeKind::bf16:
      return "bf16";
    case PipeKind::s8:
      break;
  }
  return "s8";
}

std::string pipe_kernel(PipeKind kind, PipeTile tile) {
  return pipe_kernel_name(pipe_name(kind), tile);
}

// A pipelined GEMM variant: f16 (halves, k16 mma), tf32 (fp32 rounded in registers, k8 mma) or
// s8 (int8, k32 mma, int32 accumulators dequantized in the epilogue).
std::string pipe_variant(PipeKind kind, PipeTile tile) {
  std::string d = "#define PIPE_NAME " + pipe_kernel(kind, tile) + "\n#define PIPE_BN " +
                  std::to_string(tile.bn) + "\n#define PIPE_THREADS " +
                  std::to_string(tile.threads()) + "\n#define PIPE_DOUBLE_BUFFER " +
                  (tile.double_buffered ? "1" : "0") + "\n";
  if (tile.pair) d += "#define PIPE_PAIR 1\n";
  if (tile.fast) d += "#define PIPE_FAST 1\n";
  if (tile.spread) d += "#define PIPE_SPREAD 1\n";
  if (tile.clean) d += "#define PIPE_CLEAN " + std::to_string(tile.clean) + "\n";
  if (tile.raster) d += "#define PIPE_RASTER " + std::to_string(tile.raster) + "\n";
  if (tile.bulk) d += "#define PIPE_BULK " + std::to_string(tile.bulk) + "\n";
  if (tile.packed) d += "#define PIPE_PACKED 1\n";
  if (tile.ring) d += "#define PIPE_OWN_RING " + std::to_string(tile.ring) + "\n";
  d += pipe_operand_defines(kind);
  const bool s8 = kind == PipeKind::s8;
  d += s8 ? "#define PIPE_ACC int\n"
            "#define PIPE_EXTRA_PARAMS , __global const float* col_scale, float x_scale, "
            "__global const float* x_scales, int x_dynamic\n"
            "#define PIPE_SCALE_ARGS col_scale, x_dynamic ? x_scales[0] : x_scale, 1\n"
          : "#define PIPE_ACC float\n"
            "#define PIPE_EXTRA_PARAMS\n#define PIPE_SCALE_ARGS bias, 0.0f, 0\n";
  return d + std::string(embedded_cl_source("gemm_pipe_body.cl")) +
         "\n#undef PIPE_NAME\n#undef PIPE_BN\n#undef PIPE_THREADS\n#undef PIPE_ELEM\n"
         "#undef PIPE_MMA\n#undef PIPE_FRAG\n#undef PIPE_ACC\n#undef PIPE_DOUBLE_BUFFER\n"
         "#undef PIPE_EXTRA_PARAMS\n#undef PIPE_SCALE_ARGS\n";
}

std::string pipe_variants(bool bulk_copies) {
  std::string all;
  for (const PipeKind kind : {PipeKind::f16, PipeKind::tf32, PipeKind::s8})
    for (const PipeTile tile : kPipeTiles) all += pipe_variant(kind, tile);
  for (const PipeTile tile : kPipeTilesF16)
    if (bulk_copies || !tile.bulk) all += pipe_variant(PipeKind::f16, tile);
  return all;
}

// STAGEBENCH_MMA_GEMM: "register", "tile256", "tile128", "pipelined" or unset (the default).
const char* gemm_knob() {
  return read_knob<const char*>("STAGEBENCH_MMA_GEMM", "pipelined",
                                {{"pipelined", "pipelined"},
                                 {"tile256", "tile256"},
                                 {"tile128", "tile128"},
                                 {"register", "register"}});
}

// The knob as a forced tile width (128, 256), 0 when the measured choice stands.
int forced_pipe_width() {
  const std::string knob = gemm_knob();
  return knob == "tile256" ? 256 : knob == "tile128" ? 128 : 0;
}

}  // namespace

std::string mma_program_source(bool bulk_copies) {
  return cl_common_source() + "\n" + (bulk_copies ? "#define PIPE_HAS_BULK 1\n" : "") +
         std::string(embedded_cl_source("gemm_mma_nvidia.cl")) + "\n" +
         mma_variant(
             {"gemm_tf32_mma", "float", "(w)[(i)]", "STORE_TF32", "STORE_TF32", "warp_tile_tf32"}) +
         mma_variant({"gemm_f16_mma", "half", "vload_half((i), (w))", "STORE_F16", "STORE_F16",
                      "warp_tile_f16"}) +
         mma_variant({"gemm_s8_mma", "char", "(float)(w)[(i)]", "STORE_S8_X", "STORE_S8_W",
                      "warp_tile_s8",
                      ", __global const float* col_scale, float x_inv_scale, float x_scale",
                      "((v) * x_scale * col_scale[(n)])", "int"}) +
         std::string(embedded_cl_source("gemm_pipelined.cl")) + "\n" + pipe_variants(bulk_copies) +
         attention_mma_source() + std::string(embedded_cl_source("gemm_pack.cl")) + "\n" +
         std::string(embedded_cl_source("layernorm_warp_nvidia.cl"));  // after shfl_xor
}

int epilogue_act(const Epilogue& ep, const Tensor& y) {
  return static_cast<int>(ep.act) | (y.dtype() == DType::f16 ? EPI_HALF_OUT : 0);
}

std::string pipe_operand_defines(PipeKind kind) {
  switch (kind) {
    case PipeKind::f16:
      return "#define PIPE_ELEM ushort\n#define PIPE_MMA mma_f16\n#define PIPE_FRAG(r) (r)\n";
    case PipeKind::tf32:
      return "#define PIPE_ELEM float\n#define PIPE_MMA mma_tf32\n"
             "#define PIPE_FRAG(r) to_tf32(as_float(r))\n";
    case PipeKind::bf16:  // the f16 fragments' layout, other bits
      return "#define PIPE_ELEM ushort\n#define PIPE_MMA mma_bf16\n#define PIPE_FRAG(r) (r)\n";
    case PipeKind::s8:
      break;
  }
  return "#define PIPE_ELEM char\n#define PIPE_MMA mma_s8\n#define PIPE_FRAG(r) (r)\n";
}

// STAGEBENCH_MMA_ATTENTION: "direct" (the default: 2 blocks of 16 queries a warp, K and V read
// in place, fast conversions), "direct-plain" (in place, the conversions and exp2 of x2), "x2"
// (the packing pass, then 2 blocks: the default until 2026-11-28) or "x1" (packing, 1 block).
AttentionChoice attention_choice() {
  const AttentionChoice direct{2, true, true};
  return read_knob<AttentionChoice>("STAGEBENCH_MMA_ATTENTION", direct,
                                    {{"direct", direct},
                                     {"direct-plain", {2, true, false}},
                                     {"x2", {2, false, false}},
                                     {"x1", {1, false, false}}});
}

bool attention_trim() {
  return read_on_off_knob("STAGEBENCH_ATTENTION_TRIM");
}

int attention_blocks() {
  return attention_choice().blocks;
}

// The f16 and tf32 GEMMs' kernel: the cp.async pipeline (gemm_pipelined.cl) wherever rows are
// 16-byte aligned (K a multiple of 8 halves, 4 floats or 16 int8), else the register-staged one.
// STAGEBENCH_MMA_GEMM forces one, to measure them against each other in one session: register,
// tile256 or tile128 (pipelined, or unset: the pipeline with the tile measured fastest for the
// shape).
bool gemm_pipelined(Precision p, int64_t k) {
  if (std::strcmp(gemm_knob(), "register") == 0) return false;
  return k % (p == Precision::tf32 ? 4 : p == Precision::int8 ? 16 : 8) == 0;
}

std::string pipe_kernel_name(const char* kind, PipeTile tile) {
  return std::string("gemm_") + kind + "_pipe_" + std::to_string(tile.bn) +
         (tile.fast && !tile.spread ? "_fc" : "") + (tile.pair ? "_pair" : "") +
         (tile.spread ? "_spread" : "") +
         (tile.clean == 1   ? "_cl"
          : tile.clean == 2 ? "_wv"
          : tile.clean == 3 ? "_wl"
                            : "") +
         (tile.raster > 0 ? "_r" + std::to_string(tile.raster) : "") +
         (tile.bulk == 1   ? "_bulk"
          : tile.bulk == 2 ? "_bulk2"
                           : "") +
         (tile.packed ? "_pk" : "") + (tile.ring > 0 ? "_ring" + std::to_string(tile.ring) : "") +
         (tile.double_buffered ? "_db" : "");
}

const char* pipe_only_knob() {
  static const std::string only = [] {
    const char* v = std::getenv("STAGEBENCH_PIPE_ONLY");
    const std::string name = v ? v : "";
    if (name.empty()) return name;
    for (const char* kind : {"f16", "tf32", "s8"}) {
      for (const PipeTile t : kPipeTiles)
        if (pipe_kernel_name(kind, t) == name) return name;
      for (const PipeTile t : kPipeTilesF16)
        if (std::strcmp(kind, "f16") == 0 && pipe_kernel_name(kind, t) == name) return name;
    }
    throw std::invalid_argument("STAGEBENCH_PIPE_ONLY=" + name +
                                ": no such mma.sync pipeline kernel");
  }();
  return only.c_str();
}

int parse_pipe_ring(const char* value) {
  return parse_knob("STAGEBENCH_PIPE_RING", value, 3, {{"3", 3}, {"4", 4}});
}

int pipe_ring_requested() {
  static const int ring = parse_pipe_ring(std::getenv("STAGEBENCH_PIPE_RING"));
  return ring;
}

bool OpenCLBackend::has_mma() const {
  if (!mma_probe_)
    mma_probe_ = runtime_->is_nvidia() && runtime_->compiles(kProbeSource, "", nullptr);
  return *mma_probe_;
}

bool OpenCLBackend::has_bulk_copies() const {
  if (!bulk_copies_)
    bulk_copies_ = has_mma() && wgmma::compute_capability(runtime_->device()()).major >= 9;
  return *bulk_copies_;
}

cl::Kernel& OpenCLBackend::mma_kernel(const std::string& name) {
  if (auto it = mma_kernels_.find(name); it != mma_kernels_.end()) return it->second;
  faults_.before_build(name);
  // mma39's bulk-copy variants are PTX of sm_90 (cp.async.bulk, mbarrier's expect_tx and
  // try_wait): an sm_80/sm_89 device, for which mma.sync is the path, gets the program without
  // them, which its compiler would reject whole.
  static const std::string sources[2] = {mma_program_source(false), mma_program_source(true)};
  const std::string& source = sources[has_bulk_copies() ? 1 : 0];
  // -cl-nv-maxrregcount of 64 to 128 measured no different on an H100 (Geneformer full, b32).
  // gemm36: STAGEBENCH_PIPE_RING=4 gives the GEMM pipeline's variants a 4-tile ring.
  const cl::Program& program =
      runtime_->program("nvidia_mma", source,
                        std::string("-cl-std=CL1.2 -DREDUCE_WG=256") +
                            (pipe_ring_requested() == 4 ? " -DPIPE_RING=4" : ""));
  return mma_kernels_.emplace(name, cl::Kernel(program, name.c_str())).first->second;
}

void OpenCLBackend::linear_mma(const Tensor& x, const Weight& w, Tensor& y, const Epilogue& ep,
                               int64_t m) {
  if (!has_mma())
    throw std::invalid_argument(std::string("linear: ") + precision_name(w.precision) +
                                " needs the NVIDIA tensor-core kernels, which " + device_name_ +
                                " does not take");
  if (w.precision == Precision::int8) {
    linear_mma_s8(x, w, y, ep, m);
    return;
  }
  const bool tf32 = w.precision == Precision::tf32;
  require(w.data.dtype() == (tf32 ? DType::f32 : DType::f16), "linear",
          std::string("weight data is ") + dtype_name(w.data.dtype()) + " for " +
              precision_name(w.precision));
  if (gemm_pipelined(w.precision, w.k)) {
    if (tf32) return gemm_pipelined_mma(PipeKind::tf32, x, w.data, y, ep, m, w.n, w.k);
    // cp.async copies bytes: x must be half in global memory. A half-precision stage's
    // producers write it so (issue 27); fp32 x is converted first (6 bytes an element moved,
    // against 2 K N / (128 x 256 tile) flops per element in the GEMM).
    if (x.dtype() == DType::f16) {
      gemm_pipelined_mma(PipeKind::f16, x, w.data, y, ep, m, w.n, w.k);
      return;
    }
    Tensor xh = do_empty({m, w.k}, DType::f16);
    to_half(x, xh, m * w.k);
    gemm_pipelined_mma(PipeKind::f16, xh, w.data, y, ep, m, w.n, w.k);
    return;
  }
  // The register-staged kernels read and write fp32 only (no EPI_HALF_OUT in their epilogue).
  require(x.dtype() == DType::f32 && y.dtype() == DType::f32, "linear",
          "f16 activations need K a multiple of 8 (the pipelined kernels); K is " +
              std::to_string(w.k));
  // Must match MMA_BM, MMA_BN and MMA_THREADS in kernels/gemm_mma_nvidia.cl.
  constexpr size_t kTile = 128, kThreads = 256;
  const cl::NDRange global(round_up(w.n, kTile) / kTile * kThreads, round_up(m, kTile) / kTile);
  count_gemm(tf32 ? PipeKind::tf32 : PipeKind::f16, GemmPath::mma_sync);
  launch_mma(tf32 ? "gemm_tf32_mma" : "gemm_f16_mma", global, cl::NDRange(kThreads, 1), x, w.data,
             ep.bias, ep.bias ? 1 : 0, static_cast<int>(ep.act), ep.residual, ep.residual ? 1 : 0,
             m, w.n, w.k, y);
}

void OpenCLBackend::to_half(const Tensor& x, Tensor& xh, int64_t count) {
  constexpr size_t kItems = 256;
  const size_t items = static_cast<size_t>((count + 3) / 4);
  launch_mma("f32_to_f16", cl::NDRange(round_up(items, kItems)), cl::NDRange(kItems), x, xh, count);
}

void OpenCLBackend::launch_pipe(PipeKind kind, PipeTile tile, const Tensor& x, const Tensor& w,
                                Tensor& y, const Epilogue& ep, int64_t m, int64_t n, int64_t k,
                                const PipeScales& s8, const PipeConv& conv) {
  // gemm34: the wgmma variant by its id (opencl_backend_impl.h's kWgmmaVariants).
  if (tile.wgmma) return launch_wgmma(tile.id ? tile.id : tile.bn, x, w, y, ep, m, n, k, conv);
  const auto threads = static_cast<size_t>(tile.threads());
  const cl::NDRange global(round_up(n, tile.bn) / tile.bn * threads,
                           round_up(m, kPipeTileM) / kPipeTileM);
  const std::string name = pipe_kernel(kind, tile);
  // mma39: the packed bulk forms read x and w packed into 128-row blocks (pipe_pack_f16), made
  // here on every call (a weight's could be kept; not yet), so that their time counts. w's rows
  // are padded to the tile's width (mma40: a 256-wide tile reads two blocks of 128 rows; padded
  // to 128, the last tile of an N of 257 to 384 read one block past the packed copy).
  std::optional<Tensor> xp, wp;
  if (tile.packed) {
    const auto pack = [&](const Tensor& src, int64_t rows, int64_t multiple) {
      const int64_t padded = round_up(rows, multiple);
      Tensor dst = do_empty({padded, k}, DType::f16);
      launch_mma("pipe_pack_f16", cl::NDRange(static_cast<size_t>(padded * k / 8)),
                 cl::NDRange(128), src, dst, to_cl_int(rows, "pack rows"), to_cl_int(k, "pack k"));
      return dst;
    };
    xp = pack(x, m, kPipeTileM);
    wp = pack(w, n, tile.bn);
  }
  cl::Kernel& kernel = mma_kernel(name);
  set_args(kernel, 0, xp ? *xp : x, wp ? *wp : w, ep.bias, ep.bias ? 1 : 0, epilogue_act(ep, y),
           ep.residual, ep.residual ? 1 : 0, to_cl_int(m, "linear m"), to_cl_int(n, "linear n"),
           to_cl_int(k, "linear k"), y, to_cl_int(conv.taps, "conv taps"),
           to_cl_int(conv.len, "conv length"));
  if (kind == PipeKind::s8)
    set_args(kernel, 13, *s8.col_scale, s8.x_scale, s8.x_scales, s8.x_scales ? 1 : 0);
  faults_.before_launch(name);
  events_.launch(name, kernel, global, cl::NDRange(threads, 1));
}

// The kernel for a shape: the first call times each (tile width, fragment buffering) on a
// scratch output (the product alone, without the epilogue, which costs the same in all) and
// keeps the fastest, as cuBLAS's heuristics pick a kernel per shape; autotune_choices() reports
// it. The candidates take turns (fastest_candidate): timed one after another, the first ones ran
// while the clocks were still rising and a 7% slower kernel won an 8192^3 GEMM on the H200.
// STAGEBENCH_MMA_GEMM=tile256|tile128
// restricts the width. The candidates are the path's: the wgmma kernels (both widths) when
// choose_gemm_path() sent the call there, else the mma.sync pipeline's four.
//
// With an epilogue `ep` (and its output's dtype `out`: tile_with_epilogue()), each candidate runs
// it into a scratch output of that dtype: a residual's read and the store are a large part of a
// short-K product's time, and the tile whose epilogue overlaps the others' main loops best is not
// the one that wins without it. Keyed by the epilogue's form as well as the shape.
PipeTile OpenCLBackend::pipe_tile(PipeKind kind, const Tensor& x, const Tensor& w, int64_t m,
                                  int64_t n, int64_t k, const PipeScales& s8, const PipeConv& conv,
                                  GemmPath path, const Epilogue& ep, DType out) {
  const bool with_epilogue = ep.bias || ep.residual || ep.act != Act::none || out != DType::f32;
  std::string key = std::string(conv.taps > 0 ? "conv1d " : "linear ") + pipe_name(kind) + " " +
                    std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) +
                    (path == GemmPath::wgmma ? " wgmma" : "");
  if (with_epilogue)
    key += " epilogue act" + std::to_string(static_cast<int>(ep.act)) +
           (out == DType::f16 ? " f16" : "") + (ep.bias ? " bias" : "") +
           (ep.residual ? " residual" : "");
  if (auto it = pipe_tiles_.find(key); it != pipe_tiles_.end()) return it->second;
  const int forced = forced_pipe_width();
  std::vector<PipeTile> tiles;
  const bool tf32 = kind == PipeKind::tf32;
  if (path == GemmPath::wgmma) {
    for (const PipeTile t : wgmma_tiles())  // gemm34: those built and checked at start-up
      // gemm35: the persistent variant only where it runs itself (launch_wgmma): plain products;
      // gemm36: the call's precision's variants only
      if (wgmma_programs_.contains(t.id) && wgmma_is_tf32(t.id) == tf32 &&
          !(wgmma_plain_only(t.id) && (with_epilogue || conv.taps > 0)))
        tiles.push_back(t);
    if (tiles.empty() && !tf32)  // STAGEBENCH_WGMMA_ONLY named a variant this call cannot take
      tiles.push_back(PipeTile{256, false, true, 256});
  }
  // gemm36: tf32 times the mma.sync pipeline's tiles beside its wgmma variants (a new path for
  // every tf32 product: where wgmma loses, a shape keeps the kernel it ran before).
  if (path != GemmPath::wgmma || tf32) {
    const std::string only = pipe_only_knob();  // mma37: one kernel alone, for A/B runs
    const auto add = [&](PipeTile tile) {
      // mma39: the bulk-copy form copies whole 128-byte K-tile rows (no zero fill, no taps)
      if (tile.bulk && (conv.taps > 0 || k % 64 != 0 || !has_bulk_copies())) return;
      if ((!forced || tile.bn == forced) && (only.empty() || only == pipe_kernel(kind, tile)))
        tiles.push_back(tile);
    };
    for (const PipeTile tile : kPipeTiles) add(tile);
    if (kind == PipeKind::f16)
      for (const PipeTile tile : kPipeTilesF16) add(tile);
    if (tiles.empty()) tiles.push_back(kPipeTiles[0]);  // the knob named another kind's kernel
  }
  Tensor scratch = do_empty({m, n}, out);
  const size_t best = fastest_candidate(tiles.size(), [&](size_t i) {
    launch_pipe(kind, tiles[i], x, w, scratch, ep, m, n, k, s8, conv);
  });
  return pipe_tiles_.emplace(key, tiles[best]).first->second;
}

size_t OpenCLBackend::fastest_candidate(size_t count, const std::function<void(size_t)>& launch) {
  constexpr int kTimedRuns = 5;  // after one untimed round (the program builds on first use)
  recorder_.refuse(
      "it times candidate kernels for a new shape (autotuning waits for the "
      "device; record a step that has run before)");  // replay35
  cl::CommandQueue& queue = runtime_->queue();
  std::vector<double> fastest(count, std::numeric_limits<double>::infinity());
  for (int run = 0; run <= kTimedRuns; ++run)
    for (size_t i = 0; i < count; ++i) {
      queue.finish();
      const auto t0 = std::chrono::steady_clock::now();
      launch(i);
      queue.finish();
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (run > 0) fastest[i] = std::min(fastest[i], seconds);
    }
  // Nothing queued is left: the candidates' scratch buffers may go back to the pool.
  return static_cast<size_t>(std::min_element(fastest.begin(), fastest.end()) - fastest.begin());
}

// Both on unless turned off (for A/B runs): with enf33's paths Enformer full's bf16 stage took
// 11.98 ms on an H200 against 13.80 without, in one call
// (results/h200/lead34-2026-11-29/README.md).
bool OpenCLBackend::conv_fast_loads() {
  static const bool on = read_on_off_knob("STAGEBENCH_CONV_FAST_LOADS");
  return on;
}

bool OpenCLBackend::tile_with_epilogue() {
  static const bool on = read_on_off_knob("STAGEBENCH_TILE_WITH_EPILOGUE");
  return on;
}

void OpenCLBackend::gemm_pipelined_mma(PipeKind kind, const Tensor& x, const Tensor& w, Tensor& y,
                                       const Epilogue& ep, int64_t m, int64_t n, int64_t k,
                                       const PipeScales& s8, const PipeConv& conv) {
  const GemmPath path =
      choose_gemm_path(wgmma_device_, wgmma_knob_,
                       {kind == PipeKind::f16, m, n, k, conv.taps, kind == PipeKind::tf32});
  const bool heavy_epilogue = ep.residual != nullptr || y.dtype() == DType::f16;
  const PipeTile tile = heavy_epilogue && tile_with_epilogue()
                            ? pipe_tile(kind, x, w, m, n, k, s8, conv, path, ep, y.dtype())
                            : pipe_tile(kind, x, w, m, n, k, s8, conv, path);
  // The path that runs: a tf32 call offered wgmma may have measured mma.sync faster (gemm36).
  count_gemm(kind, tile.wgmma ? GemmPath::wgmma : GemmPath::mma_sync);
  launch_pipe(kind, tile, x, w, y, ep, m, n, k, s8, conv);
}

PipeScales OpenCLBackend::quantize_s8(const Tensor& x, int64_t count, const Weight& w, Tensor& xq,
                                      Tensor& scales) {
  constexpr size_t kItems = 256;
  const size_t items = static_cast<size_t>((count + 3) / 4);
  const int n = to_cl_int(count, "int8 input");
  const int half_in = x.dtype() == DType::f16 ? 1 : 0;
  if (w.calibrated()) {
    const float sx = std::max(std::abs(w.input_lo), std::abs(w.input_hi)) / 127.f;
    launch_mma("f32_to_s8", cl::NDRange(round_up(items, kItems)), cl::NDRange(kItems), x, xq,
               1.f / sx, n, half_in);
    return {&w.scales, sx};
  }
  constexpr size_t kGroups = 1024;  // must match ABSMAX_GROUPS in kernels/gemm_pipelined.cl
  Tensor partial = do_empty({static_cast<int64_t>(kGroups)}, DType::f32);
  scales = do_empty({2}, DType::f32);
  launch_mma("absmax_partial", cl::NDRange(kGroups * kItems), cl::NDRange(kItems), x, n, partial,
             half_in);
  launch_mma("absmax_scales", cl::NDRange(kItems), cl::NDRange(kItems), partial, scales);
  launch_mma("f32_to_s8_dynamic", cl::NDRange(round_up(items, kItems)), cl::NDRange(kItems), x, xq,
             scales, n, half_in);
  return {&w.scales, 0.f, &scales};
}

void OpenCLBackend::linear_mma_s8(const Tensor& x, const Weight& w, Tensor& y, const Epilogue& ep,
                                  int64_t m) {
  require(w.data.dtype() == DType::i8 && w.scales.defined(), "linear",
          "the int8 tensor-core GEMM needs an int8 weight with scales");
  if (gemm_pipelined(Precision::int8, w.k)) {
    // cp.async copies bytes: x is quantized into int8 in global memory first.
    Tensor xq = do_empty({m, w.k}, DType::i8), scales;
    const PipeScales s8 = quantize_s8(x, m * w.k, w, xq, scales);
    gemm_pipelined_mma(PipeKind::s8, xq, w.data, y, ep, m, w.n, w.k, s8);
    return;
  }
  require(w.calibrated(), "linear",
          "int8 tensor cores with K not a multiple of 16 need a calibrated input range");
  require(x.dtype() == DType::f32 && y.dtype() == DType::f32, "linear",
          "int8 tensor cores with K not a multiple of 16 take and give fp32 activations");
  const float sx = std::max(std::abs(w.input_lo), std::abs(w.input_hi)) / 127.f;
  constexpr size_t kTile = 128, kThreads = 256;
  const cl::NDRange global(round_up(w.n, kTile) / kTile * kThreads, round_up(m, kTile) / kTile);
  count_gemm(PipeKind::s8, GemmPath::mma_sync);
  launch_mma("gemm_s8_mma", global, cl::NDRange(kThreads, 1), x, w.data, ep.bias, ep.bias ? 1 : 0,
             static_cast<int>(ep.act), ep.residual, ep.residual ? 1 : 0, m, w.n, w.k, y, w.scales,
             1.f / sx, sx);
}

}  // namespace sb
