#pragma once
// Geneformer gf-6L-10M-i2048's sizes (docs/models.md): tiny for tests, small for the CPU,
// full as published (2,048 tokens; the seed's batch sweep runs 1, 8, 32 and 64 cells).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/ops/op_types.h"

namespace sb::geneformer {

struct Config {
  std::string size;
  int64_t layers = 0;
  int64_t hidden = 0;
  int64_t heads = 0;
  int64_t intermediate = 0;
  int64_t vocab = 0;
  int64_t max_positions = 0;
  int64_t type_vocab = 2;
  int64_t tokens = 0;  // sequence length of a batch (padded)
  int64_t batch = 1;
  float eps = 1e-12f;
  // The feed-forward activation: ReLU (Geneformer's), or exact GELU (Hugging Face's "gelu", the
  // BertConfig default) for other BERTs.
  Act activation = Act::relu;
  // Where the dimensions came from: "size <name>", or the weights file for a user's checkpoint;
  // and where heads and eps came from ("size tiny", "config.json", "--heads", "assumed ...").
  std::string source, heads_from, eps_from;
  std::string activation_from = "Geneformer's";
  // The in-silico-perturbation cell embedding is read after this layer (1-based): layer 5 of 6.
  int64_t embedding_layer() const { return layers > 1 ? layers - 1 : layers; }
  int64_t head_dim() const { return hidden / heads; }
};

// Command-line overrides of what a checkpoint's shapes cannot say (0 / nullopt: not given).
struct ConfigOverrides {
  int64_t heads = 0;
  std::optional<float> eps;
};

// Throws naming the unknown size. batch <= 0 takes the size's default batch.
Config config_for(const std::string& size, int64_t batch = 0);
const std::vector<std::string>& sizes();

}  // namespace sb::geneformer
