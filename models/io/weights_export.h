#pragma once
// Writes a model's parameters under their reference names as one fp32 .safetensors file, so a
// reference implementation can load exactly the weights a stagebench run used.
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "models/io/safetensors.h"

namespace sb {

// `specs`: the model's parameter list (each with a `name`); `params.at(name)` a HostTensor.
template <class Specs, class Params>
void export_weights(const std::filesystem::path& path, const Specs& specs, const Params& params,
                    const std::string& model, const std::string& size) {
  std::vector<std::pair<std::string, TensorData>> tensors;
  for (const auto& spec : specs) {
    const auto& t = params.at(spec.name);
    tensors.emplace_back(spec.name, TensorData{"F32", t.shape, t.values});
  }
  write_safetensors(path, tensors, "F32", {{"model", model}, {"size", size}});
}

}  // namespace sb
