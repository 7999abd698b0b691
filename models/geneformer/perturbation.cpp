#include "models/geneformer/perturbation.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace sb::geneformer {
namespace {

double cosine(const float* a, const float* b, int64_t n) {
  double ab = 0, aa = 0, bb = 0;
  for (int64_t i = 0; i < n; ++i) {
    ab += double(a[i]) * b[i];
    aa += double(a[i]) * a[i];
    bb += double(b[i]) * b[i];
  }
  return aa > 0 && bb > 0 ? ab / std::sqrt(aa * bb) : 0.0;
}

std::vector<double> ranks(const std::vector<double>& v) {
  std::vector<size_t> order(v.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t x, size_t y) { return v[x] < v[y]; });
  std::vector<double> r(v.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
    for (size_t t = i; t <= j; ++t) r[order[t]] = 0.5 * static_cast<double>(i + j);
    i = j + 1;
  }
  return r;
}

std::vector<size_t> largest(const std::vector<double>& v, int64_t k) {
  std::vector<size_t> order(v.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) { return v[x] > v[y]; });
  order.resize(static_cast<size_t>(std::min<int64_t>(k, static_cast<int64_t>(v.size()))));
  return order;
}

}  // namespace

PerturbationEffects perturbation_effects(Model& model, Backend& be, const Cells& cells,
                                         int64_t cell, int64_t genes, int64_t batch) {
  PerturbationEffects e;
  e.cell = cell;
  genes = std::min(genes, cells.length(cell));
  std::vector<Cells> all;  // the original cell first, then one deletion per gene
  all.push_back(select(cells, cell));
  for (int64_t g = 0; g < genes; ++g) {
    all.push_back(delete_gene(cells, cell, g));
    e.positions.push_back(g);
  }
  std::vector<float> emb;
  for (size_t first = 0; first < all.size(); first += static_cast<size_t>(batch)) {
    const size_t last = std::min(all.size(), first + static_cast<size_t>(batch));
    const Cells part = stack({all.begin() + first, all.begin() + last});
    const Outputs o = model.forward(upload(be, part));
    const std::vector<float> v = be.download(o.cell_embedding);
    emb.insert(emb.end(), v.begin(), v.end());
  }
  const int64_t d = static_cast<int64_t>(emb.size() / all.size());
  for (int64_t g = 0; g < genes; ++g)
    e.shifts.push_back(1.0 - cosine(emb.data(), emb.data() + (g + 1) * d, d));
  return e;
}

double spearman(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size() || a.size() < 2)
    throw std::invalid_argument("spearman: needs two rankings of the same length >= 2");
  const std::vector<double> ra = ranks(a), rb = ranks(b);
  const double n = static_cast<double>(a.size()), mean = (n - 1) / 2;
  double ab = 0, aa = 0, bb = 0;
  for (size_t i = 0; i < ra.size(); ++i) {
    ab += (ra[i] - mean) * (rb[i] - mean);
    aa += (ra[i] - mean) * (ra[i] - mean);
    bb += (rb[i] - mean) * (rb[i] - mean);
  }
  return aa > 0 && bb > 0 ? ab / std::sqrt(aa * bb) : 0.0;
}

double top_k_overlap(const std::vector<double>& a, const std::vector<double>& b, int64_t k) {
  const auto ta = largest(a, k), tb = largest(b, k);
  if (ta.empty()) return 0.0;
  int64_t common = 0;
  for (size_t i : ta) common += std::find(tb.begin(), tb.end(), i) != tb.end();
  return static_cast<double>(common) / static_cast<double>(ta.size());
}

nlohmann::json agreement_json(const PerturbationEffects& stage,
                              const PerturbationEffects& baseline) {
  const int64_t k = std::max<int64_t>(1, static_cast<int64_t>(stage.shifts.size()) / 4);
  double max_shift = 0;
  for (double s : stage.shifts) max_shift = std::max(max_shift, s);
  return {{"what", "delete each of a cell's top-ranked genes; 1 - cosine shift of its embedding"},
          {"cell", stage.cell},
          {"genes", stage.shifts.size()},
          {"max_shift", max_shift},
          {"spearman_vs_baseline", spearman(stage.shifts, baseline.shifts)},
          {"top_k", k},
          {"top_k_overlap_vs_baseline", top_k_overlap(stage.shifts, baseline.shifts, k)}};
}

}  // namespace sb::geneformer
