#pragma once
// A user's own DeepFM: its configuration read from the weights' shapes, with what shapes cannot
// tell (heads, dropout, LayerNorm eps) from a config.json beside them (docs/models.md, "Your own
// checkpoints").
#include <filesystem>

#include "models/deepfm/config.h"
#include "models/deepfm/params.h"

namespace sb::deepfm {

struct Checkpoint {
  Config config;
  Cardinality rows;  // each embedding table's rows: the field's vocabulary plus its unknown class
};

// The configuration of the checkpoint at `weights` (a file, or a folder with model.safetensors).
// From the shapes: embed and the four vocabularies (the *_emb tables), the encoder's
// feed-forward width (encoder.linear1), the deep layers (counting deep.N, numbered from 0
// without gaps) and each one's width. config.json may give heads (else the largest of 8/4/2/1
// dividing embed, as the reference does), dropout and layer_norm_eps, and its embed, ff, deep and
// vocab are checked against the shapes. The preset's batch, lr and check steps are kept. Every
// other tensor's shape is checked when Params::load reads it. Throws std::invalid_argument
// naming the first problem: a missing tensor, a wrong rank, a shape or config.json value
// contradicting another, heads that do not divide embed.
Checkpoint config_from_checkpoint(const Config& preset, const std::filesystem::path& weights);

}  // namespace sb::deepfm
