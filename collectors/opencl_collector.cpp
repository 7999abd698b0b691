#include "collectors/opencl_collector.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "collectors/sample_stats.h"

namespace sb {

std::optional<std::string> gemm_path_of(const std::map<std::string, uint64_t>& calls) {
  std::map<std::string, uint64_t> by_path;
  for (const auto& [key, n] : calls) {
    const size_t space = key.find(' ');
    by_path[space == std::string::npos ? key : key.substr(space + 1)] += n;
  }
  if (by_path.empty()) return std::nullopt;
  std::vector<std::pair<std::string, uint64_t>> order(by_path.begin(), by_path.end());
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string out;
  for (const auto& [path, n] : order) out += (out.empty() ? "" : "+") + path;
  return out;
}

std::string OpenCLCollector::unavailable_reason() const {
  return available() ? std::string() : std::string("backend has no device kernels");
}

void OpenCLCollector::begin_stage(const CollectorSources& sources) {
  stage_begun_ = true;
  kernels_ = sources.kernels;
  totals_.clear();
  gemms_.clear();
  device_ns_.clear();
  h2d_bytes_ = d2h_bytes_ = 0;
}

void OpenCLCollector::start() {
  if (kernels_) kernels_->clear();  // the warm-up's pending events too
}

void OpenCLCollector::stop() {
  if (!kernels_) return;
  kernels_->drain();  // the sample's events, read now that its time is taken
  for (const auto& [name, kernel] : kernels_->kernels()) {
    auto& total = totals_[name];
    total.launches += kernel.launches;
    total.total_ns += kernel.total_ns;
  }
  for (const auto& [key, n] : kernels_->gemms()) gemms_[key] += n;
  device_ns_.push_back(kernels_->total_ns());
  h2d_bytes_ += kernels_->h2d_bytes();
  d2h_bytes_ += kernels_->d2h_bytes();
}

void OpenCLCollector::report(StageRecord& stage, double items_per_sample) const {
  if (!kernels_ || device_ns_.empty()) return;
  const double samples = static_cast<double>(device_ns_.size());
  nlohmann::json kernels = nlohmann::json::array();
  for (const auto& [name, total] : totals_) {
    kernels.push_back({{"name", name},
                       {"launches", static_cast<double>(total.launches) / samples},
                       {"total_ns", static_cast<double>(total.total_ns) / samples}});
  }
  // Heaviest kernel first: that is what a reader looks for.
  std::stable_sort(kernels.begin(), kernels.end(), [](const auto& a, const auto& b) {
    return a["total_ns"].template get<double>() > b["total_ns"].template get<double>();
  });
  const auto [min_ns, max_ns] = std::minmax_element(device_ns_.begin(), device_ns_.end());
  stage.opencl = {{"kernels", kernels},
                  {"device_ms",
                   {{"median", median_of(device_ns_) / 1e6},
                    {"min", static_cast<double>(*min_ns) / 1e6},
                    {"max", static_cast<double>(*max_ns) / 1e6}}},
                  {"h2d_bytes", static_cast<double>(h2d_bytes_) / samples},
                  {"d2h_bytes", static_cast<double>(d2h_bytes_) / samples},
                  {"samples", device_ns_.size()}};
  if (!gemms_.empty()) {
    nlohmann::json calls = nlohmann::json::object();
    for (const auto& [key, n] : gemms_) calls[key] = static_cast<double>(n) / samples;
    stage.opencl["gemm_calls"] = calls;
  }
  stage.gemm_path = gemm_path_of(gemms_);
}

}  // namespace sb
