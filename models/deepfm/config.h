#pragma once
// pharmagen DeepFM's sizes (docs/models.md): tiny for tests, small for the CPU, full for GPUs.
#include <cstdint>
#include <string>
#include <vector>

namespace sb::deepfm {

struct Config {
  std::string size;
  int64_t embed = 0;   // E, the width of the four embeddings
  int64_t hidden = 0;  // Hd, the feed-forward and deep widths
  int64_t layers = 0;  // of the deep branch
  int64_t heads = 0;   // the largest of 8/4/2/1 dividing E
  int64_t batch = 0;
  float dropout = 0.1f;  // every dropout of the encoder layer and the deep branch
  float eps = 1e-5f;     // LayerNorm
  float lr = 7.6e-5f, weight_decay = 1e-6f;
  int64_t check_steps = 0;  // steps of the untimed training check
  int64_t head_dim() const { return embed / heads; }
};

// Throws naming the unknown size. batch <= 0 takes the size's default.
Config config_for(const std::string& size, int64_t batch = 0);
const std::vector<std::string>& sizes();

}  // namespace sb::deepfm
