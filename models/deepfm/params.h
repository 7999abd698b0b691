#pragma once
// DeepFM's parameters under the reference's PyTorch names (scripts/reference/deepfm_torch.py),
// fp32 on the host, in one fixed order: drawn from a seeded generator at PyTorch's module
// defaults, or read from a .safetensors file with every shape checked.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "models/deepfm/config.h"
#include "models/io/host_tensor.h"

namespace sb {
class WeightSource;
}

namespace sb::deepfm {

inline constexpr int kTasks = 3;  // outcome (BCE, 6 labels), direction (CE, 4), type (CE, 12)
inline constexpr std::array<int64_t, kTasks> kTaskClasses{6, 4, 12};
inline constexpr std::array<float, kTasks> kTaskPriority{0.3f, 0.2f, 0.5f};
inline constexpr std::array<const char*, kTasks> kTaskNames{"outcome", "direction", "type"};
inline constexpr int kPairs = 6;  // the FM's pairs (i < j) of the four fields

// The four embedding tables' row counts (each field's vocabulary plus its unknown class).
using Cardinality = std::array<int64_t, 4>;

enum class Init { embedding, fan_in_uniform, xavier_uniform, zero, one };

struct ParamSpec {
  std::string name;
  std::vector<int64_t> shape;
  Init init;
  int64_t fan_in = 1, fan_out = 1;
  int64_t count() const;
};

// In model order: the four tables, the encoder layer (nn.TransformerEncoderLayer names), the
// deep layers, the three heads, then log_vars (the uncertainty weights s_t).
std::vector<ParamSpec> param_specs(const Config& c, const Cardinality& card);

class Params {
 public:
  static Params random(const Config& c, const Cardinality& card, uint64_t seed);
  static Params load(const Config& c, const Cardinality& card, WeightSource& source);

  const std::vector<ParamSpec>& specs() const { return specs_; }
  const std::vector<HostTensor>& tensors() const { return tensors_; }
  const HostTensor& at(const std::string& name) const;
  int64_t count() const;

 private:
  std::vector<ParamSpec> specs_;
  std::vector<HostTensor> tensors_;
};

}  // namespace sb::deepfm
