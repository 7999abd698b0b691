#pragma once
// DynUNet's parameters under MONAI's DynUNet names (docs/models.md), fp32 on the host, in one
// fixed order: drawn from a seeded generator as MONAI initializes them (Kaiming-normal with
// a = 0.01 for every convolution, zero biases, norms at weight 1, bias 0), or read from a
// .safetensors file (a `backbone.` prefix allowed) with every shape checked.
#include <cstdint>
#include <string>
#include <vector>

#include "models/dynunet/config.h"
#include "models/io/host_tensor.h"

namespace sb {
class WeightSource;
}

namespace sb::dynunet {

enum class Init { kaiming, zero, one };

struct ParamSpec {
  std::string name;
  std::vector<int64_t> shape;
  Init init;
  int64_t fan_in = 1;  // PyTorch's: shape[1] x the kernel's volume (ConvTranspose3d too)
  int64_t count() const;
};

// Model order: input_block, downsamples.0 ..., bottleneck (conv1, conv2, conv3, norm1, norm2,
// norm3), upsamples.0 ... (transp_conv, conv_block conv1, conv2, norm1, norm2), then
// output_block.
std::vector<ParamSpec> param_specs(const Config& c);

// MONAI's module names: level 0 "input_block", the last "bottleneck", the others
// "downsamples.<level - 1>"; up block j "upsamples.<j>", from the bottleneck up, returning from
// level up_level(j) to the one above.
std::string res_block_name(const Config& c, int64_t level);
std::string up_block_name(int64_t j);
int64_t up_level(const Config& c, int64_t j);

class Params {
 public:
  static Params random(const Config& c, uint64_t seed);
  static Params load(const Config& c, WeightSource& source);

  const std::vector<ParamSpec>& specs() const { return specs_; }
  const std::vector<HostTensor>& tensors() const { return tensors_; }
  const HostTensor& at(const std::string& name) const;
  size_t index(const std::string& name) const;
  int64_t count() const;

 private:
  std::vector<ParamSpec> specs_;
  std::vector<HostTensor> tensors_;
};

}  // namespace sb::dynunet
