// `stagebench tune`: CLBlast's tuners on one device, kept only where the GEMMs of tuning_gemms()
// got faster together and none of them slower.
#include <clblast.h>

#include <chrono>
#include <ctime>
#include <unordered_map>

#include "models/ops/opencl/clblast_tuning.h"
#include "models/ops/opencl/device_select.h"
#include "models/ops/opencl/opencl_backend.h"

namespace sb {
namespace {

// Best of five timed runs of `g` (after two warm-ups), in seconds: one Gemm, or one strided batch.
double gemm_seconds(cl::Context& ctx, cl::CommandQueue& queue, const TuningGemm& g) {
  const size_t a_n = g.batch * g.m * g.k, b_n = g.batch * g.k * g.n, c_n = g.batch * g.m * g.n;
  cl::Buffer a(ctx, CL_MEM_READ_WRITE, a_n * sizeof(float)),
      b(ctx, CL_MEM_READ_WRITE, b_n * sizeof(float)),
      c(ctx, CL_MEM_READ_WRITE, c_n * sizeof(float));
  const float v = 1.0f / static_cast<float>(g.k);
  queue.enqueueFillBuffer(a, v, 0, a_n * sizeof(float));
  queue.enqueueFillBuffer(b, 1.0f, 0, b_n * sizeof(float));
  queue.finish();
  cl_command_queue q = queue();
  const auto no = clblast::Transpose::kNo;
  double best = 1e30;
  for (int i = 0; i < 7; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto status =
        g.batch == 1
            ? clblast::Gemm<float>(clblast::Layout::kRowMajor, no, no, g.m, g.n, g.k, 1.0f, a(), 0,
                                   g.k, b(), 0, g.n, 0.0f, c(), 0, g.n, &q, nullptr)
            : clblast::GemmStridedBatched<float>(
                  clblast::Layout::kRowMajor, no, no, g.m, g.n, g.k, 1.0f, a(), 0, g.k, g.m * g.k,
                  b(), 0, g.n, g.k * g.n, 0.0f, c(), 0, g.n, g.m * g.n, g.batch, &q, nullptr);
    if (status != clblast::StatusCode::kSuccess)
      throw std::runtime_error("CLBlast failed while timing " + g.label() + " (status " +
                               std::to_string(static_cast<int>(status)) + ")");
    queue.finish();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (i >= 2) best = std::min(best, s);
  }
  return best;
}

std::vector<double> time_gemms(cl::Context& ctx, cl::CommandQueue& queue,
                               const std::vector<TuningGemm>& gemms) {
  std::vector<double> s;
  for (const TuningGemm& g : gemms) s.push_back(gemm_seconds(ctx, queue, g));
  return s;
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
  // The indirect kernel (Xgemm) serves large GEMMs, the direct one small ones: each is tuned at
  // a size that CLBlast routes to it, and judged on the GEMMs of tuning_gemms() around it.
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
    const std::vector<TuningGemm> gemms = tuning_gemms(k.timed_at);
    const std::vector<double> before = time_gemms(ctx, queue, gemms);
    std::unordered_map<std::string, size_t> found;
    cl_command_queue q = queue();
    const auto status = k.tune(&q, k.timed_at, k.timed_at, k.timed_at, o.fraction, found);
    nlohmann::json entry = {{"gemm_edge", k.timed_at},
                            {"gflops_before", gemms[0].flops() / before[0] / 1e9}};
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
    const std::vector<double> after = time_gemms(ctx, queue, gemms);
    entry["gflops_after"] = gemms[0].flops() / after[0] / 1e9;
    nlohmann::json per = nlohmann::json::array();
    for (size_t i = 0; i < gemms.size(); ++i)
      per.push_back({{"gemm", gemms[i].label()},
                     {"gflops_before", gemms[i].flops() / before[i] / 1e9},
                     {"gflops_after", gemms[i].flops() / after[i] / 1e9}});
    entry["gemms"] = per;
    const std::string why = tuning_rejection(gemms, before, after);
    entry["kept"] = why.empty();
    if (why.empty()) {
      tuning.kernels[k.name] = one.kernels[k.name];
    } else {
      ClblastTuning back;  // CLBlast's own parameters stay
      back.kernels[k.name] = defaults;
      apply_clblast_tuning(device, back);
      entry["why"] = why;
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
