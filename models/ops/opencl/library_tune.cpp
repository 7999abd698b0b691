// `stagebench tune`: CLBlast's tuners on one device, kept only where a timed GEMM got faster.
#include <clblast.h>

#include <chrono>
#include <ctime>
#include <unordered_map>

#include "models/ops/opencl/clblast_tuning.h"
#include "models/ops/opencl/device_select.h"
#include "models/ops/opencl/opencl_backend.h"

namespace sb {
namespace {

// Best of five timed square fp32 GEMMs of edge n (after two warm-ups), in GFLOP/s.
double gemm_gflops(cl::Context& ctx, cl::CommandQueue& queue, size_t n) {
  const size_t bytes = n * n * sizeof(float);
  cl::Buffer a(ctx, CL_MEM_READ_WRITE, bytes), b(ctx, CL_MEM_READ_WRITE, bytes),
      c(ctx, CL_MEM_READ_WRITE, bytes);
  const std::vector<float> ones(n * n, 1.0f / static_cast<float>(n));
  queue.enqueueWriteBuffer(a, CL_TRUE, 0, bytes, ones.data());
  queue.enqueueWriteBuffer(b, CL_TRUE, 0, bytes, ones.data());
  cl_command_queue q = queue();
  double best = 1e30;
  for (int i = 0; i < 7; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto status = clblast::Gemm<float>(clblast::Layout::kRowMajor, clblast::Transpose::kNo,
                                             clblast::Transpose::kNo, n, n, n, 1.0f, a(), 0, n, b(),
                                             0, n, 0.0f, c(), 0, n, &q, nullptr);
    if (status != clblast::StatusCode::kSuccess)
      throw std::runtime_error("CLBlast Gemm failed while timing (status " +
                               std::to_string(static_cast<int>(status)) + ")");
    queue.finish();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (i >= 2) best = std::min(best, s);
  }
  return 2.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n) / best /
         1e9;
}

using Tuner = clblast::StatusCode (*)(cl_command_queue*, size_t, size_t, size_t, double,
                                      std::unordered_map<std::string, size_t>&);

}  // namespace

LibraryTuneReport tune_opencl_library(const LibraryTuneOptions& o) {
  o.validate();
  cl::Device device;
  try {
    device = select_opencl_device(o.device_filter);
  } catch (const std::runtime_error& e) {
    throw std::invalid_argument(e.what());  // no such device: bad input
  }
  cl::Context ctx(device);
  cl::CommandQueue queue(ctx, device);
  LibraryTuneReport r;
  const std::string key = clblast_device_key(device);
  r.device = key;
  r.path = clblast_tuning_path(key).string();
  const auto t0 = std::chrono::steady_clock::now();
  // The indirect kernel (Xgemm) serves large GEMMs, the direct one small ones: each is timed at
  // a size that CLBlast routes to it, before and after, and kept only if that got faster.
  struct Kernel {
    const char* name;
    Tuner tune;
    size_t timed_at;
  };
  const size_t small = 256;
  const Kernel kernels[] = {{"Xgemm", &clblast::TuneXgemm<float>, static_cast<size_t>(o.size)},
                            {"XgemmDirect", &clblast::TuneXgemmDirect<float>, small}};
  ClblastTuning tuning;
  tuning.device = key;
  nlohmann::json measured = nlohmann::json::object();
  for (const Kernel& k : kernels) {
    const std::map<std::string, size_t> defaults = clblast_current_parameters(device, k.name);
    const double before = gemm_gflops(ctx, queue, k.timed_at);
    std::unordered_map<std::string, size_t> found;
    cl_command_queue q = queue();
    const auto status = k.tune(&q, k.timed_at, k.timed_at, k.timed_at, o.fraction, found);
    nlohmann::json entry = {{"gemm_edge", k.timed_at}, {"gflops_before", before}};
    if (status != clblast::StatusCode::kSuccess || found.empty()) {
      entry["kept"] = false;
      entry["why"] =
          "CLBlast's tuner failed (status " + std::to_string(static_cast<int>(status)) + ")";
      measured[k.name] = entry;
      continue;
    }
    ClblastTuning one;
    one.kernels[k.name] = {found.begin(), found.end()};
    apply_clblast_tuning(device, one);
    const double after = gemm_gflops(ctx, queue, k.timed_at);
    entry["gflops_after"] = after;
    entry["kept"] = after > before;
    if (after > before) {
      tuning.kernels[k.name] = one.kernels[k.name];
    } else {
      ClblastTuning back;  // slower or equal: CLBlast's own parameters stay
      back.kernels[k.name] = defaults;
      apply_clblast_tuning(device, back);
      entry["why"] = "no faster than CLBlast's defaults";
    }
    measured[k.name] = entry;
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.measured = measured;
  const std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  tuning.provenance = {
      {"date", date}, {"fraction", o.fraction}, {"seconds", r.seconds}, {"measured", measured}};
  r.saved = !tuning.kernels.empty();
  if (r.saved) save_clblast_tuning(r.path, tuning);
  return r;
}

}  // namespace sb
