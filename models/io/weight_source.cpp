#include "models/io/weight_source.h"

#include <cmath>
#include <stdexcept>
#include <utility>

namespace sb {

namespace fs = std::filesystem;

fs::path weights_file(const fs::path& weights) {
  if (!fs::is_directory(weights)) return weights;
  const fs::path file = weights / "model.safetensors";
  if (fs::exists(file)) return file;
  if (fs::exists(weights / "model.safetensors.index.json"))
    throw std::invalid_argument("--weights " + weights.string() +
                                ": a sharded checkpoint (model.safetensors.index.json) is not "
                                "supported; merge it into one model.safetensors");
  throw std::invalid_argument("--weights " + weights.string() +
                              ": the folder holds no model.safetensors");
}

SafetensorsWeights::SafetensorsWeights(const fs::path& path,
                                       std::vector<std::string> optional_prefixes,
                                       std::vector<Alias> aliases)
    : file_(SafetensorsFile::open(path)),
      prefixes_(std::move(optional_prefixes)),
      aliases_(std::move(aliases)) {}

std::string SafetensorsWeights::resolve(const std::string& name) const {
  if (std::string stored = resolve_prefixed(name); !stored.empty()) return stored;
  for (const auto& [from, to] : aliases_)
    if (name.starts_with(from))
      if (std::string stored = resolve_prefixed(to + name.substr(from.size())); !stored.empty())
        return stored;
  return {};
}

std::vector<int64_t> SafetensorsWeights::shape(const std::string& name) const {
  const std::string stored = resolve(name);
  return stored.empty() ? std::vector<int64_t>{} : file_.info(stored).shape;
}

std::string SafetensorsWeights::resolve_prefixed(const std::string& name) const {
  if (file_.contains(name)) return name;
  for (const std::string& prefix : prefixes_) {
    if (prefix.empty()) continue;
    if (file_.contains(prefix + name)) return prefix + name;
    if (name.starts_with(prefix) && file_.contains(name.substr(prefix.size()))) {
      return name.substr(prefix.size());
    }
  }
  return {};
}

bool SafetensorsWeights::has(const std::string& name) const {
  return !resolve(name).empty();
}

std::vector<float> SafetensorsWeights::get(const std::string& name,
                                           const std::vector<int64_t>& expected_shape) {
  const std::string where = "weights file '" + file_.path().string() + "': ";
  const std::string stored = resolve(name);
  if (stored.empty()) throw std::invalid_argument(where + "missing tensor '" + name + "'");
  const std::string stored_note = stored == name ? "" : " (stored as '" + stored + "')";
  const SafetensorsEntry& entry = file_.info(stored);
  if (entry.shape != expected_shape) {
    throw std::invalid_argument(where + "tensor '" + name + "'" + stored_note + " has shape " +
                                shape_to_string(entry.shape) + ", expected " +
                                shape_to_string(expected_shape));
  }
  // A model's parameters are floating point: an integer tensor under a parameter's name is not
  // the checkpoint it claims to be, whatever its values would convert to.
  if (!stored_type_is_float(entry.type))
    throw std::invalid_argument(where + "tensor '" + name + "'" + stored_note + " is stored as " +
                                entry.dtype +
                                ", an integer type, but the model reads it as floating-point "
                                "weights (F32, F16, BF16 or F64)");
  TensorData tensor = file_.read(stored);
  // NaN or Inf in a parameter makes every output NaN: refused here, naming the first, rather
  // than measured and written as if it were a result.
  for (size_t i = 0; i < tensor.values.size(); ++i)
    if (!std::isfinite(tensor.values[i]))
      throw std::invalid_argument(where + "tensor '" + name + "'" + stored_note + " holds " +
                                  non_finite_name(tensor.values[i]) + " at element " +
                                  std::to_string(i) + " (weights must be finite)");
  consumed_.insert(stored);
  return std::move(tensor.values);
}

std::vector<std::string> SafetensorsWeights::unused() const {
  std::vector<std::string> names;
  for (const std::string& name : file_.names()) {
    if (consumed_.count(name) == 0) names.push_back(name);
  }
  return names;
}

}  // namespace sb
