#pragma once
// What the own-checkpoint tests (DeepFM's, DynUNet's) write and ask: a model's parameters as a
// .safetensors file, with one tensor left out or stored under another shape to make it hostile;
// a config.json beside it; a backend, or why there is none.
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "models/io/safetensors.h"
#include "models/registry.h"
#include "tests/common/backend_or_null.h"

namespace sb::testing {

// How to spoil a checkpoint: leave `drop` out; store `reshape` as `as` (values 0.5).
struct Spoil {
  std::string drop, reshape;
  std::vector<int64_t> as;
};

inline Spoil dropping(const std::string& name) {
  Spoil s;
  s.drop = name;
  return s;
}

inline Spoil reshaping(const std::string& name, std::vector<int64_t> as) {
  Spoil s;
  s.reshape = name, s.as = std::move(as);
  return s;
}

// Every tensor of `params` (a model's Params: specs() and tensors() in one order) under
// `prefix` + its name, spoiled as `spoil` says.
template <class Params>
void write_checkpoint(const std::filesystem::path& path, const Params& params,
                      const std::string& prefix = "", const Spoil& spoil = {}) {
  std::vector<std::pair<std::string, TensorData>> t;
  for (size_t i = 0; i < params.specs().size(); ++i) {
    const auto& spec = params.specs()[i];
    if (spec.name == spoil.drop) continue;
    if (spec.name != spoil.reshape) {
      t.emplace_back(prefix + spec.name, TensorData{"F32", spec.shape, params.tensors()[i].values});
      continue;
    }
    int64_t count = 1;
    for (int64_t d : spoil.as) count *= d;
    t.emplace_back(
        prefix + spec.name,
        TensorData{"F32", spoil.as, std::vector<float>(static_cast<size_t>(count), 0.5f)});
  }
  write_safetensors(path, t, "F32");
}

inline void write_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path) << text;
}

}  // namespace sb::testing
