#pragma once
// CytoDL's DynUNet (docs/models.md): three sizes, the same network at each, tiny for tests,
// small for the CPU, full (seed 004's 64^3 x 8 patches) for GPUs.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace sb::dynunet {

struct Config {
  std::string size;
  std::array<int64_t, 3> filters{};  // F1 (input block), F2 (down), F3 (bottleneck)
  int64_t patch = 0;                 // cubic patch edge (voxels); a multiple of 4
  int64_t batch = 0;
  float eps = 1e-5f;                       // InstanceNorm
  float smooth = 1e-5f;                    // soft Dice
  float lr = 1e-3f, weight_decay = 0.01f;  // AdamW, every stage (the fused stage only fuses)
  int64_t check_steps = 0;                 // steps of the untimed training check
  int64_t voxels() const { return patch * patch * patch; }
};

// Throws naming the unknown size. batch <= 0 takes the size's default.
Config config_for(const std::string& size, int64_t batch = 0);
const std::vector<std::string>& sizes();

}  // namespace sb::dynunet
