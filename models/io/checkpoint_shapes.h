#pragma once
// What a model's checkpoint reader needs to read a configuration off a file's tensor shapes and
// the config.json beside it (DeepFM's and DynUNet's, docs/models.md "Your own checkpoints"):
// every refusal names the file, the tensor or key, and both values.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/io/weight_source.h"

namespace sb {

// The block index N of a resolved name "<family>N.<rest>" (at most 7 digits); -1 for other names.
int64_t block_index(const std::string& name, const std::string& family);

class CheckpointShapes {
 public:
  explicit CheckpointShapes(const SafetensorsWeights& src);
  // "weights file '<path>': ", the start of every message about the file.
  const std::string& where() const { return where_; }
  // The stored shape of `name`; throws std::invalid_argument when it is missing or has another
  // number of dimensions than `rank`.
  std::vector<int64_t> of(const std::string& name, size_t rank) const;
  // Blocks "<family>N.<...>" counted from 0 while "<family>N.<leaf>" is stored; a stored name of
  // a block past the count (a gap) is refused, since it would be left out silently.
  int64_t count_blocks(const std::string& family, const std::string& leaf) const;
  // Throws unless dimension `dim` of tensor `name` (shape `shape`) is `want`, which `from` gave.
  void expect_dim(const std::string& name, const std::vector<int64_t>& shape, size_t dim,
                  int64_t want, const std::string& from) const;

 private:
  const SafetensorsWeights& src_;
  std::string where_;
};

// A config.json beside the weights: what the shapes cannot tell, and what they can, to check.
// Keys outside `known` are refused (a misspelt key would otherwise be ignored silently).
class CheckpointJson {
 public:
  // Reads <folder of weights_file>/config.json when there is one.
  CheckpointJson(const std::filesystem::path& weights_file, std::set<std::string> known);
  bool present() const { return !json_.is_null(); }
  bool has(const std::string& key) const { return present() && json_.contains(key); }
  const std::string& where() const { return where_; }
  const std::string& path() const { return path_; }
  const nlohmann::json& at(const std::string& key) const { return json_.at(key); }
  int64_t integer(const std::string& key) const;
  double number(const std::string& key) const;
  bool boolean(const std::string& key) const;
  // A list of integers; each element may also be a list of three equal integers (MONAI's
  // per-axis form), read as that one value.
  std::vector<int64_t> integers(const std::string& key) const;
  // Throws unless the key, when present, equals what the weights say (`from` names where).
  void check(const std::string& key, int64_t have, const std::string& from) const;
  void check(const std::string& key, const std::vector<int64_t>& have,
             const std::string& from) const;

 private:
  nlohmann::json json_;
  std::string path_, where_;
};

}  // namespace sb
