#include "models/enformer/checkpoint.h"

#include <algorithm>
#include <cctype>
#include <sstream>
#include <stdexcept>

#include "models/io/checkpoint_shapes.h"
#include "schema/json_text.h"
#include "schema/user_file.h"

namespace sb::enformer {
namespace fs = std::filesystem;
namespace {

std::invalid_argument bad(const std::string& what) {
  return std::invalid_argument(what);
}

std::string n(int64_t v) {
  return std::to_string(v);
}

// config.json (enformer-pytorch's EnformerConfig, saved by save_pretrained): what it says is
// checked against the shapes; the target crop and the gamma table are taken from it.
void apply_config_json(const fs::path& path, Config& c) {
  const nlohmann::json j = read_json_file(path);
  const std::string jw = "config.json " + path.string() + ": ";
  if (!j.is_object()) throw bad(jw + "not a JSON object");
  // json_int64: 2^64-1 is refused as written, not wrapped to -1 ("no crop").
  auto integer = [&](const nlohmann::json& v, const std::string& key) {
    return json_int64(v, jw + key);
  };
  auto check = [&](const std::string& key, const nlohmann::json& v, int64_t have,
                   const std::string& from) {
    if (const int64_t want = integer(v, key); want != have)
      throw bad(jw + key + " is " + n(want) + " but the weights (" + from + ") say " + n(have));
  };
  const std::tuple<const char*, int64_t, const char*> keys[] = {
      {"dim", c.dim, "final_pointwise's BatchNorm"},
      {"depth", c.depth, "the transformer.N tensors"},
      {"heads", c.heads, "to_rel_k's dim/heads columns"},
      {"attn_dim_key", c.dk, "to_q's rows per head"},
      {"num_downsamples", c.tower_blocks() + 1, "the conv_tower.N tensors, plus the stem"}};
  for (const auto& [key, have, from] : keys)
    if (j.contains(key)) check(key, j[key], have, from);
  if (j.contains("output_heads")) {
    const nlohmann::json& h = j["output_heads"];
    if (!h.is_object()) throw bad(jw + "output_heads is not an object");
    for (const auto& [key, have] :
         {std::pair<const char*, int64_t>{"human", c.human_out}, {"mouse", c.mouse_out}})
      if (h.contains(key))
        check(std::string("output_heads.") + key, h[key], have, std::string("_heads.") + key);
  }
  if (j.contains("use_tf_gamma") && j["use_tf_gamma"] == true)
    throw bad(jw +
              "use_tf_gamma is true; this port computes the gamma features for any length and "
              "has no TensorFlow table (set it false, as enformer-pytorch's default)");
  if (j.contains("target_length")) {
    const int64_t t = integer(j["target_length"], "target_length");
    c.target = t == -1 ? c.tokens() : t;
    c.target_from = t == -1 ? "config.json target_length -1, no crop" : "config.json";
  }
}

// How checkpoints may spell the parameter names: a prefix, and enformer-pytorch's "_trunk.N."
// aliases of the trunk's modules.
const std::vector<std::string> kPrefixes = {"enformer.", "model."};
const std::vector<SafetensorsWeights::Alias> kAliases = {{"stem.", "_trunk.1."},
                                                         {"conv_tower.", "_trunk.2."},
                                                         {"transformer.", "_trunk.4."},
                                                         {"final_pointwise.", "_trunk.6."}};

// The block index N of a stored name "<family>N.<rest>" (family "transformer." or
// "conv_tower.", under any prefix or alias); -1 for other names.
int64_t block_of(std::string name, const std::string& family) {
  for (const std::string& prefix : kPrefixes)
    if (name.starts_with(prefix)) name = name.substr(prefix.size());
  for (const auto& [from, to] : kAliases)
    if (from == family && name.starts_with(to)) name = from + name.substr(to.size());
  return block_index(name, family);
}

// Blocks are counted from 0 while the next one is there: a block after a gap would be left
// out silently (transformer.0 and .2 without .1 ran as a one-layer model), so it is refused.
void check_no_gap(const SafetensorsWeights& src, const std::string& family, int64_t count,
                  const std::string& where) {
  int64_t last = -1;
  for (const std::string& name : src.file().names()) last = std::max(last, block_of(name, family));
  if (last >= count)
    throw bad(where + family + n(count) + " is missing, but the file has blocks up to " + family +
              n(last) + " (they must be numbered from 0 without gaps)");
}

}  // namespace

std::unique_ptr<SafetensorsWeights> open_weights(const fs::path& weights) {
  return std::make_unique<SafetensorsWeights>(weights_file(weights), kPrefixes, kAliases);
}

int64_t target_rule(const Config& c) {
  for (const std::string& size : sizes())
    if (const Config named = config_for(size); named.input_bp == c.input_bp) return named.target;
  const int64_t tokens = c.tokens();
  return tokens - 2 * (tokens * 320 / 1536);
}

void check_config(const Config& c) {
  const std::pair<const char*, int64_t> dims[] = {{"dim", c.dim},
                                                  {"depth", c.depth},
                                                  {"heads", c.heads},
                                                  {"key size", c.dk},
                                                  {"human tracks", c.human_out},
                                                  {"mouse tracks", c.mouse_out},
                                                  {"batch", c.batch},
                                                  {"input length", c.input_bp}};
  for (const auto& [what, v] : dims)
    if (v < 1) throw bad("enformer: " + std::string(what) + " = " + n(v) + " (must be at least 1)");
  const std::vector<int64_t> f = c.filters();
  if (f.size() < 2) throw bad("enformer: the tower has no blocks (filters for the stem only)");
  for (size_t i = 0; i < f.size(); ++i)
    if (f[i] < 1) throw bad("enformer: filter " + n(static_cast<int64_t>(i)) + " is " + n(f[i]));
  if (f.back() != c.dim)
    throw bad("enformer: the tower ends at " + n(f.back()) + " channels, but dim is " + n(c.dim));
  if (c.dim % c.heads != 0)
    throw bad("enformer: " + n(c.heads) + " heads do not divide dim " + n(c.dim));
  if (c.rel_features() % 6 != 0)
    throw bad("enformer: dim/heads = " + n(c.rel_features()) +
              " relative position features must be a multiple of 6 (three families of basis "
              "functions, each mirrored by the distance's sign; enformer-pytorch refuses it too)");
  if (c.input_bp % c.pool_factor() != 0)
    throw bad("enformer: length " + n(c.input_bp) + " bp is not a multiple of " +
              n(c.pool_factor()) + ", the product of the stem's and the " + n(c.tower_blocks()) +
              " tower blocks' pools");
  const int64_t tokens = c.tokens();
  if (c.target < 1 || c.target > tokens)
    throw bad("enformer: target " + n(c.target) + " (" + c.target_from +
              ") must be between 1 and " + n(tokens) + ", the tokens of " + n(c.input_bp) +
              " bp; give --target");
  if ((tokens - c.target) % 2 != 0)
    throw bad("enformer: target " + n(c.target) + " (" + c.target_from + ") leaves " +
              n(tokens - c.target) + " of " + n(tokens) +
              " tokens to crop, which do not split evenly between the two ends");
}

Config with_overrides(Config c, const ConfigOverrides& o) {
  if (o.length != 0) c.input_bp = o.length;
  if (o.target != 0) {
    c.target = o.target, c.target_from = "--target";
  } else if (!c.target_from.starts_with("config.json")) {
    c.target = target_rule(c);
    bool named = false;
    for (const std::string& size : sizes()) named |= config_for(size).input_bp == c.input_bp;
    c.target_from = named ? "the size's" : "derived: the published model's 896 of 1,536 tokens";
  }
  check_config(c);
  return c;
}

Config config_from_checkpoint(const Config& preset, const fs::path& weights,
                              const ConfigOverrides& o) {
  const fs::path file = weights_file(weights);
  const auto src = open_weights(file);
  const std::string where = "weights file '" + file.string() + "': ";
  auto shape = [&](const std::string& name, size_t rank) {
    const std::vector<int64_t> s = src->shape(name);
    if (s.empty()) throw bad(where + "missing tensor '" + name + "'");
    if (s.size() != rank)
      throw bad(where + "tensor '" + name + "' has shape " + shape_to_string(s) + ", expected " +
                std::to_string(rank) + " dimensions");
    return s;
  };
  Config c = preset;
  c.source = "weights " + file.string();
  c.filter_list = {shape("stem.0.weight", 3)[0]};
  for (int64_t i = 0; src->has("conv_tower." + n(i) + ".0.2.weight"); ++i)
    c.filter_list.push_back(shape("conv_tower." + n(i) + ".0.2.weight", 3)[0]);
  if (c.filter_list.size() < 2) throw bad(where + "missing tensor 'conv_tower.0.0.2.weight'");
  c.div = 0;
  c.dim = shape("final_pointwise.1.0.weight", 1)[0];
  c.depth = 0;
  while (src->has("transformer." + n(c.depth) + ".0.fn.1.to_q.weight")) ++c.depth;
  if (c.depth == 0) throw bad(where + "missing tensor 'transformer.0.0.fn.1.to_q.weight'");
  check_no_gap(*src, "conv_tower.", static_cast<int64_t>(c.filter_list.size()) - 1, where);
  check_no_gap(*src, "transformer.", c.depth, where);
  const std::vector<int64_t> rel = shape("transformer.0.0.fn.1.to_rel_k.weight", 2);
  if (rel[1] < 1 || c.dim % rel[1] != 0)
    throw bad(where + "tensor 'transformer.0.0.fn.1.to_rel_k.weight' has shape " +
              shape_to_string(rel) + ": its " + n(rel[1]) +
              " relative features (dim/heads) do not divide dim " + n(c.dim));
  c.heads = c.dim / rel[1];
  if (rel[0] % c.heads != 0)
    throw bad(where + "tensor 'transformer.0.0.fn.1.to_rel_k.weight' has shape " +
              shape_to_string(rel) + ": " + n(rel[0]) + " rows do not split over " + n(c.heads) +
              " heads");
  c.dk = rel[0] / c.heads;
  c.human_out = shape("_heads.human.0.weight", 2)[0];
  c.mouse_out = shape("_heads.mouse.0.weight", 2)[0];
  c.input_bp = o.length != 0 ? o.length : preset.input_bp;
  c.target_from = "";
  if (const fs::path json = file.parent_path() / "config.json"; fs::exists(json))
    apply_config_json(json, c);
  return with_overrides(c, {0, o.target});
}

std::string describe(const Config& c) {
  std::ostringstream s;
  const std::vector<int64_t> f = c.filters();
  s << "dim " << c.dim << ", depth " << c.depth << ", " << c.heads << " heads (key " << c.dk
    << ", value " << c.dv() << "), filters " << f.front() << "-" << f.back() << " over "
    << c.tower_blocks() << " tower blocks, tracks " << c.human_out << "/" << c.mouse_out << "; "
    << c.input_bp << " bp = " << c.tokens() << " tokens, target " << c.target << " ("
    << c.target_from << "); from " << c.source;
  return s.str();
}

}  // namespace sb::enformer
