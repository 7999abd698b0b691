#pragma once
// Geneformer's parameters under Hugging Face BertModel names, fp32 on the host: drawn from a
// seeded generator at PyTorch's module defaults, or read from a .safetensors file (an optional
// leading "bert." is accepted) with every shape checked.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "models/geneformer/config.h"
#include "models/io/host_tensor.h"

namespace sb {
class WeightSource;
}

namespace sb::geneformer {

enum class Init { embedding, fan_in_uniform, ln_gamma, ln_beta };

struct ParamSpec {
  std::string name;
  std::vector<int64_t> shape;
  Init init;
  int64_t fan_in = 1;
};

std::vector<ParamSpec> param_specs(const Config& c);
std::string layer_prefix(int64_t layer);  // "encoder.layer.<i>."

class Params {
 public:
  static Params random(const Config& c, uint64_t seed);
  static Params load(const Config& c, WeightSource& source);

  const HostTensor& at(const std::string& name) const;
  int64_t count() const;  // number of scalar parameters

 private:
  std::map<std::string, HostTensor> tensors_;
};

}  // namespace sb::geneformer
