#include "models/dynunet/config.h"

#include <stdexcept>

#include "models/sizes.h"

namespace sb::dynunet {
namespace {

std::string n(int64_t v) {
  return std::to_string(v);
}

int64_t conv_out(int64_t edge, int64_t kernel, int64_t stride) {
  return (edge + 2 * conv_padding(kernel, stride) - kernel) / stride + 1;
}

}  // namespace

const std::vector<std::string>& sizes() {
  static const std::vector<std::string> s{"tiny", "small", "full"};
  return s;
}

int64_t conv_padding(int64_t kernel, int64_t stride) {
  const int64_t twice = kernel - stride + 1;  // floored, as Python's: -1 is a negative padding
  return twice >= 0 ? twice / 2 : -((1 - twice) / 2);
}

std::vector<int64_t> Config::edges() const {
  std::vector<int64_t> e;
  int64_t edge = patch;
  for (size_t i = 0; i < filters.size(); ++i) {
    edge = conv_out(edge, kernels.at(i), strides.at(i));
    e.push_back(edge);
  }
  return e;
}

Config config_for(const std::string& size, int64_t batch) {
  Config c;
  c.size = size;
  if (size == "tiny") {
    c.filters = {8, 16, 32}, c.patch = 16, c.batch = 1, c.check_steps = 4;
    // The documented lr barely moves Dice within a test's few dozen steps; the tiny size exists
    // to show that training learns, so it learns faster.
    c.lr = 1e-2f;
  } else if (size == "small") {
    c.filters = {16, 32, 64}, c.patch = 32, c.batch = 2, c.check_steps = 4;
  } else if (size == "full") {
    c.filters = {16, 32, 64}, c.patch = 64, c.batch = 8, c.check_steps = 4;
  } else {
    throw_unknown_size("dynunet", size, sizes());
  }
  c.kernels = {3, 3, 3};
  c.strides = {1, 2, 2};
  if (batch > 0) c.batch = batch;
  c.source = "size " + size;
  return c;
}

void check_config(const Config& c) {
  const size_t levels = c.filters.size();
  if (levels < 2)
    throw std::invalid_argument("dynunet: " + n(static_cast<int64_t>(levels)) +
                                " level(s); the network needs an input block and a bottleneck");
  if (c.kernels.size() != levels || c.strides.size() != levels)
    throw std::invalid_argument("dynunet: " + n(static_cast<int64_t>(levels)) + " filters but " +
                                n(static_cast<int64_t>(c.kernels.size())) + " kernels and " +
                                n(static_cast<int64_t>(c.strides.size())) + " strides");
  for (const auto& [what, v] : {std::pair<const char*, int64_t>{"in_channels", c.in_channels},
                                {"out_channels", c.out_channels},
                                {"patch", c.patch},
                                {"batch", c.batch}})
    if (v < 1) throw std::invalid_argument("dynunet: " + std::string(what) + " = " + n(v));
  for (size_t i = 0; i < levels; ++i) {
    const std::string level = "dynunet: level " + n(static_cast<int64_t>(i)) + ": ";
    if (c.filters[i] < 1 || c.kernels[i] < 1 || c.strides[i] < 1)
      throw std::invalid_argument(level + "filters " + n(c.filters[i]) + ", kernel " +
                                  n(c.kernels[i]) + ", stride " + n(c.strides[i]) +
                                  " must all be positive");
    // The block's residual projection is a 1x1x1 convolution at the same stride: stride 2 at
    // most, whatever the kernel.
    if (conv_padding(c.kernels[i], c.strides[i]) < 0 || conv_padding(1, c.strides[i]) < 0)
      throw std::invalid_argument(level + "stride " + n(c.strides[i]) + " with kernel " +
                                  n(c.kernels[i]) +
                                  " and the 1x1x1 residual projection gives a negative padding "
                                  "(MONAI refuses it too)");
  }
  if (c.strides[0] != 1)
    throw std::invalid_argument("dynunet: the input block's stride is " + n(c.strides[0]) +
                                "; it must be 1, so that the logits have the mask's size");
  // Each level's output, brought back up by its transposed convolution (kernel = stride), must
  // be the size of the level above's: the skip it is concatenated with.
  int64_t edge = c.patch;
  for (size_t i = 0; i < levels; ++i) {
    const int64_t k = c.kernels[i], s = c.strides[i], pad = conv_padding(k, s);
    if (edge + 2 * pad < k)
      throw std::invalid_argument("dynunet: level " + n(static_cast<int64_t>(i)) + "'s input of " +
                                  n(edge) + " voxels a side is smaller than its kernel " + n(k));
    const int64_t out = conv_out(edge, k, s);
    if (out * s != edge)
      throw std::invalid_argument(
          "dynunet: patch " + n(c.patch) + ": level " + n(static_cast<int64_t>(i)) +
          "'s convolution (kernel " + n(k) + ", stride " + n(s) + ") takes " + n(edge) + " to " +
          n(out) + " voxels a side, which its up block brings back to " + n(out * s) + ", not " +
          n(edge) + " (the patch must be a multiple of the strides' product, the kernels odd)");
    edge = out;
  }
}

}  // namespace sb::dynunet
