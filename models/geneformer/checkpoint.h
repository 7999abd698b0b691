#pragma once
// A user's own Geneformer/BERT checkpoint: its configuration read from the weights' shapes, with
// heads and LayerNorm eps from a Hugging Face config.json beside the file or the command line
// (docs/models.md, "Your own checkpoints").
#include <filesystem>
#include <string>

#include "models/geneformer/config.h"
#include "models/io/weight_source.h"  // weights_file

namespace sb::geneformer {

// The configuration of the checkpoint at `weights` (a file or a folder). From the shapes: vocab
// and hidden (embeddings.word_embeddings.weight), positions (position_embeddings), token types,
// layers (counting encoder.layer.N), intermediate (layer 0's intermediate.dense.weight); a
// leading "bert." or "backbone." on the names is accepted (checkpoint_prefixes()). Heads and eps:
// `overrides`, else config.json's num_attention_heads / layer_norm_eps, else the preset's when the
// shapes are the preset's, else hidden/64 heads (BERT's convention, recorded as assumed) and eps
// 1e-12. The preset's tokens (capped at the positions) and batch are kept. Throws
// std::invalid_argument naming the first problem: a missing tensor, a shape or config.json value
// contradicting another, heads that do not divide the hidden size, an activation other than ReLU.
Config config_from_checkpoint(const Config& preset, const std::filesystem::path& weights,
                              const ConfigOverrides& overrides);

// The prefixes a stored name may carry: BertForMaskedLM's "bert.", a wrapper's "backbone.".
const std::vector<std::string>& checkpoint_prefixes();

// `overrides` applied to a named size's configuration (random weights).
Config with_overrides(Config c, const ConfigOverrides& overrides);

// Throws std::invalid_argument unless heads divide hidden, eps is positive and every dimension
// is at least 1.
void check_config(const Config& c);

// One line: "3 layers, hidden 96, 3 heads (config.json), intermediate 192, ...".
std::string describe(const Config& c);

}  // namespace sb::geneformer
