#include "models/geneformer/checkpoint.h"

#include <cmath>
#include <set>
#include <sstream>
#include <stdexcept>

#include "models/geneformer/params.h"
#include "models/io/weight_source.h"
#include "schema/json_text.h"
#include "schema/user_file.h"

namespace sb::geneformer {
namespace fs = std::filesystem;
namespace {

// The layer index of a (prefix-stripped) name "encoder.layer.N.<rest>"; -1 for other names.
int64_t layer_of(const std::string& stored) {
  std::string name = stored;
  for (const std::string& prefix : checkpoint_prefixes())
    if (name.starts_with(prefix)) name = name.substr(prefix.size());
  const std::string p = "encoder.layer.";
  if (!name.starts_with(p)) return -1;
  size_t i = p.size();
  int64_t n = 0;
  while (i < name.size() && std::isdigit(static_cast<unsigned char>(name[i])) && i - p.size() < 7)
    n = n * 10 + (name[i++] - '0');
  return i > p.size() && i < name.size() && name[i] == '.' ? n : -1;
}

bool same_shapes(const Config& a, const Config& b) {
  return a.layers == b.layers && a.hidden == b.hidden && a.intermediate == b.intermediate &&
         a.vocab == b.vocab && a.max_positions == b.max_positions && a.type_vocab == b.type_vocab;
}

std::string eps_text(float eps) {
  std::ostringstream s;
  s << eps;
  return s.str();
}

}  // namespace

const std::vector<std::string>& checkpoint_prefixes() {
  static const std::vector<std::string> p{"bert.", "backbone."};
  return p;
}

void check_config(const Config& c) {
  const std::pair<const char*, int64_t> dims[] = {
      {"layers", c.layers},         {"hidden", c.hidden},
      {"heads", c.heads},           {"intermediate", c.intermediate},
      {"vocabulary", c.vocab},      {"positions", c.max_positions},
      {"token types", c.type_vocab}};
  for (const auto& [what, v] : dims)
    if (v < 1)
      throw std::invalid_argument("geneformer: " + std::string(what) + " = " + std::to_string(v) +
                                  " (must be at least 1)");
  if (c.hidden % c.heads != 0)
    throw std::invalid_argument("geneformer: " + std::to_string(c.heads) +
                                " heads do not divide the hidden size " + std::to_string(c.hidden) +
                                " (heads from " + c.heads_from + ")");
  if (!(c.eps > 0) || !std::isfinite(c.eps))
    throw std::invalid_argument("geneformer: LayerNorm eps " + eps_text(c.eps) +
                                " must be positive (from " + c.eps_from + ")");
}

Config with_overrides(Config c, const ConfigOverrides& o) {
  if (o.heads != 0) c.heads = o.heads, c.heads_from = "--heads";
  if (o.eps) c.eps = *o.eps, c.eps_from = "--eps";
  check_config(c);
  return c;
}

Config config_from_checkpoint(const Config& preset, const fs::path& weights,
                              const ConfigOverrides& o) {
  const fs::path file = weights_file(weights);
  SafetensorsWeights src(file, checkpoint_prefixes());
  const std::string where = "weights file '" + file.string() + "': ";
  auto shape = [&](const std::string& name) {
    const std::string stored = src.resolve(name);
    if (stored.empty()) throw std::invalid_argument(where + "missing tensor '" + name + "'");
    const std::vector<int64_t>& s = src.file().info(stored).shape;
    if (s.size() != 2)
      throw std::invalid_argument(where + "tensor '" + name + "' has shape " + shape_to_string(s) +
                                  ", expected a matrix");
    return s;
  };
  Config c = preset;
  c.source = "weights " + file.string();
  const std::vector<int64_t> word = shape("embeddings.word_embeddings.weight");
  c.vocab = word[0], c.hidden = word[1];
  const std::vector<int64_t> pos = shape("embeddings.position_embeddings.weight");
  c.max_positions = pos[0];
  if (pos[1] != c.hidden)
    throw std::invalid_argument(
        where + "tensor 'embeddings.position_embeddings.weight' has shape " + shape_to_string(pos) +
        ", but embeddings.word_embeddings.weight says hidden " + std::to_string(c.hidden));
  c.type_vocab = shape("embeddings.token_type_embeddings.weight")[0];
  std::set<int64_t> layers;
  for (const std::string& name : src.file().names())
    if (const int64_t l = layer_of(name); l >= 0) layers.insert(l);
  if (layers.empty())
    throw std::invalid_argument(where + "no encoder layers (no tensor 'encoder.layer.0.*')");
  for (int64_t l = 0; l <= *layers.rbegin(); ++l)
    if (!layers.count(l))
      throw std::invalid_argument(where + "encoder layer " + std::to_string(l) +
                                  " is missing (the file has layers up to " +
                                  std::to_string(*layers.rbegin()) + ")");
  c.layers = static_cast<int64_t>(layers.size());
  c.intermediate = shape(layer_prefix(0) + "intermediate.dense.weight")[0];
  c.tokens = std::min(preset.tokens, c.max_positions);

  // Hugging Face's config.json beside the weights: heads and eps, and a cross-check.
  const fs::path json_path = file.parent_path() / "config.json";
  bool heads_set = false, eps_set = false;
  if (fs::exists(json_path)) {
    const nlohmann::json j = read_json_file(json_path);
    const std::string jw = "config.json " + json_path.string() + ": ";
    if (!j.is_object()) throw std::invalid_argument(jw + "not a JSON object");
    auto integer = [&](const char* key) -> std::optional<int64_t> {
      if (!j.contains(key)) return std::nullopt;
      return json_int64(j[key], jw + key);  // beyond int64: refused as written, not wrapped
    };
    const std::tuple<const char*, int64_t, const char*> checks[] = {
        {"hidden_size", c.hidden, "embeddings.word_embeddings.weight"},
        {"vocab_size", c.vocab, "embeddings.word_embeddings.weight"},
        {"max_position_embeddings", c.max_positions, "embeddings.position_embeddings.weight"},
        {"type_vocab_size", c.type_vocab, "embeddings.token_type_embeddings.weight"},
        {"num_hidden_layers", c.layers, "the encoder.layer.N tensors"},
        {"intermediate_size", c.intermediate, "encoder.layer.0.intermediate.dense.weight"}};
    for (const auto& [key, have, from] : checks)
      if (const auto v = integer(key); v && *v != have)
        throw std::invalid_argument(jw + key + " is " + std::to_string(*v) + " but the weights (" +
                                    from + ") say " + std::to_string(have));
    if (const auto h = integer("num_attention_heads")) {
      c.heads = *h, c.heads_from = "config.json", heads_set = true;
    }
    if (j.contains("layer_norm_eps")) {
      if (!j["layer_norm_eps"].is_number())
        throw std::invalid_argument(jw + "layer_norm_eps is not a number");
      c.eps = j["layer_norm_eps"].get<float>(), c.eps_from = "config.json", eps_set = true;
    }
    if (j.contains("hidden_act")) {
      // Hugging Face's "gelu" is the exact (erf) GELU; the tanh approximations are other functions.
      if (j["hidden_act"] == "relu") {
        c.activation = Act::relu, c.activation_from = "config.json";
      } else if (j["hidden_act"] == "gelu") {
        c.activation = Act::gelu_erf, c.activation_from = "config.json";
      } else {
        throw std::invalid_argument(jw + "hidden_act is " + j["hidden_act"].dump() +
                                    "; this port computes \"relu\" (Geneformer's) and \"gelu\" "
                                    "(exact, Hugging Face's default)");
      }
    }
    if (j.contains("position_embedding_type") && j["position_embedding_type"] != "absolute")
      throw std::invalid_argument(jw + "position_embedding_type is " +
                                  j["position_embedding_type"].dump() +
                                  "; this port computes absolute positions (Geneformer's)");
  }
  // A checkpoint of a named size's shapes takes that size's heads and eps.
  std::optional<Config> named;
  if (same_shapes(c, preset)) named = preset;
  for (const std::string& size : sizes())
    if (!named && same_shapes(c, config_for(size))) named = config_for(size);
  if (!heads_set) {
    if (named) {
      c.heads = named->heads, c.heads_from = named->heads_from;
    } else if (o.heads == 0 && c.hidden % 64 == 0) {
      c.heads = c.hidden / 64, c.heads_from = "assumed hidden/64, BERT's convention";
    } else if (o.heads == 0) {
      throw std::invalid_argument(
          where + "hidden " + std::to_string(c.hidden) +
          " is not a multiple of 64, so the heads cannot be assumed: give --heads (or a "
          "config.json with num_attention_heads beside the weights)");
    }
  }
  if (!eps_set) {
    if (named) {
      c.eps = named->eps, c.eps_from = named->eps_from;
    } else {
      c.eps = 1e-12f, c.eps_from = "assumed 1e-12, Geneformer's";
    }
  }
  return with_overrides(c, o);
}

std::string describe(const Config& c) {
  std::ostringstream s;
  s << c.layers << " layers, hidden " << c.hidden << ", " << c.heads << " heads of " << c.head_dim()
    << " (" << c.heads_from << "), intermediate " << c.intermediate << ", vocabulary " << c.vocab
    << ", " << c.max_positions << " positions, " << c.type_vocab << " token types, "
    << (c.activation == Act::relu ? "ReLU" : "GELU") << " (" << c.activation_from << "), eps "
    << c.eps << " (" << c.eps_from << "); from " << c.source;
  return s.str();
}

}  // namespace sb::geneformer
