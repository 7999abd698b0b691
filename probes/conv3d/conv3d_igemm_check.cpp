// conv3d_igemm_check [tf32|f16] [reps]: DynUNet full's forward conv3d shapes (B8 64^3,
// channels-last) on the first OpenCL GPU, through the vol2col path (STAGEBENCH_CONV_IGEMM=off)
// and the implicit GEMM, on the same random inputs. Per shape: each path's time (median over
// rounds of `reps` back-to-back calls, weight permute and conversions included, the two paths
// taking turns), TFLOP/s, and the implicit GEMM's relative L2 and max error against the vol2col
// path and both paths' against fp64 on the host at 4096 sampled outputs. Exits 1 when an error
// is over the precision's tolerance (or an output was not written), so a device script can use it
// as the correctness gate. A shape the implicit GEMM does not cover prints why.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "models/ops/opencl/opencl_backend.h"
#include "models/ops/opencl/opencl_backend_impl.h"
#include "probes/conv3d/conv3d_cases.h"
#include "probes/conv3d/probe_values.h"

int run_backward_check(sb::Precision p, int reps);  // conv3d_bwd_check.cpp
int run_narrow_dw_time(int reps);                   // narrow_dw_time.cpp

namespace {

using conv3d_probe::all_finite;
using conv3d_probe::random_values;

using conv3d_probe::Case;
using conv3d_probe::kBatch;
using conv3d_probe::kCases;

double rel_l2(const std::vector<float>& a, const std::vector<float>& ref) {
  double num = 0, den = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double d = static_cast<double>(a[i]) - ref[i];
    num += d * d;
    den += static_cast<double>(ref[i]) * ref[i];
  }
  return std::sqrt(num / den);
}

double max_abs(const std::vector<float>& a, const std::vector<float>& ref) {
  double m = 0;
  for (size_t i = 0; i < a.size(); ++i)
    m = std::max(m, std::abs(static_cast<double>(a[i]) - ref[i]));
  return std::isnan(m) ? INFINITY : m;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "narrow-dw")
    return run_narrow_dw_time(argc > 2 ? std::atoi(argv[2]) : 10);
  if (argc > 1 && std::string(argv[1]) == "bwd") {
    const std::string bp = argc > 2 ? argv[2] : "tf32";
    return run_backward_check(bp == "f16" ? sb::Precision::f16 : sb::Precision::tf32,
                              argc > 3 ? std::atoi(argv[3]) : 10);
  }
  const std::string precision = argc > 1 ? argv[1] : "tf32";
  const int reps = argc > 2 ? std::atoi(argv[2]) : 20;
  const sb::Precision p = precision == "f16" ? sb::Precision::f16 : sb::Precision::tf32;
  // tf32 and f16 keep 10 mantissa bits: products' relative L2 lands near 3e-4 (docs/method.md).
  const double tolerance = 5e-3;
  auto backend = sb::make_opencl_backend("");
  auto& be = static_cast<sb::OpenCLBackend&>(*backend);
  std::printf("# device: %s; %s\n", be.device().c_str(), be.gemm_paths().c_str());
  std::printf(
      "shape\tM\tN\tK\tpath\tms\tTFLOP/s\tspeedup\trel_l2_vs_vol2col\tmax_abs_vs_vol2col\t"
      "rel_l2_fp64_igemm\trel_l2_fp64_vol2col\n");
  std::mt19937 rng(27);
  bool failed = false;
  for (const Case& c : kCases) {
    sb::Conv3dShape s;
    s.batch = kBatch, s.in_channels = c.in, s.out_channels = c.out;
    s.d = s.h = s.w = c.edge;
    s.kernel = c.kernel, s.stride = c.stride, s.padding = c.kernel == 3 ? 1 : 0;
    s.layout = sb::Layout3d::ndhwc, s.precision = p;
    const int64_t o = s.out_size(c.edge, false), taps = int64_t{c.kernel} * c.kernel * c.kernel;
    const int64_t M = kBatch * o * o * o, N = c.out, K = c.in * taps;
    char name[160];
    std::snprintf(name, sizeof name, "%s: %lldx%lld^3x%lld->%lld k%d s%d", c.where,
                  static_cast<long long>(kBatch), static_cast<long long>(c.edge),
                  static_cast<long long>(c.in), static_cast<long long>(c.out), c.kernel, c.stride);
    be.set_conv_igemm_knob(sb::ConvIgemmKnob::automatic);
    const std::string why = be.conv3d_implicit_unavailable(s);
    const std::vector<float> xh =
        random_values(static_cast<size_t>(kBatch * c.edge * c.edge * c.edge * c.in), 1.f, rng);
    const std::vector<float> wh =
        random_values(static_cast<size_t>(N * K), 1.f / std::sqrt(static_cast<float>(K)), rng);
    const std::vector<float> bh = random_values(static_cast<size_t>(N), 0.5f, rng);
    sb::Tensor x = be.upload(xh, {kBatch, c.edge, c.edge, c.edge, c.in});
    sb::Tensor w = be.upload(wh, {N, c.in, c.kernel, c.kernel, c.kernel});
    sb::Tensor b = be.upload(bh, {N});
    const std::vector<float> nan(static_cast<size_t>(M * N), NAN);
    sb::Tensor y_cols = be.upload(nan, {kBatch, o, o, o, N});
    sb::Tensor y_igemm = be.upload(nan, {kBatch, o, o, o, N});
    const sb::Tensor* bias = c.bias ? &b : nullptr;
    auto run = [&](bool implicit, sb::Tensor& y) {
      be.set_conv_igemm_knob(implicit ? sb::ConvIgemmKnob::automatic : sb::ConvIgemmKnob::off);
      be.conv3d(s, x, w, bias, y);
    };
    run(false, y_cols);
    if (why.empty()) run(true, y_igemm);
    be.synchronize();
    const std::vector<float> cols = be.download(y_cols);
    const std::vector<float> igemm = why.empty() ? be.download(y_igemm) : cols;
    // fp64 on the host at sampled outputs.
    std::vector<float> ref, s_igemm, s_cols;
    std::uniform_int_distribution<int64_t> pick(0, M * N - 1);
    for (int i = 0; i < 4096; ++i) {
      const int64_t e = pick(rng), row = e / N, oc = e % N;
      const int64_t n = row / (o * o * o), v = row % (o * o * o);
      const int64_t oz = v / (o * o), oy = v / o % o, ox = v % o;
      double sum = c.bias ? bh[static_cast<size_t>(oc)] : 0.0;
      for (int64_t ci = 0; ci < c.in; ++ci)
        for (int64_t t = 0; t < taps; ++t) {
          const int64_t kz = t / (c.kernel * c.kernel), ky = t / c.kernel % c.kernel,
                        kx = t % c.kernel;
          const int64_t z = oz * c.stride - s.padding + kz, y = oy * c.stride - s.padding + ky,
                        xx = ox * c.stride - s.padding + kx;
          if (z < 0 || z >= c.edge || y < 0 || y >= c.edge || xx < 0 || xx >= c.edge) continue;
          const size_t xi =
              static_cast<size_t>((((n * c.edge + z) * c.edge + y) * c.edge + xx) * c.in + ci);
          sum += static_cast<double>(xh[xi]) * wh[static_cast<size_t>((oc * c.in + ci) * taps + t)];
        }
      ref.push_back(static_cast<float>(sum));
      s_igemm.push_back(igemm[static_cast<size_t>(e)]);
      s_cols.push_back(cols[static_cast<size_t>(e)]);
    }
    const double e_cols = rel_l2(s_cols, ref), e_igemm = rel_l2(s_igemm, ref);
    const double e_pair = rel_l2(igemm, cols), m_pair = max_abs(igemm, cols);
    const bool ok = all_finite(cols) && all_finite(igemm) && e_cols <= tolerance &&
                    e_igemm <= tolerance && e_pair <= tolerance;
    failed = failed || !ok;
    // Timing: rounds of `reps` calls, the paths in turns, median per call.
    constexpr int kRounds = 7;
    std::vector<double> t_cols, t_igemm;
    for (int round = 0; round <= kRounds; ++round)
      for (int implicit = 0; implicit <= (why.empty() ? 1 : 0); ++implicit) {
        be.synchronize();
        const auto t0 = std::chrono::steady_clock::now();
        for (int r = 0; r < reps; ++r) run(implicit == 1, implicit ? y_igemm : y_cols);
        be.synchronize();
        const double ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                .count() /
            reps;
        if (round > 0) (implicit ? t_igemm : t_cols).push_back(ms);
      }
    auto median = [](std::vector<double> v) -> double {
      if (v.empty()) return NAN;
      std::sort(v.begin(), v.end());
      return v[v.size() / 2];
    };
    const double ms_cols = median(t_cols), ms_igemm = median(t_igemm);
    const double flop = 2.0 * M * N * K;
    std::printf("%s\t%lld\t%lld\t%lld\tvol2col\t%.4f\t%.2f\t1.00\t-\t-\t-\t%.2e\n", name,
                static_cast<long long>(M), static_cast<long long>(N), static_cast<long long>(K),
                ms_cols, flop / ms_cols / 1e9, e_cols);
    if (why.empty())
      std::printf("%s\t%lld\t%lld\t%lld\tigemm\t%.4f\t%.2f\t%.2f\t%.2e\t%.2e\t%.2e\t%.2e%s\n", name,
                  static_cast<long long>(M), static_cast<long long>(N), static_cast<long long>(K),
                  ms_igemm, flop / ms_igemm / 1e9, ms_cols / ms_igemm, e_pair, m_pair, e_igemm,
                  e_cols, ok ? "" : "\tFAILED");
    else
      std::printf("%s\t%lld\t%lld\t%lld\tigemm\t-\t-\t-\t-\t-\t-\t-\t(not covered: %s)%s\n", name,
                  static_cast<long long>(M), static_cast<long long>(N), static_cast<long long>(K),
                  why.c_str(), ok ? "" : "\tFAILED");
    std::fflush(stdout);
  }
  for (const auto& [shape, choice] : be.autotune_choices())
    std::printf("# chosen: %s: %s\n", shape.c_str(), choice.c_str());
  std::printf("# %s\n", failed ? "FAILED" : "all shapes within tolerance");
  return failed ? 1 : 0;
}
