#pragma once
// A user's own DynUNet: its levels, widths, kernels, strides and channels read from the
// weights' shapes, checked against MONAI's DynUNet arguments in a config.json beside them
// (docs/models.md, "Your own checkpoints").
#include <filesystem>

#include "models/dynunet/config.h"

namespace sb::dynunet {

// The configuration of the checkpoint at `weights` (a file, or a folder with model.safetensors;
// a "backbone." prefix on the names is accepted). From the shapes: the levels (counting
// downsamples.N, numbered from 0 without gaps, plus the input block and the bottleneck), each
// level's filters and kernel (its conv1), in_channels (input_block.conv1's columns),
// out_channels (output_block's rows) and each stride below the first from the transposed
// convolution that undoes it (MONAI's upsample_kernel_size defaults to the strides, and this
// port runs kernel = stride only). config.json's spatial_dims, in_channels, out_channels,
// kernel_size, strides, upsample_kernel_size and filters are checked against them, and
// res_block, deep_supervision and trans_bias against what this port builds. The preset's patch,
// batch, lr and check steps are kept. Every other tensor's shape is checked when Params::load
// reads it. Throws std::invalid_argument naming the first problem.
Config config_from_checkpoint(const Config& preset, const std::filesystem::path& weights);

}  // namespace sb::dynunet
