#pragma once
// In-silico perturbation (Geneformer's deletion): delete one gene token of a cell at a time and
// take the cosine shift of the cell embedding, 1 - cos(original, perturbed). Reduced-precision
// stages are judged on the task too: does their ranking of the genes by effect agree with fp32?
#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/geneformer/model.h"

namespace sb::geneformer {

struct PerturbationEffects {
  int64_t cell = 0;
  std::vector<int64_t> positions;  // deleted gene's rank position in the cell
  std::vector<double> shifts;      // 1 - cosine(original, perturbed embedding)
};

// Deletes each of the cell's first `genes` gene tokens; runs `batch` cells per forward.
PerturbationEffects perturbation_effects(Model& model, Backend& be, const Cells& cells,
                                         int64_t cell, int64_t genes, int64_t batch);

double spearman(const std::vector<double>& a, const std::vector<double>& b);  // ties averaged
// Fraction of the k largest entries of `a` that are among the k largest of `b`.
double top_k_overlap(const std::vector<double>& a, const std::vector<double>& b, int64_t k);

nlohmann::json agreement_json(const PerturbationEffects& stage,
                              const PerturbationEffects& baseline);

}  // namespace sb::geneformer
