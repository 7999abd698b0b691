// The f16 GEMM on Hopper's wgmma (issue 27; kernels/gemm_wgmma.cl says why we write it): built
// through the PTX patch (wgmma_program.h) when the backend is made, on a device with compute
// capability 9.0, and used only if every variant then matches the mma.sync pipeline (and a CPU
// reference) on small shapes. Which calls it takes is choose_gemm_path() (gemm_path.h).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <stdexcept>
#include <vector>

#include "models/ops/knobs.h"
#include "models/ops/opencl/kernel_sources.h"
#include "models/ops/opencl/opencl_backend_impl.h"
#include "models/ops/opencl/weight_convert.h"
#include "models/ops/opencl/wgmma_program.h"

namespace sb {
namespace {

std::string wgmma_source() {
  return wgmma::helpers({128, 256}) + cl_common_source() + "\n" +
         std::string(embedded_cl_source("gemm_mma_nvidia.cl")) + "\n" +
         std::string(embedded_cl_source("gemm_pipelined.cl")) + "\n" +
         std::string(embedded_cl_source("gemm_wgmma.cl")) + "\n" +
         std::string(embedded_cl_source("gemm_wgmma_ws.cl"));
}

const WgmmaVariant& variant(int id) {
  for (const WgmmaVariant& v : kWgmmaVariants)
    if (v.id == id) return v;
  throw std::invalid_argument("no wgmma variant " + std::to_string(id));
}

std::string wgmma_name(int id) {
  return variant(id).name;
}

std::string options(const WgmmaVariant& v) {
  return "-cl-std=CL1.2 -DREDUCE_WG=256 -DWG_NAME=" + std::string(v.name) +
         " -DWG_BN=" + std::to_string(v.bn) + " -DWG_STAGES=" + std::to_string(v.stages) +
         " -DWG_AHEAD=" + std::to_string(v.ahead()) +
         " -DWG_WAIT_COPIES=" + std::to_string(v.ahead() - 1) + (v.drain ? " -DWG_DRAIN" : "") +
         (v.ws ? " -DWG_WS" : "") + (v.setmaxnreg ? " -DWG_SETMAXNREG" : "") +
         (v.persist ? " -DWG_PERSIST" : "") + (v.tf32 ? " -DWG_TF32" : "") +
         (OpenCLBackend::conv_fast_loads() ? "" : " -DWG_CONV_CHECKED");
}

// ptxas's "Used N registers, ..." and spill line for `entry` in a -cl-nv-verbose build log.
std::string registers(const std::string& log, const std::string& entry) {
  const size_t at = log.find("entry function '" + entry + "'");
  if (at == std::string::npos) return "ptxas report not in the log";
  auto line_with = [&](const char* what) {
    const size_t p = log.find(what, at);
    if (p == std::string::npos) return std::string();
    const size_t b = log.rfind('\n', p), e = log.find('\n', p);
    std::string s = log.substr(b == std::string::npos ? 0 : b + 1,
                               e == std::string::npos ? std::string::npos : e - b - 1);
    const size_t first = s.find_first_not_of(" \t");
    return first == std::string::npos ? s : s.substr(first);
  };
  return line_with("spill stores") + "; " + line_with("registers");
}

std::vector<float> random_halves(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  std::vector<float> v(n);
  for (auto& x : v) x = half_bits_to_float(float_to_half_bits(d(rng)));
  return v;
}

// ||got - ref|| / ||ref||; NaN (or an unwritten, poisoned element) makes it NaN.
double rel_l2(const std::vector<float>& got, const std::vector<float>& ref) {
  double num = 0, den = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    const double d = static_cast<double>(got[i]) - ref[i];
    num += d * d;
    den += static_cast<double>(ref[i]) * ref[i];
  }
  return std::sqrt(num / den);
}

// x[m, k] . w[n, k]^T summed in fp64 on the CPU: the checks' reference for the pipeline itself.
std::vector<float> product_fp64(const std::vector<float>& x, const std::vector<float>& w, int64_t m,
                                int64_t n, int64_t k) {
  std::vector<float> y(static_cast<size_t>(m * n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t l = 0; l < k; ++l) sum += static_cast<double>(x[i * k + l]) * w[j * k + l];
      y[i * n + j] = static_cast<float>(sum);
    }
  return y;
}

// The persistent variant's work-groups in check_wgmma (0: one an SM).
int persist_groups_for_check = 0;

}  // namespace

bool wgmma_more_variants() {
  static const bool on = read_on_off_knob("STAGEBENCH_WGMMA_MORE");
  return on;
}

bool wgmma_ws_variants() {
  static const bool on = read_on_off_knob("STAGEBENCH_WGMMA_WS");
  return on;
}

bool wgmma_plain_only(int id) {
  return variant(id).persist;
}

bool wgmma_is_tf32(int id) {
  return variant(id).tf32;
}

bool wgmma_tf32_variants() {
  static const bool on = read_on_off_knob("STAGEBENCH_WGMMA_TF32");
  return on;
}

// STAGEBENCH_WGMMA_ONLY: a variant's kernel name, or "" (unset: every variant a candidate).
static const std::string& wgmma_only() {
  static const std::string only = [] {
    const char* v = std::getenv("STAGEBENCH_WGMMA_ONLY");
    const std::string name = v ? v : "";
    if (name.empty()) return name;
    for (const WgmmaVariant& w : kWgmmaVariants)
      if (name == w.name) return name;
    throw std::invalid_argument("STAGEBENCH_WGMMA_ONLY=" + name + ": no such wgmma variant");
  }();
  return only;
}

namespace {

// gemm36: STAGEBENCH_WGMMA_ONLY names one variant of one precision; the other precision's
// variants stay as the knobs say.
bool only_allows(const WgmmaVariant& v, const std::string& only) {
  if (only.empty() || only == v.name) return true;
  return v.tf32 != (only.rfind("wgmma_tf32", 0) == 0);
}

}  // namespace

std::vector<WgmmaVariant> wgmma_variants() {
  std::vector<WgmmaVariant> out;
  const std::string& only = wgmma_only();
  for (const WgmmaVariant& v : kWgmmaVariants) {
    if (v.tf32) {
      // The fallback of the persistent one's other calls is built whenever tf32 is on.
      if (wgmma_tf32_variants() && (only_allows(v, only) || v.id == kWgmmaTf32Fallback))
        out.push_back(v);
    } else if (v.id == v.bn ||
               (!only.empty() ? only == v.name
                              : (v.ws ? wgmma_ws_variants() : wgmma_more_variants()))) {
      out.push_back(v);
    }
  }
  return out;
}

std::vector<PipeTile> wgmma_tiles() {
  std::vector<PipeTile> out;
  const std::string& only = wgmma_only();
  for (const WgmmaVariant& v : wgmma_variants())
    if (only_allows(v, only)) out.push_back({v.bn, false, true, v.id});
  return out;
}

void OpenCLBackend::init_wgmma() {
  wgmma_knob_ = wgmma_knob();  // a bad value throws: bad input, before anything is measured
  wgmma_only();                // likewise (gemm35)
  wgmma_device_ = {};
  wgmma_device_.nvidia_mma = has_mma();
  if (wgmma_device_.nvidia_mma) {
    const wgmma::ComputeCapability cc = wgmma::compute_capability(runtime_->device()());
    wgmma_device_.cc_major = cc.major;
    wgmma_device_.cc_minor = cc.minor;
  }
  if (const std::string why = wgmma_unavailable(wgmma_device_, wgmma_knob_); !why.empty()) {
    // Only devices with the mma.sync kernels say anything: elsewhere (PoCL) f16 runs the portable
    // kernel and there is no tensor-core path to choose.
    if (wgmma_device_.nvidia_mma) wgmma_status_ = "fp16: mma.sync (wgmma off: " + why + ")";
    return;
  }
  std::string built, dropped;
  try {
    const std::string source = wgmma_source();
    for (const WgmmaVariant& v : wgmma_variants()) {
      wgmma::ProgramBuild b = wgmma::build_program(runtime_->context()(), runtime_->device()(),
                                                   source, options(v), "-cl-nv-verbose", v.maxnreg);
      if (!b.error.empty() && v.id != v.bn) {  // an extra variant: left out, the rest stand
        dropped +=
            std::string(v.name) + " left out: it did not build: " + b.error.substr(0, 200) + "; ";
        continue;
      }
      if (!b.error.empty()) {
        wgmma_status_ = "fp16: mma.sync (wgmma off: " + std::string(v.name) +
                        " did not build: " + b.error.substr(0, 400) + ")";
        return;
      }
      wgmma_programs_.emplace(v.id, cl::Program(b.program));  // takes the reference
      built += (built.empty() ? "" : "; ") + std::string(v.name) + " (128 x " +
               std::to_string(v.bn) + ", " + std::to_string(v.stages) + " stages, " +
               std::to_string(v.ahead()) + " ahead" +
               (v.maxnreg ? ", at most " + std::to_string(v.maxnreg) + " registers" : "") +
               (v.ws ? ", warp-specialized, " + std::to_string(b.patched.setmaxnreg) +
                           " setmaxnreg" + (v.persist ? ", persistent, plain products" : "")
                     : "") +
               "): " + registers(b.binary_log, v.name);
    }
    wgmma_status_.clear();  // check_wgmma notes the extra variants it leaves out here
    const std::string failed = check_wgmma();
    check_wgmma_tf32();  // a tf32 variant that fails is left out, noted in wgmma_status_
    dropped += wgmma_status_;
    if (!failed.empty()) {
      wgmma_status_ = "fp16: mma.sync (wgmma off: the start-up check failed: " + failed + ")";
      return;
    }
  } catch (const std::exception& e) {
    wgmma_status_ = std::string("fp16: mma.sync (wgmma off: ") + e.what() + ")";
    return;
  }
  wgmma_device_.checked = true;
  for (const WgmmaVariant& v : kWgmmaVariants)
    if (v.tf32 && wgmma_programs_.contains(v.id)) wgmma_device_.tf32_checked = true;
  const std::string tf32 =
      wgmma_device_.tf32_checked
          ? "; tf32: wgmma (m64nNk8) timed beside the mma.sync pipeline where K is a multiple of 4"
          : std::string("; tf32: mma.sync") + (wgmma_tf32_variants()
                                                   ? " (no tf32 variant passed)"
                                                   : " (STAGEBENCH_WGMMA_TF32=off)");
  wgmma_status_ = "fp16: wgmma where K is a multiple of 8, else mma.sync (sm_" +
                  std::to_string(wgmma_device_.cc_major) + std::to_string(wgmma_device_.cc_minor) +
                  ", checked against the mma.sync pipeline at start-up; " + built + ")" +
                  (dropped.empty() ? "" : " (" + dropped + ")") + tf32;
}

// Each variant against the pipeline (128 x 256, double-buffered) on the same inputs, and the
// full-tile product against a CPU reference too: 256 x 512 x 256 with no epilogue, and
// 200 x 330 x 200 (partial tiles in M and N, K's tail, rows of N not a multiple of 4) with bias,
// GELU and a residual. Outputs are poisoned with NaN first, so that an element left unwritten
// fails. Passes at rel L2 <= 1e-5 (the probe found the two kernels bit-identical without an
// epilogue; f32 sums in another order differ in the last bits). An extra variant (gemm34's, not
// one of the original two) that fails is left out instead, noted in wgmma_status_.
std::string OpenCLBackend::check_wgmma() {
  struct Shape {
    int64_t m, n, k;
    bool epilogue;
  };
  std::string failed;
  unsigned seed = 27;
  // gemm35: 328 x 600 x 320, a plain product with partial tiles in M and N, on which the
  // persistent variant runs with 2 work-groups, so that each walks several tiles and its ring
  // wraps across tiles (its phases carry over).
  for (const Shape s :
       {Shape{256, 512, 256, false}, Shape{200, 330, 200, true}, Shape{328, 600, 320, false}}) {
    const auto a = random_halves(static_cast<size_t>(s.m * s.k), seed++);
    const auto b = random_halves(static_cast<size_t>(s.n * s.k), seed++);
    const auto bias = random_halves(static_cast<size_t>(s.n), seed++);
    const auto res = random_halves(static_cast<size_t>(s.m * s.n), seed++);
    std::vector<uint16_t> ah(a.size()), bh(b.size());
    for (size_t i = 0; i < a.size(); ++i) ah[i] = float_to_half_bits(a[i]);
    for (size_t i = 0; i < b.size(); ++i) bh[i] = float_to_half_bits(b[i]);
    const Tensor x = upload_bytes(ah.data(), ah.size() * 2, {s.m, s.k}, DType::f16);
    const Tensor w = upload_bytes(bh.data(), bh.size() * 2, {s.n, s.k}, DType::f16);
    const Tensor bias_t = do_upload(bias, {s.n}), res_t = do_upload(res, {s.m, s.n});
    const Epilogue ep =
        s.epilogue ? Epilogue{&bias_t, Act::gelu, &res_t} : Epilogue{nullptr, Act::none, nullptr};
    const std::vector<float> nan(static_cast<size_t>(s.m * s.n), std::nanf(""));
    Tensor ref_t = do_upload(nan, {s.m, s.n});
    launch_pipe(PipeKind::f16, PipeTile{256, true}, x, w, ref_t, ep, s.m, s.n, s.k, {}, {});
    const std::vector<float> ref = do_download(ref_t);
    const std::string shape =
        std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
    if (!s.epilogue && s.m == 256) {  // the pipeline itself against fp64 on the CPU
      const double e = rel_l2(ref, product_fp64(a, b, s.m, s.n, s.k));
      if (!(e <= 1e-5))
        failed += "mma.sync against the CPU at " + shape + ": rel L2 " + std::to_string(e) + "; ";
    }
    for (const WgmmaVariant& v : wgmma_variants()) {
      if (v.tf32 || !wgmma_programs_.contains(v.id)) continue;
      std::string why;
      try {
        Tensor y = do_upload(nan, {s.m, s.n});
        persist_groups_for_check = s.m == 328 ? 2 : 0;
        launch_wgmma(v.id, x, w, y, ep, s.m, s.n, s.k, {});
        persist_groups_for_check = 0;
        const double e = rel_l2(do_download(y), ref);
        if (!(e <= 1e-5)) why = "rel L2 " + std::to_string(e) + " against mma.sync";
      } catch (const std::exception& e) {
        if (v.id == v.bn) throw;  // the original two: wgmma off, as before
        why = e.what();
      }
      if (why.empty()) continue;
      const std::string what = std::string(v.name) + " at " + shape +
                               (s.epilogue ? " with bias, GELU, residual" : "") + ": " + why + "; ";
      if (v.id != v.bn) {  // an extra variant (gemm34): left out, the rest stand
        wgmma_status_ += what + "left out; ";
        wgmma_programs_.erase(v.id);
        wgmma_kernels_.erase(v.id);
      } else {
        failed += what;
      }
    }
  }
  return failed;
}

// gemm36: each tf32 variant against the tf32 mma.sync pipeline (128 x 256, double-buffered) on
// fp32 inputs, the shapes of check_wgmma, and the pipeline against fp64 on the CPU at
// 256 x 512 x 256. The inputs are halves, which tf32's 10-bit mantissa holds exactly, so the
// pipeline's rounding (cvt.rna) and the tensor cores' dropping of the low 13 bits agree on them
// and only the order of the f32 sums differs: rel L2 <= 1e-5, as check_wgmma's. A failed variant
// is left out and noted in wgmma_status_; with none left, tf32 stays on mma.sync.
void OpenCLBackend::check_wgmma_tf32() {
  struct Shape {
    int64_t m, n, k;
    bool epilogue;
  };
  constexpr double kTolerance = 1e-5;
  unsigned seed = 36;
  for (const Shape s :
       {Shape{256, 512, 256, false}, Shape{200, 330, 200, true}, Shape{328, 600, 320, false}}) {
    std::vector<int> ids;
    for (const WgmmaVariant& v : wgmma_variants())
      if (v.tf32 && wgmma_programs_.contains(v.id)) ids.push_back(v.id);
    if (ids.empty()) return;
    const auto a = random_halves(static_cast<size_t>(s.m * s.k), seed++);
    const auto b = random_halves(static_cast<size_t>(s.n * s.k), seed++);
    const auto bias = random_halves(static_cast<size_t>(s.n), seed++);
    const auto res = random_halves(static_cast<size_t>(s.m * s.n), seed++);
    const Tensor x = do_upload(a, {s.m, s.k}), w = do_upload(b, {s.n, s.k});
    const Tensor bias_t = do_upload(bias, {s.n}), res_t = do_upload(res, {s.m, s.n});
    const Epilogue ep =
        s.epilogue ? Epilogue{&bias_t, Act::gelu, &res_t} : Epilogue{nullptr, Act::none, nullptr};
    const std::vector<float> nan(static_cast<size_t>(s.m * s.n), std::nanf(""));
    Tensor ref_t = do_upload(nan, {s.m, s.n});
    launch_pipe(PipeKind::tf32, PipeTile{256, true}, x, w, ref_t, ep, s.m, s.n, s.k, {}, {});
    const std::vector<float> ref = do_download(ref_t);
    const std::string shape =
        std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
    if (!s.epilogue && s.m == 256) {  // the pipeline itself against fp64 on the CPU
      const double e = rel_l2(ref, product_fp64(a, b, s.m, s.n, s.k));
      if (!(e <= kTolerance)) {  // the reference itself is off: no tf32 variant is trusted
        wgmma_status_ += "tf32 mma.sync against the CPU at " + shape + ": rel L2 " +
                         std::to_string(e) + ", tf32 wgmma left out; ";
        for (const int id : ids) {
          wgmma_programs_.erase(id);
          wgmma_kernels_.erase(id);
        }
        return;
      }
    }
    for (const int id : ids) {
      std::string why;
      try {
        Tensor y = do_upload(nan, {s.m, s.n});
        persist_groups_for_check = s.m == 328 ? 2 : 0;
        launch_wgmma(id, x, w, y, ep, s.m, s.n, s.k, {});
        persist_groups_for_check = 0;
        const double e = rel_l2(do_download(y), ref);
        if (!(e <= kTolerance)) why = "rel L2 " + std::to_string(e) + " against mma.sync tf32";
      } catch (const std::exception& e) {
        persist_groups_for_check = 0;
        why = e.what();
      }
      if (why.empty()) continue;
      wgmma_status_ += wgmma_name(id) + " at " + shape +
                       (s.epilogue ? " with bias, GELU, residual" : "") + ": " + why +
                       "; left out; ";
      wgmma_programs_.erase(id);
      wgmma_kernels_.erase(id);
    }
  }
}

// `id`: a WgmmaVariant's (the original two's are their widths).
cl::Kernel& OpenCLBackend::wgmma_kernel(int id) {
  if (auto it = wgmma_kernels_.find(id); it != wgmma_kernels_.end()) return it->second;
  return wgmma_kernels_.emplace(id, cl::Kernel(wgmma_programs_.at(id), wgmma_name(id).c_str()))
      .first->second;
}

void OpenCLBackend::launch_wgmma(int id, const Tensor& x, const Tensor& w, Tensor& y,
                                 const Epilogue& ep, int64_t m, int64_t n, int64_t k,
                                 const PipeConv& conv, int splits) {
  constexpr int64_t kTileM = 128;  // WG_BM
  // gemm35: the persistent kernel takes only plain products without split K: any other call goes
  // to wgmma_f16_256.
  if (variant(id).persist && (splits != 1 || ep.bias || ep.residual || ep.act != Act::none ||
                              y.dtype() != DType::f32 || conv.taps > 0))
    id = variant(id).tf32 ? kWgmmaTf32Fallback : kWgmmaF16Fallback;
  const WgmmaVariant& v = variant(id);
  const size_t kThreads = static_cast<size_t>(v.threads());
  const int bn = v.bn;
  int64_t tiles = (m + kTileM - 1) / kTileM * ((n + bn - 1) / bn);
  if (v.persist) {  // one work-group an SM (its ring takes an SM's local memory)
    const int64_t units =
        persist_groups_for_check > 0
            ? persist_groups_for_check
            : static_cast<int64_t>(runtime_->device().getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>());
    tiles = std::min(tiles, units);
  }
  cl::Kernel& kernel = wgmma_kernel(id);
  set_args(kernel, 0, x, w, ep.bias, ep.bias ? 1 : 0, epilogue_act(ep, y), ep.residual,
           ep.residual ? 1 : 0, to_cl_int(m, "linear m"), to_cl_int(n, "linear n"),
           to_cl_int(k, "linear k"), y, to_cl_int(conv.taps, "conv taps"),
           to_cl_int(conv.len, "conv length"));
  const std::string name = wgmma_name(id);
  faults_.before_launch(name);
  events_.launch(name, kernel,
                 cl::NDRange(static_cast<size_t>(tiles) * kThreads, static_cast<size_t>(splits)),
                 cl::NDRange(kThreads, 1));
}

void OpenCLBackend::count_gemm(PipeKind kind, GemmPath path) {
  const char* precision = kind == PipeKind::f16 ? "fp16" : kind == PipeKind::tf32 ? "tf32" : "int8";
  kernel_log_.gemm(std::string(precision) + " " + gemm_path_name(path));
}

}  // namespace sb
