#include "models/deepfm/data/synthetic.h"

#include <algorithm>
#include <stdexcept>

#include "models/deepfm/data/rng.h"

namespace sb::deepfm {
namespace {

constexpr int kLatent = 8;
using Latent = std::array<double, kLatent>;

std::vector<Latent> latents(int64_t n, Rng& rng) {
  std::vector<Latent> v(static_cast<size_t>(n));
  for (auto& z : v)
    for (auto& x : z) x = 2 * rng.unit() - 1;
  return v;
}

Latent add(const Latent& a, const Latent& b) {
  Latent s;
  for (int i = 0; i < kLatent; ++i) s[i] = a[i] + b[i];
  return s;
}

double dot(const Latent& a, const Latent& b) {
  double s = 0;
  for (int i = 0; i < kLatent; ++i) s += a[i] * b[i];
  return s;
}

int argmax(const std::vector<Latent>& projection, const Latent& z) {
  int best = 0;
  double best_score = dot(projection[0], z);
  for (size_t c = 1; c < projection.size(); ++c) {
    const double s = dot(projection[c], z);
    if (s > best_score) best = static_cast<int>(c), best_score = s;
  }
  return best;
}

// Skewed towards low indices (density ~ 1/sqrt), so that the high ones are rare.
int64_t draw(int64_t n, Rng& rng) {
  const double u = rng.unit();
  return std::min<int64_t>(n - 1, static_cast<int64_t>(static_cast<double>(n) * u * u));
}

}  // namespace

std::string drug_name(int64_t i) {
  static constexpr std::array<const char*, 5> kSalts = {"", " hydrochloride", " sodium", " acetate",
                                                        " mesylate"};
  return "drug " + std::to_string(i) + kSalts[static_cast<size_t>(i % 5)];
}
std::string genalle_name(int64_t i) {
  return "CYP2D" + std::to_string(i % 10) + " *" + std::to_string(i / 10 + 1);
}
std::string gene_name(int64_t i) {
  return "gene " + std::string(1, static_cast<char>('A' + i % 26)) + std::to_string(i / 26);
}
std::string allele_name(int64_t i) {
  static constexpr std::array<const char*, 4> kBases = {"A", "C", "G", "T"};
  return "rs" + std::to_string(1000 + 7 * i) + " " + kBases[static_cast<size_t>(i % 4)];
}

Table generate_table(const TableSpec& spec) {
  const Vocab& v = spec.vocab;
  if (v.drug <= 0 || v.genalle <= 0 || v.gene <= 0 || v.allele <= 0)
    throw std::invalid_argument("deepfm: synthetic table needs positive vocabulary sizes");
  if (spec.rows < kMinRows)
    throw std::invalid_argument("deepfm: synthetic table of " + std::to_string(spec.rows) +
                                " rows, need at least " + std::to_string(kMinRows));

  // Separate streams, so that changing the row count keeps the latents and projections.
  Rng model(mix_seed(spec.seed, 1)), rows(mix_seed(spec.seed, 2));
  const auto z_drug = latents(v.drug, model), z_genalle = latents(v.genalle, model),
             z_gene = latents(v.gene, model), z_allele = latents(v.allele, model);
  const auto w_type = latents(kTypes, model), w_dir = latents(kDirections, model),
             w_out = latents(kOutcomes, model);
  // About a third of the labels on: the projection's spread is sqrt(8 * 2/3 * 1/3) ~ 1.33.
  constexpr double kThreshold = 0.65;
  static constexpr std::array<const char*, 6> kSeparators = {",", ", ", ";", "; ", " ,", " ; "};

  Table t;
  t.source = "synthetic(seed " + std::to_string(spec.seed) + ")";
  t.rows.resize(static_cast<size_t>(spec.rows));
  for (auto& row : t.rows) {
    const int64_t d = draw(v.drug, rows), ga = draw(v.genalle, rows), g = draw(v.gene, rows),
                  a = draw(v.allele, rows);
    int type = argmax(w_type, add(z_drug[d], z_gene[g]));
    if (rows.unit() < 0.1) type = static_cast<int>(rows.below(kTypes));
    int dir = argmax(w_dir, add(z_genalle[ga], z_allele[a]));
    if (rows.unit() < 0.1) dir = static_cast<int>(rows.below(kDirections));
    const Latent za = add(z_drug[d], z_allele[a]);
    std::array<bool, kOutcomes> on{};
    bool any = false;
    for (int l = 0; l < kOutcomes; ++l) {
      on[l] = dot(w_out[l], za) > kThreshold;
      if (rows.unit() < 0.05) on[l] = !on[l];
      any = any || on[l];
    }
    if (!any) on[argmax(w_out, za)] = true;
    std::string outcome;
    for (int l = 0; l < kOutcomes; ++l) {
      if (!on[l]) continue;
      if (!outcome.empty()) outcome += kSeparators[rows.below(kSeparators.size())];
      outcome += kOutcomeNames[l];
    }
    row = {drug_name(d),
           genalle_name(ga),
           gene_name(g),
           allele_name(a),
           outcome,
           std::string(kDirectionNames[dir]),
           std::string(kTypeNames[type])};
  }
  return t;
}

}  // namespace sb::deepfm
