#include "harness/batch_search.h"

#include <algorithm>
#include <optional>
#include <stdexcept>

namespace sb {
namespace {

// A batch whose extrapolated peak is within this fraction above the cap is still tried: the
// extrapolation is a straight line through two points, and a model's memory is only about
// linear in the batch (workspaces, rounding of buffer sizes).
constexpr double kPredictionMargin = 0.05;

class Search {
 public:
  Search(const BatchProbeFn& probe, const BatchSearchOptions& o) : probe_(probe), o_(o) {}

  BatchSearchResult run() {
    // Doubling: 1, 2, 4, ..., max_batch.
    for (int64_t b = 1;; b = std::min(b * 2, o_.max_batch)) {
      if (bounded_by_prediction(b)) break;
      if (probes_ >= o_.max_probes) {
        budget_ended_ = true;
        break;
      }
      if (!try_batch(b)) break;
      if (b == o_.max_batch) break;
    }
    // Bisection between the largest fitting batch and the smallest that does not fit.
    while (hi_ > 0 && hi_ - lo_ > std::max<int64_t>(1, static_cast<int64_t>(lo_ * o_.resolution))) {
      const int64_t mid = lo_ + (hi_ - lo_) / 2;
      if (bounded_by_prediction(mid)) continue;
      if (probes_ >= o_.max_probes) {
        budget_ended_ = true;
        break;
      }
      try_batch(mid);
    }
    return result();
  }

 private:
  // The peak at `batch` on the line through the two largest fitting probes; none while fewer
  // than two fitted or when memory did not grow between them.
  std::optional<double> predict(int64_t batch) const {
    const BatchProbe* a = nullptr;
    const BatchProbe* b = nullptr;
    for (const BatchProbe& p : r_.curve) {
      if (p.outcome != "fits" || !p.peak_bytes) continue;
      if (!b || p.batch > b->batch) {
        a = b;
        b = &p;
      } else if (!a || p.batch > a->batch) {
        a = &p;
      }
    }
    if (!a || !b || b->batch == a->batch) return std::nullopt;
    const double slope =
        (static_cast<double>(*b->peak_bytes) - static_cast<double>(*a->peak_bytes)) /
        static_cast<double>(b->batch - a->batch);
    if (slope <= 0) return std::nullopt;
    return static_cast<double>(*b->peak_bytes) + slope * static_cast<double>(batch - b->batch);
  }

  bool bounded_by_prediction(int64_t batch) {
    if (o_.memory_cap_bytes == 0) return false;
    const std::optional<double> peak = predict(batch);
    const double cap = static_cast<double>(o_.memory_cap_bytes);
    if (!peak || *peak <= cap * (1 + kPredictionMargin)) return false;
    BatchProbe p;
    p.batch = batch;
    p.outcome = "predicted over cap";
    p.peak_bytes = static_cast<uint64_t>(*peak);
    r_.curve.push_back(p);
    hi_ = batch;
    return true;
  }

  bool try_batch(int64_t batch) {
    ++probes_;
    BatchProbe p = probe_(batch);
    p.batch = batch;
    if (p.outcome != "failed")
      p.outcome = o_.memory_cap_bytes > 0 && p.peak_bytes && *p.peak_bytes > o_.memory_cap_bytes
                      ? "over cap"
                      : "fits";
    const bool fits = p.outcome == "fits";
    r_.curve.push_back(p);
    if (fits)
      lo_ = std::max(lo_, batch);
    else
      hi_ = hi_ == 0 ? batch : std::min(hi_, batch);
    return fits;
  }

  BatchSearchResult result() {
    std::stable_sort(r_.curve.begin(), r_.curve.end(),
                     [](const BatchProbe& a, const BatchProbe& b) { return a.batch < b.batch; });
    r_.largest_fitting = lo_;
    r_.first_not_fitting = hi_;
    double best = -1;
    for (const BatchProbe& p : r_.curve)
      if (p.outcome == "fits" && p.items_per_s && *p.items_per_s > best) {
        best = *p.items_per_s;
        r_.best_throughput = p.batch;
      }
    if (hi_ > 0) {
      for (const BatchProbe& p : r_.curve)
        if (p.batch == hi_) r_.limit = p.outcome == "over cap" ? "memory cap" : p.outcome;
    } else {
      r_.limit = budget_ended_ ? "probe budget" : "max batch";
    }
    if (budget_ended_ && hi_ > 0 && hi_ - lo_ > 1) r_.limit += ", then the probe budget";
    return r_;
  }

  const BatchProbeFn& probe_;
  const BatchSearchOptions& o_;
  BatchSearchResult r_;
  int64_t lo_ = 0, hi_ = 0;
  int probes_ = 0;
  bool budget_ended_ = false;
};

}  // namespace

BatchSearchResult search_batch(const BatchProbeFn& probe, const BatchSearchOptions& options) {
  if (options.max_batch < 1)
    throw std::invalid_argument("batch search: the largest batch must be >= 1");
  if (options.max_probes < 1) throw std::invalid_argument("batch search: probes must be >= 1");
  if (!(options.resolution >= 0 && options.resolution < 1))
    throw std::invalid_argument("batch search: resolution must be in [0, 1)");
  return Search(probe, options).run();
}

nlohmann::json batch_search_json(const BatchSearchResult& result, const BatchSearchOptions& options,
                                 const std::string& stage, const std::string& memory_basis,
                                 const std::string& cap_source) {
  nlohmann::json curve = nlohmann::json::array();
  auto number = [](const auto& v) { return v ? nlohmann::json(*v) : nlohmann::json(); };
  int probes = 0;
  for (const BatchProbe& p : result.curve) {
    curve.push_back({{"batch", p.batch},
                     {"outcome", p.outcome},
                     {"items_per_s", number(p.items_per_s)},
                     {"median_ms", number(p.median_ms)},
                     {"peak_bytes", number(p.peak_bytes)},
                     {"reason", number(p.reason)}});
    if (p.outcome != "predicted over cap") ++probes;
  }
  auto batch_or_null = [](int64_t b) { return b > 0 ? nlohmann::json(b) : nlohmann::json(); };
  return {
      {"stage", stage},
      {"memory_basis", memory_basis},
      {"memory_cap_bytes",
       options.memory_cap_bytes > 0 ? nlohmann::json(options.memory_cap_bytes) : nlohmann::json()},
      {"cap_source", cap_source},
      {"largest_fitting", batch_or_null(result.largest_fitting)},
      {"best_throughput", batch_or_null(result.best_throughput)},
      {"first_not_fitting", batch_or_null(result.first_not_fitting)},
      {"limit", result.limit},
      {"probes", probes},
      {"curve", curve}};
}

}  // namespace sb
