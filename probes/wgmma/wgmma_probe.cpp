// wgmma_probe: does Hopper's wgmma.mma_async run from NVIDIA's OpenCL? (issue 27, part 3's
// first step; docs/wgmma.md has the answer and the figures.)
//
// Why this exists: our f16 GEMM on NVIDIA is our own OpenCL kernel (mma.sync through inline PTX),
// because no OpenCL library reaches the tensor cores; cuBLAS's speed on Hopper comes from wgmma,
// which the OpenCL compiler rejects. This program builds wgmma_gemm.cl with the instructions
// written as PTX comments, patches the PTX (models/ops/opencl/wgmma_ptx.h), builds that through
// clCreateProgramWithBinary, and checks and times the result:
//   tile  one warpgroup, D[64, 64] = A[64, K] B[64, K]^T, K = 16 and 64, against a CPU reference,
//         with the 128-byte swizzle and without swizzle (both offset assignments);
//   gemm  the 128 x 128 and 128 x 256 wgmma GEMMs, and the project's mma.sync pipeline
//         (models/ops/opencl/kernels: since mma37 the forms of kMmaForms, among them timing-only
//         ones that leave a part of the K loop out; MMA_FORMS=a,b picks some) on the
//         same inputs: checked (a full CPU reference at a small size; sampled entries and the
//         two kernels against each other at the timed sizes), then timed with OpenCL profiling
//         events, variants in turn each round, median of the rounds after warm-up.
// Without a GPU: `--emit SRC.cl` writes the wgmma program's source, `--patch IN OUT` patches a
// PTX file, with an optional register cap (for checking the text with ptxas on a machine that
// has no NVIDIA driver).
//
// Usage: wgmma_probe --kernels DIR --mma-kernels DIR --out DIR [--phase tile|gemm|mma]
//                    [--sizes 4096,8192] [--rounds 15]
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/ops/opencl/wgmma_program.h"
#include "probes/wgmma/probe_cl.h"
#include "probes/wgmma/probe_numerics.h"

namespace {

using namespace probe;  // NOLINT: the probe's own helpers (probe_cl.h, probe_numerics.h)
using sb::wgmma::Patched;

std::string wgmma_source(const std::string& kernels_dir) {
  return sb::wgmma::helpers({64, 128, 256}) + read_file(kernels_dir + "/wgmma_gemm.cl");
}

// ---- phase tile -------------------------------------------------------------------------
int phase_tile(const Cl& cl, const std::string& kdir, const std::string& out) {
  cl_program p = build_wgmma(cl, wgmma_source(kdir), "-cl-std=CL1.2 -DSBW_TILE", out, "tile");
  cl_int err;
  cl_kernel k = clCreateKernel(p, "wgmma_tile", &err);
  check(err, "clCreateKernel wgmma_tile");
  int failures = 0;
  struct Mode {
    const char* name;
    int mode, lbo, sbo;
  };
  const Mode modes[] = {{"128B swizzle (LBO 16, SBO 1024)", 1, 16, 1024},
                        {"no swizzle, LBO 1024 (K) SBO 128 (M)", 0, 1024, 128},
                        {"no swizzle, LBO 128 SBO 1024", 0, 128, 1024}};
  uint64_t seed = 1;
  for (const int K : {16, 64}) {
    for (const Mode& md : modes) {
      const auto a = random_halves(64 * K, seed++), b = random_halves(64 * K, seed++);
      cl_mem ba = buffer(cl, a.size() * 2, a.data()), bb = buffer(cl, b.size() * 2, b.data());
      cl_mem bd = buffer(cl, 64 * 64 * 4);
      poison(cl, bd, 64 * 64);
      set_arg(k, 0, ba);
      set_arg(k, 1, bb);
      set_arg(k, 2, bd);
      set_arg(k, 3, K);
      set_arg(k, 4, md.mode);
      set_arg(k, 5, md.lbo);
      set_arg(k, 6, md.sbo);
      std::string result;
      try {
        run_timed(cl, k, 128, 128);
        const Check c = check_against_ref(read_floats(cl, bd, 64 * 64), a, b, 64, 64, K, {});
        result = c.text();
        if (!c.pass()) ++failures;
      } catch (const std::exception& e) {
        result = std::string("ERROR ") + e.what();
        ++failures;
      }
      std::printf("tile m64n64, K %d, %s: %s\n", K, md.name, result.c_str());
      clReleaseMemObject(ba);
      clReleaseMemObject(bb);
      clReleaseMemObject(bd);
    }
  }
  clReleaseKernel(k);
  clReleaseProgram(p);
  return failures;
}

// ---- phase gemm -------------------------------------------------------------------------
struct Variant {
  std::string name;
  cl_kernel kernel = nullptr;
  size_t global = 0, local = 0, global_y = 1;
  std::function<void(cl_kernel, cl_mem, cl_mem, cl_mem, int, int, int)> args;
  std::function<void(int, int, Variant&)> grid;  // sets global, global_y for M, N
  int bm = 128, bn = 128;
  bool timing_only = false;  // mma37's PIPE_PROBE forms: wrong products by design, timed only
  // mma39's PIPE_PACKED forms: x and w packed by the program's pipe_pack_f16 once per size,
  // outside the timing (the op layer packs on every call: the stage counts it)
  cl_kernel pack = nullptr;
};

// The project's mma.sync pipeline kernel `name` (gemm_pipe_body.cl) with `defines`: the tile
// (bn, threads) and mma37's forms (PIPE_MI, PIPE_PAIR, PIPE_OWN_RING, PIPE_PROBE).
std::string mma_source(const std::string& dir, const std::string& name, int bn, int threads,
                       const std::string& defines) {
  std::string codes;
  try {
    codes = read_file(dir + "/activation_codes.h");  // common.cl's SB_ACT_* (since gemm34)
  } catch (const std::exception&) {
  }
  // The probe runs on sm_90 only (wgmma's), so the bulk-copy helpers are always in.
  return codes + "\n" + read_file(dir + "/common.cl") + "\n" +
         read_file(dir + "/gemm_mma_nvidia.cl") + "\n#define PIPE_HAS_BULK 1\n" +
         read_file(dir + "/gemm_pipelined.cl") + "\n#define PIPE_NAME " + name +
         "\n#define PIPE_BN " + std::to_string(bn) + "\n#define PIPE_THREADS " +
         std::to_string(threads) +
         "\n#define PIPE_ELEM ushort\n#define PIPE_MMA mma_f16\n"
         "#define PIPE_FRAG(r) (r)\n#define PIPE_ACC float\n#define PIPE_EXTRA_PARAMS\n"
         "#define PIPE_SCALE_ARGS bias, 0.0f, 0\n" +
         defines + read_file(dir + "/gemm_pipe_body.cl");
}

// mma37: the pipeline's forms timed side by side (the op layer's, and the probe's timing-only
// ones with a part of the K loop left out: PIPE_PROBE in gemm_pipe_body.cl).
struct MmaForm {
  const char* name;  // the kernel's name here (the op layer's where it is one of its kernels)
  int bn, threads;
  const char* defines;
  const char* what;
};
const MmaForm kMmaForms[] = {
    {"gemm_f16_pipe_256_db", 256, 256, "#define PIPE_DOUBLE_BUFFER 1\n",
     "128x256x64, 8 warps of 64x64, 3-tile ring, fragments double-buffered (the default)"},
    {"gemm_f16_pipe_256_db_ring4", 256, 256,
     "#define PIPE_DOUBLE_BUFFER 1\n#define PIPE_OWN_RING 4\n",
     "as the default, 4-tile ring (STAGEBENCH_PIPE_RING=4)"},
    {"gemm_f16_pipe_128_db", 128, 128, "#define PIPE_DOUBLE_BUFFER 1\n",
     "128x128x64, 4 warps of 64x64, 3-tile ring, double-buffered"},
    {"gemm_f16_pipe_256", 256, 256, "#define PIPE_DOUBLE_BUFFER 0\n",
     "128x256x64, 8 warps, 3-tile ring, one set of fragments"},
    {"gemm_f16_pipe_256_pair_db", 256, 256, "#define PIPE_DOUBLE_BUFFER 1\n#define PIPE_PAIR 1\n",
     "mma37: 8 warps, two K tiles a barrier, 4-tile ring, double-buffered"},
    {"gemm_f16_pipe_256_fc_db", 256, 256, "#define PIPE_DOUBLE_BUFFER 1\n#define PIPE_FAST 1\n",
     "mma37: the default with its copies set up once"},
    {"gemm_f16_pipe_256_fc_db_ring4", 256, 256,
     "#define PIPE_DOUBLE_BUFFER 1\n#define PIPE_FAST 1\n#define PIPE_OWN_RING 4\n",
     "mma37: copies set up once, 4-tile ring"},
    {"gemm_f16_pipe_256_fc_pair_db", 256, 256,
     "#define PIPE_DOUBLE_BUFFER 1\n#define PIPE_FAST 1\n#define PIPE_PAIR 1\n",
     "mma37: copies set up once, two K tiles a barrier"},
    {"gemm_f16_pipe_256_spread_db", 256, 256,
     "#define PIPE_DOUBLE_BUFFER 1\n#define PIPE_FAST 1\n#define PIPE_SPREAD 1\n",
     "mma37: copies set up once and spread over the k steps, 4-tile ring"},
    {"gemm_f16_pipe_256_spread_r8_db", 256, 256,
     "#define PIPE_DOUBLE_BUFFER 1\n#define PIPE_FAST 1\n#define PIPE_SPREAD 1\n#define "
     "PIPE_RASTER "
     "8\n",
     "mma38: spread, tiles in bands of 8 tile rows"},
    {"gemm_f16_pipe_256_spread_cl_db", 256, 256,
     "#define PIPE_DOUBLE_BUFFER 1\n#define PIPE_FAST 1\n#define PIPE_SPREAD 1\n#define PIPE_CLEAN "
     "1\n",
     "mma38: spread, the steady loop's copies without bounds or branches"},
    {"gemm_f16_pipe_256_spread_wv_db", 256, 256,
     "#define PIPE_DOUBLE_BUFFER 1\n#define PIPE_FAST 1\n#define PIPE_SPREAD 1\n#define PIPE_CLEAN "
     "2\n",
     "mma38: spread, the steady loop's copies woven one a row of mma"},
    {"gemm_f16_pipe_256_spread_wl_db", 256, 256,
     "#define PIPE_DOUBLE_BUFFER 1\n#define PIPE_FAST 1\n#define PIPE_SPREAD 1\n#define PIPE_CLEAN "
     "3\n",
     "mma38: spread, the steady loop's copies and next fragments woven into the rows of mma"},
    {"gemm_f16_pipe_256_spread_wl_r8_db", 256, 256,
     "#define PIPE_DOUBLE_BUFFER 1\n#define PIPE_FAST 1\n#define PIPE_SPREAD 1\n#define PIPE_CLEAN "
     "3\n#define PIPE_RASTER 8\n",
     "mma38: copies and fragments woven, bands of 8 tile rows"},
    {"gemm_f16_pipe_256_spread_cl_r8_db", 256, 256,
     "#define PIPE_DOUBLE_BUFFER 1\n#define PIPE_FAST 1\n#define PIPE_SPREAD 1\n#define PIPE_CLEAN "
     "1\n#define PIPE_RASTER 8\n",
     "mma38: steady loop without bounds, bands of 8 tile rows"},
    {"gemm_f16_pipe_256_spread_wv_r8_db", 256, 256,
     "#define PIPE_DOUBLE_BUFFER 1\n#define PIPE_FAST 1\n#define PIPE_SPREAD 1\n#define PIPE_CLEAN "
     "2\n#define PIPE_RASTER 8\n",
     "mma38: woven copies, bands of 8 tile rows"},
    {"gemm_f16_pipe_256_spread_wv_r16_db", 256, 256,
     "#define PIPE_DOUBLE_BUFFER 1\n#define PIPE_FAST 1\n#define PIPE_SPREAD 1\n#define PIPE_CLEAN "
     "2\n#define PIPE_RASTER 16\n",
     "mma38: woven copies, bands of 16 tile rows"},
    {"gemm_f16_pipe_256_bulk_db", 256, 256, "#define PIPE_DOUBLE_BUFFER 1\n#define PIPE_BULK 1\n",
     "mma39: ring of 4 filled by cp.async.bulk rows (144-byte rows, mbarriers)"},
    {"gemm_f16_pipe_256_bulk2_db", 256, 256, "#define PIPE_DOUBLE_BUFFER 1\n#define PIPE_BULK 2\n",
     "mma39: bulk copies, the slots released by mbarriers (no barrier in the K loop)"},
    {"gemm_f16_pipe_256_bulk_pk_db", 256, 256,
     "#define PIPE_DOUBLE_BUFFER 1\n#define PIPE_BULK 1\n#define PIPE_PACKED 1\n",
     "mma39: operands packed first (not timed here), three 16 KB bulk copies a slot"},
    {"gemm_f16_pipe_256_bulk2_pk_db", 256, 256,
     "#define PIPE_DOUBLE_BUFFER 1\n#define PIPE_BULK 2\n#define PIPE_PACKED 1\n",
     "mma39: packed, bulk copies, slots released by mbarriers"},
    {"gemm_f16_pipe_256_bulk2_pk_r8_db", 256, 256,
     "#define PIPE_DOUBLE_BUFFER 1\n#define PIPE_BULK 2\n#define PIPE_PACKED 1\n#define "
     "PIPE_RASTER 8\n",
     "mma39: packed, mbarrier release, bands of 8 tile rows"},
    {"gemm_f16_pipe_256_bulk2_pk_at0_db", 256, 256,
     "#define PIPE_DOUBLE_BUFFER 1\n#define PIPE_BULK 2\n#define PIPE_PACKED 1\n#define "
     "PIPE_BULK_AT 0\n",
     "mma39: packed, mbarrier release, the next copies after k step 0 (not 1)"},
    {"gemm_f16_pipe_256_bulk2_pk_at2_db", 256, 256,
     "#define PIPE_DOUBLE_BUFFER 1\n#define PIPE_BULK 2\n#define PIPE_PACKED 1\n#define "
     "PIPE_BULK_AT 2\n",
     "mma39: packed, mbarrier release, the next copies after k step 2 (not 1)"},
    {"gemm_f16_pipe_256_bulk2_pk_ps_db", 256, 256,
     "#define PIPE_DOUBLE_BUFFER 1\n#define PIPE_BULK 2\n#define PIPE_PACKED 1\n#define "
     "PIPE_PERSIST 1\n",
     "mma40: packed, mbarrier release, persistent (a work-group an SM), stored from registers"},
    {"gemm_f16_pipe_256_r8_bulk2_pk_ps_db", 256, 256,
     "#define PIPE_DOUBLE_BUFFER 1\n#define PIPE_BULK 2\n#define PIPE_PACKED 1\n#define "
     "PIPE_PERSIST 1\n#define PIPE_RASTER 8\n",
     "mma40: as the last, in bands of 8 tile rows"},
    {"gemm_f16_pipe_256_r8_bulk2_pk_psd_db", 256, 256,
     "#define PIPE_DOUBLE_BUFFER 1\n#define PIPE_BULK 2\n#define PIPE_PACKED 1\n#define "
     "PIPE_PERSIST 2\n#define PIPE_RASTER 8\n#undef PIPE_EXTRA_PARAMS\n#define "
     "PIPE_EXTRA_PARAMS , __global int* tile_counter\n",
     "mma40: persistent, bands of 8 tile rows, each next tile from a counter (dynamic)"},
    {"gemm_f16_pipe_256_bulk_ring3_db", 256, 256,
     "#define PIPE_DOUBLE_BUFFER 1\n#define PIPE_BULK 1\n#define PIPE_OWN_RING 3\n",
     "mma39: ring of 3 filled by cp.async.bulk rows"},
    {"gemm_f16_pipe_128_spread_db", 128, 128,
     "#define PIPE_DOUBLE_BUFFER 1\n#define PIPE_FAST 1\n#define PIPE_SPREAD 1\n",
     "mma37: 128x128, copies set up once and spread, 4-tile ring (two work-groups an SM)"},
    {"gemm_f16_pipe_256_w16", 256, 512, "#define PIPE_DOUBLE_BUFFER 0\n#define PIPE_MI 2\n",
     "mma37: 16 warps of 32x64, 3-tile ring, one set of fragments"},
    {"gemm_f16_pipe_256_w16_spread_db", 256, 512,
     "#define PIPE_DOUBLE_BUFFER 1\n#define PIPE_MI 2\n#define PIPE_FAST 1\n#define PIPE_SPREAD "
     "1\n",
     "mma37: 16 warps of 32x64, copies set up once and spread, double-buffered"},
    {"probe_nocopy", 256, 256, "#define PIPE_DOUBLE_BUFFER 1\n#define PIPE_PROBE 1\n",
     "TIMING ONLY: the default without the K loop's copies and waits"},
    {"probe_nobarrier", 256, 256, "#define PIPE_DOUBLE_BUFFER 1\n#define PIPE_PROBE 2\n",
     "TIMING ONLY: without copies, waits and barriers"},
    {"probe_noldmatrix", 256, 256, "#define PIPE_DOUBLE_BUFFER 1\n#define PIPE_PROBE 3\n",
     "TIMING ONLY: without copies, waits, barriers and ldmatrix (mma and epilogue)"},
};

// The program's PTX (what NVIDIA's OpenCL compiler made), for ptxas -v and cuobjdump there.
void write_ptx(cl_program p, const std::string& path) {
  size_t size = 0;
  if (clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr) != CL_SUCCESS ||
      size == 0)
    return;
  std::string bin(size, '\0');
  unsigned char* ptr = reinterpret_cast<unsigned char*>(bin.data());
  if (clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof ptr, &ptr, nullptr) != CL_SUCCESS) return;
  while (!bin.empty() && bin.back() == '\0') bin.pop_back();
  write_file(path, bin);
}

struct Gemm {
  int bn, stages, maxnreg = 0;  // maxnreg 128: two work-groups an SM (with 3 stages' 97 KB)
  bool drain = false;           // GEMM_DRAIN: wait_group 0 each K tile, one more tile ahead
  int ahead() const { return drain ? stages - 1 : stages - 2; }
};

int phase_gemm(const Cl& cl, const std::string& kdir, const std::string& mdir,
               const std::string& out, const std::vector<int>& sizes, int rounds, bool wgmma,
               bool mma) {
  std::vector<Variant> vs;
  std::vector<cl_program> programs;
  if (wgmma) {
    // Run 1 and 2 (2026-11-27) also had {128, 3, 128} and {256, 3}: 421 and 318 TFLOP/s at
    // 8192^3, one tile ahead being too few.
    for (const Gemm g : {Gemm{128, 4}, Gemm{128, 6}, Gemm{256, 4}, Gemm{256, 4, 0, true}}) {
      const std::string name = "wgmma_" + std::to_string(g.bn) + "_s" + std::to_string(g.stages) +
                               (g.maxnreg ? "_r" + std::to_string(g.maxnreg) : "") +
                               (g.drain ? "_drain" : "");
      const std::string opts = "-cl-std=CL1.2 -DGEMM_BN=" + std::to_string(g.bn) +
                               " -DGEMM_STAGES=" + std::to_string(g.stages) +
                               " -DGEMM_WAIT_COPIES=" + std::to_string(g.ahead() - 1) +
                               (g.drain ? " -DGEMM_DRAIN" : "");
      try {
        cl_program p = build_wgmma(cl, wgmma_source(kdir), opts, out, name, g.maxnreg);
        cl_int err;
        Variant v;
        v.name = name + " (wgmma m64n" + std::to_string(g.bn) + "k16, 128x" + std::to_string(g.bn) +
                 "x64, " + std::to_string(g.stages) + " stages, " + std::to_string(g.ahead()) +
                 " ahead" + (g.maxnreg ? ", .maxnreg " + std::to_string(g.maxnreg) : "") + ")";
        v.kernel = clCreateKernel(p, "wgmma_gemm", &err);
        check(err, "clCreateKernel wgmma_gemm");
        v.local = 256;
        v.bn = g.bn;
        v.args = [](cl_kernel k, cl_mem a, cl_mem b, cl_mem c, int M, int N, int K) {
          set_arg(k, 0, a);
          set_arg(k, 1, b);
          set_arg(k, 2, c);
          set_arg(k, 3, M);
          set_arg(k, 4, N);
          set_arg(k, 5, K);
        };
        v.grid = [](int M, int N, Variant& v) {
          v.global = static_cast<size_t>(M / 128) * (N / v.bn) * 256;
          v.global_y = 1;
        };
        programs.push_back(p);
        vs.push_back(v);
      } catch (const std::exception& e) {
        std::printf("%s: BUILD FAILED: %s\n", name.c_str(), e.what());
      }
    }
  }
  if (mma) {
    const char* only = std::getenv("MMA_FORMS");  // a comma list of names, or all
    for (const MmaForm& f : kMmaForms) {
      const std::string name = f.name;
      if (only && *only &&
          ("," + std::string(only) + ",").find("," + name + ",") == std::string::npos)
        continue;
      try {
        cl_program p = build_source(cl, mma_source(mdir, name, f.bn, f.threads, f.defines),
                                    "-cl-std=CL1.2 -DREDUCE_WG=256 -cl-nv-verbose", out, name);
        write_ptx(p, out + "/" + name + ".ptx");
        cl_int err;
        Variant v;
        v.name = name + " (" + f.what + ")";
        v.kernel = clCreateKernel(p, name.c_str(), &err);
        check(err, "clCreateKernel " + name);
        v.local = static_cast<size_t>(f.threads);
        v.bn = f.bn;
        v.timing_only = name.rfind("probe_", 0) == 0;
        if (std::string(f.defines).find("PIPE_PACKED 1") != std::string::npos) {
          v.pack = clCreateKernel(p, "pipe_pack_f16", &err);
          check(err, "clCreateKernel pipe_pack_f16");
        }
        // mma40: the dynamic persistent forms' tile counter (zero; the kernel leaves it zero)
        cl_mem counter = nullptr;
        if (std::string(f.defines).find("PIPE_PERSIST 2") != std::string::npos) {
          const int zero_count = 0;
          counter = buffer(cl, sizeof zero_count, &zero_count);
        }
        v.args = [counter](cl_kernel k, cl_mem a, cl_mem b, cl_mem c, int M, int N, int K) {
          if (counter) set_arg(k, 13, counter);
          const cl_mem none = nullptr;
          const int zero = 0;
          set_arg(k, 0, a);
          set_arg(k, 1, b);
          set_arg(k, 2, none);
          set_arg(k, 3, zero);
          set_arg(k, 4, zero);
          set_arg(k, 5, none);
          set_arg(k, 6, zero);
          set_arg(k, 7, M);
          set_arg(k, 8, N);
          set_arg(k, 9, K);
          set_arg(k, 10, c);
          set_arg(k, 11, zero);
          set_arg(k, 12, zero);
        };
        // mma40: the persistent forms take one work-group a compute unit, a 1D grid
        const bool persist = std::string(f.defines).find("PIPE_PERSIST 1") != std::string::npos;
        cl_uint units = 0;
        check(
            clGetDeviceInfo(cl.device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, nullptr),
            "CL_DEVICE_MAX_COMPUTE_UNITS");
        v.grid = [persist, units](int M, int N, Variant& v) {
          const size_t tiles = static_cast<size_t>(N / v.bn) * static_cast<size_t>(M / 128);
          v.global = persist ? std::min<size_t>(tiles, units) * v.local
                             : static_cast<size_t>(N / v.bn) * v.local;
          v.global_y = persist ? 1 : static_cast<size_t>(M / 128);
        };
        programs.push_back(p);
        vs.push_back(v);
      } catch (const std::exception& e) {
        std::printf("%s: BUILD FAILED: %s\n", name.c_str(), e.what());
      }
    }
  }
  if (vs.empty()) return 1;
  int failures = 0;
  std::vector<bool> broken(vs.size(), false);
  std::ofstream json(out + "/gemm.json");
  json << "{\n  \"device\": \"" << cl.device_name << "\", \"driver\": \"" << cl.driver
       << "\",\n  \"timing\": \"OpenCL profiling events (COMMAND_START..END), variants in turn "
          "each round, median of the rounds after 3 warm-up rounds\",\n  \"results\": [\n";
  bool first_json = true;

  // Sizes: a small one with a full CPU reference, then the timed ones.
  std::vector<int> all_sizes = {-1};
  all_sizes.insert(all_sizes.end(), sizes.begin(), sizes.end());
  uint64_t seed = 100;
  for (const int size : all_sizes) {
    const int M = size < 0 ? 256 : size, N = size < 0 ? 512 : size, K = size < 0 ? 1024 : size;
    const auto a = random_halves(static_cast<size_t>(M) * K, seed++);
    const auto b = random_halves(static_cast<size_t>(N) * K, seed++);
    cl_mem ba = buffer(cl, a.size() * 2, a.data()), bb = buffer(cl, b.size() * 2, b.data());
    // mma39: the packed forms' operands (pipe_pack_f16: 128-row blocks, rows padded to 128)
    cl_mem pa = nullptr, pb = nullptr;
    for (const Variant& v : vs)
      if (v.pack && !pa) {
        const auto pack = [&](cl_mem src, int rows) {
          const int padded = (rows + 127) / 128 * 128;
          cl_mem dst = buffer(cl, static_cast<size_t>(padded) * K * 2);
          set_arg(v.pack, 0, src);
          set_arg(v.pack, 1, dst);
          set_arg(v.pack, 2, rows);
          set_arg(v.pack, 3, K);
          const double t = run_timed(cl, v.pack, static_cast<size_t>(padded) * K / 8, 128);
          std::printf("pack %dx%d: %.3f ms\n", rows, K, t * 1e3);
          return dst;
        };
        pa = pack(ba, M);
        pb = pack(bb, N);
      }
    const size_t cn = static_cast<size_t>(M) * N;
    std::vector<cl_mem> outs;
    std::vector<std::pair<int, int>> pairs;
    std::mt19937 rng(static_cast<unsigned>(seed));
    if (size > 0)
      for (int i = 0; i < 2048; ++i) pairs.emplace_back(rng() % M, rng() % N);
    std::vector<float> first_out;
    std::string first_name;
    for (size_t vi = 0; vi < vs.size(); ++vi) {
      Variant& v = vs[vi];
      cl_mem bc = buffer(cl, cn * 4);
      outs.push_back(bc);
      if (broken[vi]) continue;
      poison(cl, bc, cn);
      v.grid(M, N, v);
      v.args(v.kernel, v.pack ? pa : ba, v.pack ? pb : bb, bc, M, N, K);
      std::string result;
      try {
        run_timed(cl, v.kernel, v.global, v.local, v.global_y);
        const auto got = read_floats(cl, bc, cn);
        const Check c = check_against_ref(got, a, b, M, N, K, pairs);
        result = c.text() + (size < 0 ? " (full CPU reference)" : " (2048 sampled entries)");
        if (v.timing_only) {
          result = "timing only (products wrong by design): " + result;
        } else if (!c.pass()) {
          ++failures;
          broken[vi] = true;
        }
        if (v.timing_only) {
        } else if (first_out.empty()) {
          first_out = got;
          first_name = v.name.substr(0, v.name.find(' '));
        } else {
          result += "; against " + first_name + ": " + check_against(got, first_out).text();
        }
      } catch (const std::exception& e) {
        result = std::string("ERROR ") + e.what();
        ++failures;
        broken[vi] = true;
      }
      std::printf("check %dx%dx%d %s: %s\n", M, N, K, v.name.c_str(), result.c_str());
      std::fflush(stdout);
    }
    if (size > 0) {
      std::vector<std::vector<double>> times(vs.size());
      for (int r = 0; r < rounds + 3; ++r)
        for (size_t vi = 0; vi < vs.size(); ++vi) {
          if (broken[vi]) continue;
          Variant& v = vs[vi];
          v.args(v.kernel, v.pack ? pa : ba, v.pack ? pb : bb, outs[vi], M, N, K);
          const double t = run_timed(cl, v.kernel, v.global, v.local, v.global_y);
          if (r >= 3) times[vi].push_back(t);
        }
      for (size_t vi = 0; vi < vs.size(); ++vi) {
        if (broken[vi]) continue;
        auto t = times[vi];
        std::sort(t.begin(), t.end());
        const double med = t[t.size() / 2], flops = 2.0 * M * N * static_cast<double>(K);
        std::printf(
            "time %d^3 %-60s median %8.3f ms  %6.1f TFLOP/s  (min %.3f max %.3f ms, %zu runs)\n",
            size, vs[vi].name.c_str(), med * 1e3, flops / med / 1e12, t.front() * 1e3,
            t.back() * 1e3, t.size());
        json << (first_json ? "" : ",\n") << "    {\"kernel\": \"" << vs[vi].name
             << "\", \"m\": " << M << ", \"n\": " << N << ", \"k\": " << K
             << ", \"median_ms\": " << med * 1e3 << ", \"tflops\": " << flops / med / 1e12
             << ", \"min_ms\": " << t.front() * 1e3 << ", \"max_ms\": " << t.back() * 1e3
             << ", \"runs\": " << t.size() << ", \"samples_ms\": [";
        for (size_t i = 0; i < times[vi].size(); ++i) json << (i ? ", " : "") << times[vi][i] * 1e3;
        json << "]}";
        first_json = false;
      }
      std::fflush(stdout);
    }
    for (cl_mem m : outs) clReleaseMemObject(m);
    clReleaseMemObject(ba);
    clReleaseMemObject(bb);
    if (pa) clReleaseMemObject(pa);
    if (pb) clReleaseMemObject(pb);
  }
  json << "\n  ]\n}\n";
  for (auto& v : vs) {
    clReleaseKernel(v.kernel);
    if (v.pack) clReleaseKernel(v.pack);
  }
  for (auto p : programs) clReleaseProgram(p);
  return failures;
}

std::vector<int> parse_sizes(const std::string& s) {
  std::vector<int> v;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) v.push_back(std::stoi(item));
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  std::map<std::string, std::string> opt = {{"--kernels", "probes/wgmma"},
                                            {"--mma-kernels", "models/ops/opencl/kernels"},
                                            {"--out", "."},
                                            {"--phase", "tile"},
                                            {"--sizes", "4096,8192"},
                                            {"--rounds", "15"}};
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      if (a == "--emit" && i + 1 < argc) {  // the wgmma program's source, for offline checks
        write_file(argv[i + 1], wgmma_source(opt["--kernels"]));
        return 0;
      }
      if (a == "--patch" && i + 2 < argc) {
        const int maxnreg = i + 3 < argc ? std::stoi(argv[i + 3]) : 0;
        const Patched p = sb::wgmma::patch(read_file(argv[i + 1]), maxnreg);
        write_file(argv[i + 2], p.ptx);
        std::printf("%d mma, %d fence, %d commit, %d wait, %d proxy fence%s%s\n", p.mma, p.fence,
                    p.commit, p.wait, p.proxy_fence,
                    p.error.empty() ? "" : "; error: ", p.error.c_str());
        return p.error.empty() ? 0 : 1;
      }
      if (!opt.count(a) || i + 1 >= argc) {
        std::fprintf(
            stderr,
            "usage: wgmma_probe --kernels DIR --mma-kernels DIR --out DIR "
            "[--phase tile|gemm|mma] [--sizes 4096,8192] [--rounds 15]\n"
            "       wgmma_probe [--kernels DIR] --emit SRC.cl | --patch IN OUT [MAXNREG]\n");
        return 2;
      }
      opt[a] = argv[++i];
    }
    const Cl cl = open_nvidia();
    std::printf("device: %s, driver %s\n", cl.device_name.c_str(), cl.driver.c_str());
    const std::string phase = opt["--phase"];
    int failures = 0;
    if (phase == "tile") {
      failures = phase_tile(cl, opt["--kernels"], opt["--out"]);
    } else if (phase == "gemm" || phase == "mma" || phase == "wgmma") {
      failures = phase_gemm(cl, opt["--kernels"], opt["--mma-kernels"], opt["--out"],
                            parse_sizes(opt["--sizes"]), std::stoi(opt["--rounds"]), phase != "mma",
                            phase != "wgmma");
    } else {
      throw std::runtime_error("unknown phase " + phase);
    }
    std::printf("phase %s: %d failure(s)\n", phase.c_str(), failures);
    return failures ? 1 : 0;
  } catch (const std::exception& e) {
    std::printf("FATAL: %s\n", e.what());
    return 3;
  }
}
