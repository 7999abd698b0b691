#pragma once
// A small stagebench/1 document built in code: two runs (cpu, opencl) of a five-stage ladder with
// ok, skipped and invalid stages, claims, memory and throughput. Samples come from a seeded
// mt19937 and plain arithmetic only, so the document is the same on every machine (the golden
// reports depend on it). `scale` multiplies one stage's times, for compare tests.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace sb::test {

struct FixtureStage {
  std::string id, title, status;
  double median_ms;
  double claim;  // NaN: none
  std::string reason;
};

inline double type7_quantile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  const double h = (v.size() - 1) * p;
  const size_t lo = static_cast<size_t>(h);
  return lo + 1 < v.size() ? v[lo] + (h - lo) * (v[lo + 1] - v[lo]) : v[lo];
}

// Samples around `median` with +-1% of uniform jitter.
inline std::vector<double> jittered(double median, size_t n, uint32_t seed) {
  std::mt19937 g(seed);
  std::vector<double> out;
  for (size_t i = 0; i < n; ++i) out.push_back(median * (1 + 0.02 * ((g() % 1000) / 1000.0 - 0.5)));
  return out;
}

inline nlohmann::json fixture_run(const std::string& backend,
                                  const std::map<std::string, double>& scale = {},
                                  size_t samples = 12) {
  const bool cl = backend == "opencl";
  const std::vector<FixtureStage> stages = {
      {"original", "Original model", "ok", 350.0, 1.0, ""},
      {"fused-gelu", "Fused GELU", "ok", 290.0, 1.3, ""},
      {"graph-compile", "Graph compile", "ok", 199.0, 1.76, ""},
      {"fp16", "Half precision", cl ? "ok" : "skipped", 120.0, NAN,
       cl ? "" : "no fp16 on the cpu backend"},
      {"int8", "INT8 quantization", "invalid", 90.0, 3.5,
       "correctness: cosine 0.98000000 < 0.99 (int8)"},
  };
  nlohmann::json run = {{"model", "enformer"}, {"size", "tiny"},
                        {"backend", backend},  {"device", cl ? "Test GPU" : "Test CPU (2 threads)"},
                        {"mode", "inference"}, {"params", {{"batch", 1}}},
                        {"complete", true}};
  run["stages"] = nlohmann::json::array();
  double base_median = NAN, prev_median = NAN;
  uint32_t seed = cl ? 100 : 1;
  for (const FixtureStage& f : stages) {
    nlohmann::json s = {{"id", f.id}, {"title", f.title}, {"status", f.status}};
    s["claim"] = {{"source", "seed 000"},
                  {"text", "the document's words for " + f.id},
                  {"speedup", std::isnan(f.claim) ? nlohmann::json() : nlohmann::json(f.claim)}};
    // PyTorch's counterparts, as a model's ladder names them (the peer fixture's variants).
    const std::map<std::string, nlohmann::json> pytorch = {
        {"original", {{"variants", {"fp32-eager"}}, {"none", nullptr}}},
        {"fused-gelu",
         {{"variants", nlohmann::json::array()}, {"none", "no switch of its own in PyTorch"}}},
        {"graph-compile", {{"variants", {"compile-tf32", "tf32"}}, {"none", nullptr}}},
        {"fp16", {{"variants", {"bf16-autocast"}}, {"none", nullptr}}},
        {"int8", {{"variants", nlohmann::json::array()}, {"none", "no int8 in the menu"}}}};
    s["claim"]["pytorch"] = pytorch.at(f.id);
    s["reason"] = f.reason.empty() ? nlohmann::json() : nlohmann::json(f.reason);
    s["reasons"] = f.reason.empty() ? nlohmann::json::array() : nlohmann::json::array({f.reason});
    const nlohmann::json null;
    s["counters"] = nlohmann::json::object();
    s["opencl"] = null;
    if (f.status == "skipped") {
      s["time"] = {{"median_ms", null}, {"mean_ms", null},    {"stddev_ms", null}, {"min_ms", null},
                   {"max_ms", null},    {"p10_ms", null},     {"p90_ms", null},    {"cv", null},
                   {"samples", 0},      {"stop_reason", null}};
      s["speedup"] = {{"vs_baseline", null}, {"ci95", null}, {"vs_previous", null}};
      s["throughput"] = {{"items_per_s", null},
                         {"item_name", "sequences"},
                         {"gflops", null},
                         {"gbytes_per_s", null},
                         {"roofline_frac", null}};
      s["memory"] = {
          {"host_peak_bytes", null}, {"host_tensor_peak_bytes", null}, {"device_peak_bytes", null}};
      s["correctness"] = {{"cosine", null},       {"max_abs", null}, {"rel_l2", null},
                          {"tolerance", 0.99999}, {"basis", "fp32"}, {"pass", null}};
      s["samples_ms"] = nlohmann::json::array();
      run["stages"].push_back(s);
      ++seed;
      continue;
    }
    const auto it = scale.find(f.id);
    const double median = f.median_ms * (cl ? 0.25 : 1.0) * (it == scale.end() ? 1.0 : it->second);
    const std::vector<double> v = jittered(median, samples, seed++);
    const double med = type7_quantile(v, 0.5);
    double mean = 0;
    for (double x : v) mean += x;
    mean /= v.size();
    double var = 0;
    for (double x : v) var += (x - mean) * (x - mean);
    const double sd = std::sqrt(var / (v.size() - 1));
    if (std::isnan(base_median)) base_median = med;
    const double speedup = base_median / med;
    s["time"] = {{"median_ms", med},
                 {"mean_ms", mean},
                 {"stddev_ms", sd},
                 {"min_ms", *std::min_element(v.begin(), v.end())},
                 {"max_ms", *std::max_element(v.begin(), v.end())},
                 {"p10_ms", type7_quantile(v, 0.1)},
                 {"p90_ms", type7_quantile(v, 0.9)},
                 {"cv", sd / mean},
                 {"samples", v.size()},
                 {"stop_reason", "noise 0.6% <= 1.0%"}};
    s["speedup"] = {{"vs_baseline", speedup},
                    {"ci95", {speedup * 0.99, speedup * 1.01}},
                    {"vs_previous", std::isnan(prev_median) ? nlohmann::json()
                                                            : nlohmann::json(prev_median / med)}};
    prev_median = med;
    s["throughput"] = {{"items_per_s", 1000.0 / med},
                       {"item_name", "sequences"},
                       {"gflops", 52.0 / med},
                       {"gbytes_per_s", 3.0 / med},
                       {"roofline_frac", cl ? nlohmann::json(0.9 / med) : nlohmann::json()}};
    const double tensors = 22257536.0 * (f.id == "fp16" ? 0.5 : 1.0);
    s["memory"] = {{"host_peak_bytes", 107720704 + seed * 4096},
                   {"host_tensor_peak_bytes", cl ? nlohmann::json() : nlohmann::json(tensors)},
                   {"device_peak_bytes", cl ? nlohmann::json(tensors) : nlohmann::json()}};
    const double cosine = f.id == "int8" ? 0.98 : f.id == "original" ? 1.0 : 0.99999964;
    s["correctness"] = {{"cosine", cosine},
                        {"max_abs", 1e-6},
                        {"rel_l2", 1e-7},
                        {"tolerance", f.id == "int8" ? 0.99 : 0.99999},
                        {"basis", f.id == "int8" ? "int8" : "fp32"},
                        {"pass", f.id != "int8"}};
    s["samples_ms"] = v;
    run["stages"].push_back(s);
  }
  return run;
}

inline nlohmann::json fixture_document(const std::map<std::string, double>& scale = {},
                                       size_t samples = 12) {
  return {{"schema", "stagebench/1"},
          {"context",
           {{"host", "fixture-host"},
            {"date", "2026-01-01T00:00:00Z"},
            {"cpu", {{"model", "Test CPU"}}},
            {"build", {{"git", "abc1234"}, {"compiler", "gcc 12"}}}}},
          {"runs", {fixture_run("cpu", scale, samples), fixture_run("opencl", scale, samples)}}};
}

}  // namespace sb::test
