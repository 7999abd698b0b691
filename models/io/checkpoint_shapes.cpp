#include "models/io/checkpoint_shapes.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "models/io/tensor_data.h"
#include "schema/json_text.h"
#include "schema/user_file.h"

namespace sb {
namespace fs = std::filesystem;
namespace {

std::string n(int64_t v) {
  return std::to_string(v);
}

}  // namespace

int64_t block_index(const std::string& name, const std::string& family) {
  if (!name.starts_with(family)) return -1;
  size_t i = family.size();
  int64_t index = 0;
  while (i < name.size() && std::isdigit(static_cast<unsigned char>(name[i])) &&
         i - family.size() < 7)
    index = index * 10 + (name[i++] - '0');
  return i > family.size() && i < name.size() && name[i] == '.' ? index : -1;
}

CheckpointShapes::CheckpointShapes(const SafetensorsWeights& src)
    : src_(src), where_("weights file '" + src.file().path().string() + "': ") {}

std::vector<int64_t> CheckpointShapes::of(const std::string& name, size_t rank) const {
  const std::vector<int64_t> s = src_.shape(name);
  if (!src_.has(name)) throw std::invalid_argument(where_ + "missing tensor '" + name + "'");
  if (s.size() != rank)
    throw std::invalid_argument(where_ + "tensor '" + name + "' has shape " + shape_to_string(s) +
                                ", expected " + n(static_cast<int64_t>(rank)) + " dimensions");
  return s;
}

int64_t CheckpointShapes::count_blocks(const std::string& family, const std::string& leaf) const {
  int64_t count = 0;
  while (src_.has(family + n(count) + "." + leaf)) ++count;
  int64_t last = -1;
  for (const std::string& stored : src_.file().names()) {
    // The name as the model spells it: a prefix the reader accepts ("backbone.") is the part
    // before a dot that resolving the rest gives back.
    for (size_t cut = 0;;) {
      const std::string tail = stored.substr(cut);
      if (src_.resolve(tail) == stored) last = std::max(last, block_index(tail, family));
      const size_t dot = stored.find('.', cut);
      if (dot == std::string::npos) break;
      cut = dot + 1;
    }
  }
  if (last >= count)
    throw std::invalid_argument(where_ + "tensor '" + family + n(count) + "." + leaf +
                                "' is missing, but the file has blocks up to " + family + n(last) +
                                " (they must be numbered from 0 without gaps)");
  return count;
}

void CheckpointShapes::expect_dim(const std::string& name, const std::vector<int64_t>& shape,
                                  size_t dim, int64_t want, const std::string& from) const {
  if (shape.at(dim) != want)
    throw std::invalid_argument(where_ + "tensor '" + name + "' has shape " +
                                shape_to_string(shape) + ": dimension " +
                                n(static_cast<int64_t>(dim)) + " is " + n(shape[dim]) + ", but " +
                                from + " gives " + n(want));
}

CheckpointJson::CheckpointJson(const fs::path& weights_file, std::set<std::string> known) {
  const fs::path p = weights_file.parent_path() / "config.json";
  if (!fs::exists(p)) return;
  path_ = p.string();
  where_ = "config.json " + path_ + ": ";
  json_ = read_json_file(p);
  if (!json_.is_object()) throw std::invalid_argument(where_ + "not a JSON object");
  for (const auto& [key, value] : json_.items()) {
    if (known.count(key)) continue;
    std::string list;
    for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
    throw std::invalid_argument(where_ + "unknown key '" + key + "' (known: " + list + ")");
  }
}

int64_t CheckpointJson::integer(const std::string& key) const {
  return json_int64(json_.at(key), where_ + key);
}

double CheckpointJson::number(const std::string& key) const {
  const nlohmann::json& v = json_.at(key);
  if (!v.is_number()) throw std::invalid_argument(where_ + key + " is not a number");
  return v.get<double>();
}

bool CheckpointJson::boolean(const std::string& key) const {
  const nlohmann::json& v = json_.at(key);
  if (!v.is_boolean()) throw std::invalid_argument(where_ + key + " is not true or false");
  return v.get<bool>();
}

std::vector<int64_t> CheckpointJson::integers(const std::string& key) const {
  const nlohmann::json& v = json_.at(key);
  if (!v.is_array()) throw std::invalid_argument(where_ + key + " is not a list");
  std::vector<int64_t> out;
  for (size_t i = 0; i < v.size(); ++i) {
    const std::string what = where_ + key + "[" + n(static_cast<int64_t>(i)) + "]";
    if (!v[i].is_array()) {
      out.push_back(json_int64(v[i], what));
      continue;
    }
    if (v[i].size() != 3) throw std::invalid_argument(what + " is not a number or three numbers");
    const int64_t first = json_int64(v[i][0], what);
    for (size_t a = 1; a < 3; ++a)
      if (json_int64(v[i][a], what) != first)
        throw std::invalid_argument(what +
                                    " differs between the axes; the patch is a cube and "
                                    "every axis takes the same value here");
    out.push_back(first);
  }
  return out;
}

void CheckpointJson::check(const std::string& key, int64_t have, const std::string& from) const {
  if (!has(key)) return;
  if (const int64_t want = integer(key); want != have)
    throw std::invalid_argument(where_ + key + " is " + n(want) + " but the weights (" + from +
                                ") say " + n(have));
}

void CheckpointJson::check(const std::string& key, const std::vector<int64_t>& have,
                           const std::string& from) const {
  if (!has(key)) return;
  if (const std::vector<int64_t> want = integers(key); want != have)
    throw std::invalid_argument(where_ + key + " is " + shape_to_string(want) +
                                " but the weights (" + from + ") say " + shape_to_string(have));
}

}  // namespace sb
