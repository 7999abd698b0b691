#pragma once
// Enformer's parameters under the reference implementation's names (enformer-pytorch), held on
// the host in fp32. Either drawn from a seeded generator at the reference initialisation scale,
// or read from a .safetensors file with every shape checked.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "models/enformer/config.h"
#include "models/io/host_tensor.h"

namespace sb {
class WeightSource;
}

namespace sb::enformer {

using sb::HostTensor;

// How a parameter is drawn when no weights file is given.
enum class Init {
  fan_in_uniform,
  bn_scale,
  bn_shift,
  bn_mean,
  bn_var,
  ln_gamma,
  ln_beta,
  normal,
  pool_dirac
};

struct ParamSpec {
  std::string name;
  std::vector<int64_t> shape;
  Init init;
  int64_t fan_in = 1;
};

std::vector<ParamSpec> param_specs(const Config& c);

class Params {
 public:
  static Params random(const Config& c, uint64_t seed);
  static Params load(const Config& c, WeightSource& source);

  const HostTensor& at(const std::string& name) const;
  int64_t count() const;  // number of scalar parameters

 private:
  std::map<std::string, HostTensor> tensors_;
};

}  // namespace sb::enformer
