#pragma once
// A synthetic pharmagen table (no real data ships). The targets depend on the inputs, so a model
// can learn them: every drug, genalle, gene and allele has a latent random vector;
//   effect_type      = argmax of a fixed random projection of latent(drug) + latent(gene),
//   effect_direction = argmax of another projection of latent(genalle) + latent(allele),
//   outcome label l  = projection l of latent(drug) + latent(allele) above a threshold (at least
//                      one label per row),
// each with about 10% label noise (5% per outcome bit). Values are drawn with a skew towards low
// indices, so that some are rare and the test split meets values the training split never saw.
// Values hold spaces ("drug 17 hydrochloride", "CYP2D6 *4", "gene A12", "rs1021 G") and the
// outcome lists mix ',' and ';' with optional spaces, as the real table does.
#include "models/deepfm/data/table.h"

namespace sb::deepfm {

// Deterministic in the spec (the same seed gives the same table on every platform). Throws
// std::invalid_argument for a non-positive vocabulary or fewer than kMinRows rows.
Table generate_table(const TableSpec& spec);

// The raw spelling of value i of a column (for tests and tools).
std::string drug_name(int64_t i);
std::string genalle_name(int64_t i);
std::string gene_name(int64_t i);
std::string allele_name(int64_t i);

}  // namespace sb::deepfm
