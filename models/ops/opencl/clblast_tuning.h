#pragma once
// CLBlast's GEMM parameters tuned on the device at hand, as cuBLAS is tuned for PyTorch. CLBlast
// ships parameters for the devices of its database and generic defaults elsewhere (Hopper GPUs
// and PoCL are not in Debian's 1.5.3), so an untuned stage 0 measures CLBlast's defaults rather
// than a library at its best. `stagebench tune` runs CLBlast's own tuners (TuneXgemm,
// TuneXgemmDirect) on the device, keeps the parameters only when a timed GEMM got faster, and
// caches them per device and driver; every OpenCL backend applies a cached tuning with
// OverrideParameters when it starts and says so in the run's params ("library_tuning").
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <CL/opencl.hpp>
#include <nlohmann/json.hpp>

namespace sb {

// kernel name ("Xgemm", "XgemmDirect") -> parameter -> value, as CLBlast names them.
using ClblastParameters = std::map<std::string, std::map<std::string, size_t>>;

struct ClblastTuning {
  std::string device;  // the device key the parameters were tuned on
  ClblastParameters kernels;
  nlohmann::json provenance;  // how they were found: size, fraction, seconds, GFLOP/s before/after
};

// "NVIDIA H100 80GB HBM3 | 580.159.04": device name and driver version.
std::string clblast_device_key(const cl::Device& device);

// Where the tuning of `device_key` is cached: $STAGEBENCH_CACHE_DIR, else $XDG_CACHE_HOME/
// stagebench, else ~/.cache/stagebench; the file name is the key with unsafe characters as '_'.
std::filesystem::path clblast_tuning_path(const std::string& device_key);

// Reads a cached tuning; nullopt when there is none. Throws std::invalid_argument naming the
// file for one that is malformed or was tuned on another device.
std::optional<ClblastTuning> load_clblast_tuning(const std::filesystem::path& path,
                                                 const std::string& device_key);
void save_clblast_tuning(const std::filesystem::path& path, const ClblastTuning& tuning);

// Hands every kernel's parameters to CLBlast for `device` (fp32); the next call recompiles.
// Throws std::runtime_error naming the kernel CLBlast refused.
void apply_clblast_tuning(const cl::Device& device, const ClblastTuning& tuning);

// What an OpenCL backend does as it starts: applies the cached tuning of `device` if there is
// one (unless STAGEBENCH_CLBLAST_TUNING=off) and returns the line runs record. A damaged or
// foreign cache is ignored with its reason: CLBlast's own parameters are always there.
std::string apply_cached_clblast_tuning(const cl::Device& device);

// One GEMM a tuning is judged on: C (m x n) = A (m x k) B (k x n), `batch` of them strided.
struct TuningGemm {
  size_t m = 0, n = 0, k = 0, batch = 1;
  double flops() const { return 2.0 * double(m) * double(n) * double(k) * double(batch); }
  std::string label() const;  // "2048x64x2048 x8"
};

// The GEMMs a kernel's tuning must not slow, around edge `n`: the square the tuner searched at,
// tall activations times a square weight, and attention's scores and context products batched
// over heads. CLBlast's tuners search one square shape only; parameters found there can be much
// slower on the others. Not a model's whole set: on an H200 a tuning these passed still slowed
// Enformer's deep-K convolution GEMMs (results/h200/kernels-2026-11-26/summary.md).
std::vector<TuningGemm> tuning_gemms(size_t n);

// Why a tuning timed at `before` and `after` (seconds, one per GEMM) is not kept, or "" when it
// is: kept only if no GEMM got more than `tolerance` slower and all of them together faster.
std::string tuning_rejection(const std::vector<TuningGemm>& gemms,
                             const std::vector<double>& before, const std::vector<double>& after,
                             double tolerance = 0.02);

// The parameters CLBlast uses now on `device` for `kernel` (its database or an override).
std::map<std::string, size_t> clblast_current_parameters(const cl::Device& device,
                                                         const std::string& kernel);

}  // namespace sb
