#include "harness/correctness.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

namespace sb {

Tolerance tolerance_for(const std::string& basis) {
  if (basis == "fp32") return {0.99999, basis, 1e-4};
  if (basis == "tf32") return {0.9999, basis, 5e-3};
  if (basis == "bf16" || basis == "fp16") return {0.999, basis, 3e-2};
  if (basis == "int8") return {0.99, basis, 1e-1};
  throw std::invalid_argument("unknown precision basis '" + basis +
                              "' (expected fp32, tf32, bf16, fp16 or int8)");
}

Tolerance tolerance_that_ran(const Tolerance& declared, const std::string& ran) {
  if (ran.empty() || ran == declared.basis) return declared;
  Tolerance t = tolerance_for(ran);  // an unknown name is a model's bug: it throws
  if (t.min_cosine >= declared.min_cosine) return declared;
  t.max_loss_rel = declared.max_loss_rel;
  return t;
}

namespace {

std::string first_non_finite(const std::vector<float>& v, const char* which) {
  for (size_t i = 0; i < v.size(); ++i) {
    if (!std::isfinite(v[i])) {
      return std::string(which) + " has " + (std::isnan(v[i]) ? "NaN" : "Inf") + " at index " +
             std::to_string(i);
    }
  }
  return {};
}

}  // namespace

CorrectnessResult compare(const std::vector<float>& candidate, const std::vector<float>& reference,
                          const Tolerance& tolerance) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  CorrectnessResult r;
  r.tolerance = tolerance.min_cosine;
  r.rel_l2_tolerance = tolerance.max_rel_l2();
  r.basis = tolerance.basis;
  r.cosine = r.max_abs = r.rel_l2 = kNaN;

  if (candidate.size() != reference.size()) {
    r.reason = "output size " + std::to_string(candidate.size()) + " != baseline size " +
               std::to_string(reference.size());
    return r;
  }
  if (reference.empty()) {
    r.reason = "empty output";
    return r;
  }
  if (std::string bad = first_non_finite(candidate, "output"); !bad.empty()) {
    r.reason = bad;
    return r;
  }
  if (std::string bad = first_non_finite(reference, "baseline output"); !bad.empty()) {
    r.reason = bad;
    return r;
  }

  double dot = 0, cc = 0, rr = 0, diff2 = 0, max_abs = 0;
  for (size_t i = 0; i < reference.size(); ++i) {
    const double c = candidate[i], ref = reference[i], d = c - ref;
    dot += c * ref;
    cc += c * c;
    rr += ref * ref;
    diff2 += d * d;
    max_abs = std::max(max_abs, std::fabs(d));
  }
  r.max_abs = max_abs;
  if (cc == 0 && rr == 0) {
    r.cosine = 1;  // both all zeros: identical
    r.rel_l2 = 0;
  } else if (cc == 0 || rr == 0) {
    r.rel_l2 = rr > 0 ? std::sqrt(diff2 / rr) : kNaN;
    r.reason =
        std::string(rr == 0 ? "baseline output" : "output") + " is all zeros: cosine undefined";
    return r;
  } else {
    r.cosine = dot / (std::sqrt(cc) * std::sqrt(rr));
    r.rel_l2 = std::sqrt(diff2 / rr);
  }
  const bool direction = r.cosine >= tolerance.min_cosine;
  const bool magnitude = r.rel_l2 <= r.rel_l2_tolerance;
  r.pass = direction && magnitude;
  char buf[128];
  if (!direction) {
    std::snprintf(buf, sizeof buf, "cosine %.8f < %.8g (%s)", r.cosine, tolerance.min_cosine,
                  tolerance.basis.c_str());
    r.reason = buf;
  } else if (!magnitude) {
    std::snprintf(buf, sizeof buf, "relative L2 error %.3g > %.3g (%s)", r.rel_l2,
                  r.rel_l2_tolerance, tolerance.basis.c_str());
    r.reason = buf;
  }
  return r;
}

CorrectnessResult compare_training(const TrainTrace& candidate, const TrainTrace& reference,
                                   const Tolerance& tolerance) {
  CorrectnessResult r = compare(candidate.params, reference.params, tolerance);
  r.loss_tolerance = tolerance.max_loss_rel;
  auto fail_loss = [&](const std::string& why) {
    r.pass = false;
    r.reason = r.reason.empty() ? why : why + "; " + r.reason;
  };
  if (candidate.loss.size() != reference.loss.size() || reference.loss.empty()) {
    fail_loss("loss curve of " + std::to_string(candidate.loss.size()) + " steps against " +
              std::to_string(reference.loss.size()));
    return r;
  }
  double worst = 0;
  size_t worst_step = 0;
  for (size_t i = 0; i < reference.loss.size(); ++i) {
    const double a = candidate.loss[i], b = reference.loss[i];
    if (!std::isfinite(a) || !std::isfinite(b)) {
      fail_loss("loss at step " + std::to_string(i) + " is not finite");
      return r;
    }
    const double rel = std::abs(a - b) / std::max(std::abs(b), 1e-12);
    if (rel > worst) worst = rel, worst_step = i;
  }
  r.loss_max_rel = worst;
  if (worst > tolerance.max_loss_rel) {
    char text[160];
    std::snprintf(text, sizeof text, "loss differs by %.3g (relative) at step %zu > %.3g", worst,
                  worst_step, tolerance.max_loss_rel);
    fail_loss(text);
  }
  return r;
}

}  // namespace sb
