// conv3d_igemm_check narrow-dw [reps]: DynUNet full's one 3^3 weight gradient from one input
// channel (the input block's first convolution, 1 -> 16 at B8 64^3, with its bias; asked at f16,
// which PoCL has too: both kernels compute in fp32 whatever the reduced precision) on
// conv3d_narrow_dw_k3 and on conv3d_narrow_dw_k3_planes (STAGEBENCH_CONV_NARROW=planes, dyn34) in
// turns: each kernel's device time a call from the backend's profiling events (median over
// rounds of `reps` calls), both results compared bit for bit, and dW against fp64 on the host at
// every element. Exits 1 when the bits differ, an output is unwritten (NaN) or the error is
// over the tolerance. The portable program alone: no tensor-core program is needed.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "models/ops/opencl/opencl_backend.h"
#include "models/ops/opencl/opencl_backend_impl.h"
#include "probes/conv3d/probe_values.h"

int run_narrow_dw_time(int reps) {
  constexpr int64_t B = 8, E = 64, Co = 16;
  auto backend = sb::make_opencl_backend("");
  auto& be = static_cast<sb::OpenCLBackend&>(*backend);
  std::printf("# device: %s\n", be.device().c_str());
  sb::Conv3dShape s;
  s.batch = B, s.in_channels = 1, s.out_channels = Co, s.d = s.h = s.w = E;
  s.kernel = 3, s.stride = 1, s.padding = 1;
  s.layout = sb::Layout3d::ndhwc, s.precision = sb::Precision::f16;  // both kernels: fp32
  std::mt19937 rng(3434);
  const std::vector<float> xh =
      conv3d_probe::random_values(static_cast<size_t>(B * E * E * E), 1.f, rng);
  const std::vector<float> dyh =
      conv3d_probe::random_values(static_cast<size_t>(B * E * E * E * Co), 1.f, rng);
  const sb::Tensor x = be.upload(xh, {B, E, E, E, 1}), dy = be.upload(dyh, {B, E, E, E, Co});
  const std::vector<float> nan_w(static_cast<size_t>(Co * 27), NAN), nan_b(Co, NAN);
  const char* names[2] = {"conv3d_narrow_dw_k3", "conv3d_narrow_dw_k3_planes"};
  std::vector<float> dw_of[2], db_of[2];
  std::vector<double> us_of[2];
  sb::KernelLog* log = be.kernel_log();
  for (int round = 0; round < 5; ++round)
    for (int planes = 0; planes < 2; ++planes) {
      be.use_conv_narrow_dw_planes(planes == 1);
      sb::Tensor dw = be.upload(nan_w, {Co, 1, 3, 3, 3}), db = be.upload(nan_b, {Co});
      be.synchronize();
      log->drain();
      const sb::KernelTotals before = log->kernels().count(names[planes])
                                          ? log->kernels().at(names[planes])
                                          : sb::KernelTotals{};
      for (int r = 0; r < reps; ++r) be.conv3d_backward_weights(s, x, dy, dw, &db);
      be.synchronize();
      log->drain();
      const sb::KernelTotals after = log->kernels().at(names[planes]);
      const uint64_t n = after.launches - before.launches;
      if (n != static_cast<uint64_t>(reps)) {
        std::printf("%s ran %llu times in %d calls\n", names[planes],
                    static_cast<unsigned long long>(n), reps);
        return 1;
      }
      if (round > 0)  // the first round builds and warms
        us_of[planes].push_back(double(after.total_ns - before.total_ns) / 1e3 / reps);
      dw_of[planes] = be.download(dw), db_of[planes] = be.download(db);
    }
  be.use_conv_narrow_dw_planes(false);
  const bool same = dw_of[0] == dw_of[1] && db_of[0] == db_of[1];
  const bool finite = conv3d_probe::all_finite(dw_of[1]) && conv3d_probe::all_finite(db_of[1]);
  // fp64 at every dW element (432 of them, each over 2M voxels: a few seconds on the host)
  double num = 0, den = 0;
  for (int64_t oc = 0; oc < Co; ++oc)
    for (int64_t t = 0; t < 27; ++t) {
      const int64_t kz = t / 9 - 1, ky = t / 3 % 3 - 1, kx = t % 3 - 1;
      double sum = 0;
      for (int64_t n = 0; n < B; ++n)
        for (int64_t z = 0; z < E; ++z)
          for (int64_t y = 0; y < E; ++y)
            for (int64_t xx = 0; xx < E; ++xx) {
              const int64_t iz = z + kz, iy = y + ky, ix = xx + kx;
              if (iz < 0 || iz >= E || iy < 0 || iy >= E || ix < 0 || ix >= E) continue;
              sum += double{dyh[static_cast<size_t>((((n * E + z) * E + y) * E + xx) * Co + oc)]} *
                     xh[static_cast<size_t>(((n * E + iz) * E + iy) * E + ix)];
            }
      const double d = dw_of[1][static_cast<size_t>(oc * 27 + t)] - sum;
      num += d * d, den += sum * sum;
    }
  const double rel_l2 = std::sqrt(num / den);
  auto med = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  std::printf("kernel\tus a call (median of 4 rounds x %d)\n", reps);
  for (int planes = 0; planes < 2; ++planes)
    std::printf("%s\t%.1f\n", names[planes], med(us_of[planes]));
  std::printf("same bits: %s; finite: %s; planes' dW rel_l2 vs fp64: %.2e\n", same ? "yes" : "NO",
              finite ? "yes" : "NO", rel_l2);
  return same && finite && rel_l2 < 1e-5 ? 0 : 1;
}
