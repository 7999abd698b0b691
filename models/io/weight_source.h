#pragma once

#include <cstdint>
#include <filesystem>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "models/io/safetensors.h"

namespace sb {

// The safetensors file `weights` names: the file itself, or model.safetensors in a folder (the
// Hugging Face layout). Throws std::invalid_argument for a folder without one (naming a sharded
// checkpoint's index when that is what the folder holds).
std::filesystem::path weights_file(const std::filesystem::path& weights);

// What a model reads its parameters through. Models ask by their own parameter names; a source
// may map those onto the names a file really uses.
class WeightSource {
 public:
  virtual ~WeightSource() = default;
  virtual bool has(const std::string& name) const = 0;
  // The values, fp32 row-major. Throws std::invalid_argument (bad input)
  //   "weights file X: missing tensor 'name'" or
  //   "weights file X: tensor 'name' has shape [a,b], expected [c,d]".
  virtual std::vector<float> get(const std::string& name,
                                 const std::vector<int64_t>& expected_shape) = 0;
  // Stored tensor names no get() has consumed yet, so a model can warn about leftovers.
  virtual std::vector<std::string> unused() const = 0;
};

// Weights from a .safetensors file (fp32, fp16, bf16, ... converted to fp32).
// A requested name is looked up as given, then with each optional prefix prepended, in order;
// a requested name that itself starts with one of the prefixes is also tried without it. So
// with prefixes {"bert.", "backbone."} the parameter "encoder.w" matches a stored
// "bert.encoder.w" and "backbone.encoder.w" alike. A name found in none of those ways is tried
// once more through each alias {from, to} whose `from` begins it, with `from` replaced by `to`:
// checkpoints of modules registered twice keep one of the names (enformer-pytorch's `_trunk.`).
class SafetensorsWeights : public WeightSource {
 public:
  using Alias = std::pair<std::string, std::string>;
  explicit SafetensorsWeights(const std::filesystem::path& path,
                              std::vector<std::string> optional_prefixes = {},
                              std::vector<Alias> aliases = {});

  bool has(const std::string& name) const override;
  std::vector<float> get(const std::string& name,
                         const std::vector<int64_t>& expected_shape) override;
  std::vector<std::string> unused() const override;

  const SafetensorsFile& file() const { return file_; }
  // The stored name `name` resolves to; empty when absent.
  std::string resolve(const std::string& name) const;
  // The stored shape of what `name` resolves to; empty when absent.
  std::vector<int64_t> shape(const std::string& name) const;

 private:
  std::string resolve_prefixed(const std::string& name) const;

  SafetensorsFile file_;
  std::vector<std::string> prefixes_;
  std::vector<Alias> aliases_;
  std::set<std::string> consumed_;
};

}  // namespace sb
