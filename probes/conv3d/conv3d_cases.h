// DynUNet full's conv3d shapes, shared by conv3d_igemm_check's forward and backward checks.
#pragma once

#include <cstdint>

namespace conv3d_probe {

struct Case {
  const char* where;
  int64_t in, out, edge;
  int kernel, stride;
  bool bias;
};

// network.cpp's forward convolutions at --size full (filters 16, 32, 64, patch 64, batch 8).
inline constexpr Case kCases[] = {
    {"input_block.conv1", 1, 16, 64, 3, 1, false},
    {"input_block.conv2, upsamples.1.conv2", 16, 16, 64, 3, 1, false},
    {"input_block.conv3", 1, 16, 64, 1, 1, false},
    {"downsamples.0.conv1", 16, 32, 64, 3, 2, false},
    {"downsamples.0.conv2, upsamples.0.conv2", 32, 32, 32, 3, 1, false},
    {"downsamples.0.conv3", 16, 32, 64, 1, 2, false},
    {"bottleneck.conv1", 32, 64, 32, 3, 2, false},
    {"bottleneck.conv2", 64, 64, 16, 3, 1, false},
    {"bottleneck.conv3", 32, 64, 32, 1, 2, false},
    {"upsamples.0.conv1", 64, 32, 32, 3, 1, false},
    {"upsamples.1.conv1", 32, 16, 64, 3, 1, false},
    {"output_block", 16, 1, 64, 1, 1, true},
};
inline constexpr int64_t kBatch = 8;

}  // namespace conv3d_probe
