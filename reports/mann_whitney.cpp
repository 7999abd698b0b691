#include "reports/mann_whitney.h"

#include <algorithm>

namespace sb {
namespace {

constexpr size_t kSortedDifferencesMax = 1 << 16;

// counts[u] = number of orderings of m x's and n y's with statistic u, all m,n up to the sizes.
// Built by the recursion f(m, n, u) = f(m - 1, n, u) + f(m, n - 1, u - m): the largest of the
// m + n values is either an x (adds nothing to U of y) or a y (beats all m x's).
std::vector<double> exact_u_distribution(size_t m, size_t n) {
  // f[i][j] is a vector over u of length i*j+1; keep two rows over j to bound memory.
  std::vector<std::vector<double>> prev(n + 1), cur(n + 1);
  for (size_t j = 0; j <= n; ++j) prev[j] = {1.0};  // m = 0: one ordering, U = 0
  for (size_t i = 1; i <= m; ++i) {
    cur[0] = {1.0};
    for (size_t j = 1; j <= n; ++j) {
      std::vector<double> f(i * j + 1, 0.0);
      for (size_t u = 0; u < prev[j].size(); ++u) f[u] += prev[j][u];            // largest is x
      for (size_t u = 0; u < cur[j - 1].size(); ++u) f[u + i] += cur[j - 1][u];  // largest is y
      cur[j] = std::move(f);
    }
    std::swap(prev, cur);
  }
  return prev[n];
}

double normal_upper_tail(double z) {
  return 0.5 * std::erfc(z / std::sqrt(2.0));
}

// Number of pairs (i, j) with y[j] - x[i] <= d; x and y sorted ascending. O(n_x + n_y).
size_t pairs_at_most(const std::vector<double>& x, const std::vector<double>& y, double d) {
  size_t count = 0, i = 0;
  // For each y[j] (ascending), the x's with x >= y[j] - d form a suffix that only shrinks.
  for (size_t j = 0; j < y.size(); ++j) {
    while (i < x.size() && x[i] < y[j] - d) ++i;
    count += x.size() - i;
  }
  return count;
}

// The k-th smallest (1-based) pairwise difference y - x, by bisection on the value: no n_x*n_y
// array, so a document with huge sample arrays cannot exhaust memory.
double kth_difference(const std::vector<double>& x, const std::vector<double>& y, size_t k) {
  double lo = y.front() - x.back(), hi = y.back() - x.front();
  if (pairs_at_most(x, y, lo) >= k) return lo;
  for (int iter = 0; iter < 200; ++iter) {
    const double mid = lo + (hi - lo) / 2;
    if (mid <= lo || mid >= hi) break;
    (pairs_at_most(x, y, mid) >= k ? hi : lo) = mid;
  }
  return hi;
}

}  // namespace

double normal_upper_quantile(double q) {
  thread_local double last_q = NAN, last_z = NAN;  // compare asks for the same alpha every time
  if (q == last_q) return last_z;
  double lo = -40, hi = 40;
  for (int i = 0; i < 200; ++i) {
    const double mid = (lo + hi) / 2;
    (normal_upper_tail(mid) > q ? lo : hi) = mid;
  }
  last_q = q;
  last_z = (lo + hi) / 2;
  return last_z;
}

MannWhitney mann_whitney(std::vector<double> x, std::vector<double> y, double alpha) {
  auto finite_only = [](std::vector<double>& v) {
    v.erase(std::remove_if(v.begin(), v.end(), [](double d) { return !std::isfinite(d); }),
            v.end());
    std::sort(v.begin(), v.end());
  };
  finite_only(x);
  finite_only(y);
  MannWhitney r;
  r.n_x = x.size();
  r.n_y = y.size();
  if (x.empty() || y.empty()) return r;
  const double m = static_cast<double>(x.size()), n = static_cast<double>(y.size());

  // Midranks over the pooled sample; tie groups feed the variance correction.
  struct Value {
    double v;
    bool from_y;
  };
  std::vector<Value> pooled;
  pooled.reserve(x.size() + y.size());
  for (double v : x) pooled.push_back({v, false});
  for (double v : y) pooled.push_back({v, true});
  std::sort(pooled.begin(), pooled.end(), [](const Value& a, const Value& b) { return a.v < b.v; });
  double rank_sum_y = 0, tie_term = 0;
  bool ties = false;
  for (size_t i = 0; i < pooled.size();) {
    size_t j = i;
    while (j < pooled.size() && pooled[j].v == pooled[i].v) ++j;
    const double t = static_cast<double>(j - i);
    const double midrank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2;
    for (size_t k = i; k < j; ++k)
      if (pooled[k].from_y) rank_sum_y += midrank;
    if (t > 1) {
      ties = true;
      tie_term += t * t * t - t;
    }
    i = j;
  }
  r.u = rank_sum_y - n * (n + 1) / 2;
  const double mean_u = m * n / 2;
  const double total = m + n;

  std::vector<double> dist;
  if (!ties && x.size() <= kMannWhitneyExactMax && y.size() <= kMannWhitneyExactMax) {
    dist = exact_u_distribution(x.size(), y.size());
    double all = 0;
    for (double c : dist) all += c;
    for (double& c : dist) c /= all;
    const auto u = static_cast<size_t>(std::llround(r.u));
    double lower = 0, upper = 0;
    for (size_t k = 0; k < dist.size(); ++k) {
      if (k <= u) lower += dist[k];
      if (k >= u) upper += dist[k];
    }
    r.p_value = std::min(1.0, 2 * std::min(lower, upper));
    r.exact = true;
  } else {
    const double var = m * n / 12 * ((total + 1) - tie_term / (total * (total - 1)));
    if (var <= 0) {
      r.p_value = 1;  // every value equal: no evidence of a shift
    } else {
      const double z = std::max(0.0, std::fabs(r.u - mean_u) - 0.5) / std::sqrt(var);
      r.p_value = std::min(1.0, 2 * normal_upper_tail(z));
    }
  }

  // Hodges-Lehmann shift and interval: order statistics of the m*n differences y - x. The
  // interval is [D(k), D(mn + 1 - k)] with k the largest count whose lower tail P(U <= k - 1)
  // stays within alpha/2.
  const auto pairs = static_cast<size_t>(m * n);
  // Small samples: sort the differences once. Large ones: bisection, without the m*n array.
  std::vector<double> differences;
  if (pairs <= kSortedDifferencesMax) {
    differences.reserve(pairs);
    for (double xi : x)
      for (double yj : y) differences.push_back(yj - xi);
    std::sort(differences.begin(), differences.end());
  }
  auto kth = [&](size_t k) {
    return differences.empty() ? kth_difference(x, y, k) : differences[k - 1];
  };
  const size_t mid = (pairs + 1) / 2;
  r.shift = pairs % 2 ? kth(mid) : (kth(mid) + kth(mid + 1)) / 2;
  size_t k = 0;
  if (!dist.empty()) {
    double tail = 0;
    while (k < dist.size() && tail + dist[k] <= alpha / 2) tail += dist[k++];
  } else {
    const double z = normal_upper_quantile(alpha / 2);
    const double bound = mean_u - z * std::sqrt(m * n * (total + 1) / 12);
    k = bound >= 1 ? static_cast<size_t>(std::floor(bound)) : 0;
  }
  if (k >= 1 && k <= pairs / 2) {
    r.shift_lo = kth(k);
    r.shift_hi = kth(pairs + 1 - k);
  }
  return r;
}

}  // namespace sb
