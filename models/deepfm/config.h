#pragma once
// pharmagen DeepFM's sizes (docs/models.md): tiny for tests, small for the CPU, full for GPUs.
#include <cstdint>
#include <string>
#include <vector>

namespace sb::deepfm {

struct Config {
  std::string size;
  int64_t embed = 0;   // E, the width of the four embeddings
  int64_t hidden = 0;  // Hd, the feed-forward and deep widths of the named sizes
  int64_t layers = 0;  // of the deep branch
  int64_t heads = 0;   // the largest of 8/4/2/1 dividing E, unless a checkpoint's config.json says
  // A checkpoint's own widths (models/deepfm/checkpoint.h); 0 / empty: hidden, as the sizes have.
  int64_t ff = 0;                    // the encoder layer's feed-forward (linear1's rows)
  std::vector<int64_t> deep_widths;  // each deep layer's output, `layers` of them
  std::string source;                // "size tiny", or the checkpoint's file and config.json
  int64_t batch = 0;
  float dropout = 0.1f;  // every dropout of the encoder layer and the deep branch
  float eps = 1e-5f;     // LayerNorm
  float lr = 7.6e-5f, weight_decay = 1e-6f;
  int64_t check_steps = 0;  // steps of the untimed training check
  int64_t head_dim() const { return embed / heads; }
  int64_t ff_width() const { return ff > 0 ? ff : hidden; }
  int64_t deep_width(int64_t layer) const {
    return deep_widths.empty() ? hidden : deep_widths.at(static_cast<size_t>(layer));
  }
  int64_t deep_out() const { return deep_width(layers - 1); }  // what the heads read, with the FM
};

// Throws naming the unknown size. batch <= 0 takes the size's default.
Config config_for(const std::string& size, int64_t batch = 0);
const std::vector<std::string>& sizes();

}  // namespace sb::deepfm
