#pragma once

#include <cstdint>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "models/io/safetensors.h"

namespace sb {

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
// "bert.encoder.w" and "backbone.encoder.w" alike.
class SafetensorsWeights : public WeightSource {
 public:
  explicit SafetensorsWeights(const std::filesystem::path& path,
                              std::vector<std::string> optional_prefixes = {});

  bool has(const std::string& name) const override;
  std::vector<float> get(const std::string& name,
                         const std::vector<int64_t>& expected_shape) override;
  std::vector<std::string> unused() const override;

  const SafetensorsFile& file() const { return file_; }
  // The stored name `name` resolves to; empty when absent.
  std::string resolve(const std::string& name) const;

 private:
  SafetensorsFile file_;
  std::vector<std::string> prefixes_;
  std::set<std::string> consumed_;
};

}  // namespace sb
