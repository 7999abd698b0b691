#pragma once
// CytoDL's DynUNet (docs/models.md): three sizes, the same network at each, tiny for tests,
// small for the CPU, full (seed 004's 64^3 x 8 patches) for GPUs. A user's checkpoint brings its
// own levels, widths, kernels, strides and channels (checkpoint.h).
#include <cstdint>
#include <string>
#include <vector>

namespace sb::dynunet {

struct Config {
  std::string size;
  // Per level, from the input block through the downsamples to the bottleneck: the ResBlocks'
  // widths, their convolutions' kernel (the up block that returns to the level above uses the
  // deeper level's, as MONAI's DynUNet does) and their first convolution's stride (the up block
  // undoing it is a transposed convolution of kernel and stride both that stride).
  std::vector<int64_t> filters;  // the sizes': F1 (input block), F2 (down), F3 (bottleneck)
  std::vector<int64_t> kernels;  // the sizes': 3, 3, 3
  std::vector<int64_t> strides;  // the sizes': 1, 2, 2 (the input block's is always 1)
  int64_t in_channels = 1;       // the synthetic volume repeated in each
  int64_t out_channels = 1;      // each channel's logits held to the same mask
  int64_t patch = 0;             // cubic patch edge (voxels)
  int64_t batch = 0;
  float eps = 1e-5f;                       // InstanceNorm
  float smooth = 1e-5f;                    // soft Dice
  float lr = 1e-3f, weight_decay = 0.01f;  // AdamW, every stage (the fused stage only fuses)
  int64_t check_steps = 0;                 // steps of the untimed training check
  std::string source;                      // "size tiny", or the checkpoint's file and config.json
  int64_t voxels() const { return patch * patch * patch; }
  int64_t levels() const { return static_cast<int64_t>(filters.size()); }
  // Each level's output edge: the patch through each level's convolution in turn.
  std::vector<int64_t> edges() const;
};

// MONAI's padding of a convolution (get_padding): (kernel - stride + 1) / 2, rounded down.
int64_t conv_padding(int64_t kernel, int64_t stride);

// Throws naming the unknown size. batch <= 0 takes the size's default.
Config config_for(const std::string& size, int64_t batch = 0);
const std::vector<std::string>& sizes();

// Throws std::invalid_argument unless the network can be built and trained here: at least two
// levels, positive widths, kernels and strides of one value per level, the input block at stride
// 1, and a patch that every level's convolution divides so that each up block's output meets its
// skip's size.
void check_config(const Config& c);

}  // namespace sb::dynunet
