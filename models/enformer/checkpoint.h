#pragma once
// A user's own Enformer: its configuration read from the weights' shapes (and enformer-pytorch's
// config.json beside them), at any input length that the pools divide (docs/models.md, "Your own
// checkpoints").
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include "models/enformer/config.h"
#include "models/io/weight_source.h"

namespace sb::enformer {

struct ConfigOverrides {
  int64_t length = 0;  // input bp; 0: the preset's (or, for infer, the input's)
  int64_t target = 0;  // centre tokens kept after the transformer; 0: derived (target_rule)
};

// The weights at `weights` (a file or a folder with model.safetensors) under this port's names:
// a leading "enformer." or "model." is accepted, and enformer-pytorch's aliases "_trunk.1." (the
// stem), "_trunk.2." (the tower), "_trunk.4." (the transformer), "_trunk.6." (final_pointwise).
std::unique_ptr<SafetensorsWeights> open_weights(const std::filesystem::path& weights);

// The configuration of the checkpoint at `weights`. From the shapes: the filters (stem.0 and each
// conv_tower.N.0.2, so the number of tower blocks too), dim (final_pointwise's BatchNorm), depth
// (counting transformer.N), heads (dim / the columns of to_rel_k, which maps dim/heads relative
// features), the key size, the two heads' tracks. config.json's dim, depth, heads,
// attn_dim_key, num_downsamples and output_heads are checked against them, its target_length
// used (-1: no crop) unless `overrides.target` is given; use_tf_gamma is refused (this port
// computes the gamma features for any length). The preset's length and batch are kept unless
// overridden. Throws std::invalid_argument naming the first problem.
Config config_from_checkpoint(const Config& preset, const std::filesystem::path& weights,
                              const ConfigOverrides& overrides);

// `overrides` applied: a new length re-derives the target unless one is given. Checked.
Config with_overrides(Config c, const ConfigOverrides& overrides);

// The target for a configuration's length: the named size's at its own length; otherwise the
// published model's proportion (896 of 1,536 tokens: 320 cropped on each side), so the crop
// stays symmetric.
int64_t target_rule(const Config& c);

// Throws std::invalid_argument unless every dimension is positive, heads divide dim, dim/heads
// relative features are a multiple of 6 (three feature families, each mirrored by the sign of
// the distance), the last filter is dim, the pools divide the length, and the target fits in the
// tokens with an even number cropped.
void check_config(const Config& c);

// One line: "dim 120, depth 2, 5 heads (key 32), filters 60-120 over 6 tower blocks, ...".
std::string describe(const Config& c);

}  // namespace sb::enformer
