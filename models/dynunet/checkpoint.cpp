#include "models/dynunet/checkpoint.h"

#include <stdexcept>
#include <string>

#include "models/dynunet/params.h"
#include "models/io/checkpoint_shapes.h"
#include "models/io/tensor_data.h"

namespace sb::dynunet {
namespace {

std::string decimal(int64_t v) {
  return std::to_string(v);
}

// A convolution's weight [out, in, k, k, k]: its cubic kernel, refused when the axes differ.
std::vector<int64_t> conv_weight(const CheckpointShapes& shapes, const std::string& name) {
  const std::vector<int64_t> w = shapes.of(name, 5);
  if (w[2] != w[3] || w[2] != w[4])
    throw std::invalid_argument(shapes.where() + "tensor '" + name + "' has shape " +
                                shape_to_string(w) +
                                ": its kernel differs between the axes; this port runs cubic "
                                "kernels only");
  return w;
}

// MONAI's DynUNet arguments beside the weights, against what the shapes said.
void apply_config_json(const CheckpointJson& j, const Config& c) {
  if (!j.present()) return;
  const std::string& jw = j.where();
  if (j.has("spatial_dims") && j.integer("spatial_dims") != 3)
    throw std::invalid_argument(jw + "spatial_dims is " + decimal(j.integer("spatial_dims")) +
                                "; this port is the 3-D network");
  const std::pair<const char*, bool> flags[] = {
      {"res_block", true}, {"deep_supervision", false}, {"trans_bias", false}};
  for (const auto& [key, built] : flags)
    if (j.has(key) && j.boolean(key) != built)
      throw std::invalid_argument(jw + key + " is " + (built ? "false" : "true") +
                                  "; this port builds DynUNet with " + key + " " +
                                  (built ? "true" : "false"));
  j.check("in_channels", c.in_channels, "input_block.conv1.conv.weight's columns");
  j.check("out_channels", c.out_channels, "output_block.conv.conv.weight's rows");
  j.check("filters", c.filters, "each level's conv1 rows");
  j.check("kernel_size", c.kernels, "each level's conv1 kernel");
  if (j.has("strides")) {
    const std::vector<int64_t> strides = j.integers("strides");
    if (strides.size() != c.strides.size())
      throw std::invalid_argument(
          jw + "strides has " + decimal(static_cast<int64_t>(strides.size())) +
          " levels but the weights have " + decimal(static_cast<int64_t>(c.strides.size())));
    if (strides[0] != 1)
      throw std::invalid_argument(jw + "strides[0] is " + decimal(strides[0]) +
                                  "; the input block's must be 1, so that the logits have the "
                                  "mask's size");
    for (size_t l = 1; l < strides.size(); ++l)
      if (strides[l] != c.strides[l])
        throw std::invalid_argument(
            jw + "strides[" + decimal(static_cast<int64_t>(l)) + "] is " + decimal(strides[l]) +
            " but the weights' " + up_block_name(c.levels() - 1 - static_cast<int64_t>(l)) +
            ".transp_conv.conv.weight has kernel " + decimal(c.strides[l]) +
            "; this port runs each transposed convolution at kernel = stride (MONAI's default "
            "upsample_kernel_size)");
  }
  const std::vector<int64_t> up(c.strides.begin() + 1, c.strides.end());
  j.check("upsample_kernel_size", up, "the transp_conv kernels");
}

}  // namespace

Config config_from_checkpoint(const Config& preset, const std::filesystem::path& weights) {
  const std::filesystem::path file = weights_file(weights);
  const SafetensorsWeights src(file, {"backbone."});
  const CheckpointShapes shapes(src);
  Config c = preset;
  const int64_t downs = shapes.count_blocks("downsamples.", "conv1.conv.weight");
  const int64_t levels = downs + 2;
  c.filters.assign(static_cast<size_t>(levels), 0);
  c.kernels = c.filters;
  c.strides = c.filters;
  const int64_t ups = shapes.count_blocks("upsamples.", "transp_conv.conv.weight");
  if (ups != levels - 1)
    throw std::invalid_argument(shapes.where() + decimal(ups) +
                                " up blocks (upsamples.N), but the " + decimal(downs) +
                                " downsamples with the input block and the bottleneck " + "make " +
                                decimal(levels) + " levels, which need " + decimal(levels - 1));
  for (int64_t i = 0; i < levels; ++i) {
    const std::string block = res_block_name(c, i);
    const std::string name = block + ".conv1.conv.weight";
    const std::vector<int64_t> w = conv_weight(shapes, name);
    if (i == 0)
      c.in_channels = w[1];
    else
      shapes.expect_dim(name, w, 1, c.filters[i - 1], res_block_name(c, i - 1) + "'s filters");
    c.filters[i] = w[0], c.kernels[i] = w[2];
    if (!src.has(block + ".conv3.conv.weight"))
      throw std::invalid_argument(
          shapes.where() + "missing tensor '" + block + ".conv3.conv.weight' (MONAI leaves the " +
          "residual projection out of a block that keeps its width at stride 1; this port " +
          "needs it)");
  }
  c.strides[0] = 1;
  for (int64_t l = 1; l < levels; ++l) {
    const std::string name = up_block_name(levels - 1 - l) + ".transp_conv.conv.weight";
    const std::vector<int64_t> w = conv_weight(shapes, name);
    shapes.expect_dim(name, w, 0, c.filters[l], res_block_name(c, l) + "'s filters");
    shapes.expect_dim(name, w, 1, c.filters[l - 1], res_block_name(c, l - 1) + "'s filters");
    c.strides[l] = w[2];
  }
  const std::vector<int64_t> out = conv_weight(shapes, "output_block.conv.conv.weight");
  shapes.expect_dim("output_block.conv.conv.weight", out, 1, c.filters[0], "input_block's filters");
  shapes.expect_dim("output_block.conv.conv.weight", out, 2, 1, "the 1x1x1 output convolution");
  c.out_channels = out[0];
  const CheckpointJson json(
      file, {"spatial_dims", "in_channels", "out_channels", "kernel_size", "strides",
             "upsample_kernel_size", "filters", "res_block", "deep_supervision", "trans_bias"});
  apply_config_json(json, c);
  c.source = "weights " + file.string() + (json.present() ? " with " + json.path() : "");
  check_config(c);
  return c;
}

}  // namespace sb::dynunet
