#include "models/deepfm/checkpoint.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include "models/io/checkpoint_shapes.h"

namespace sb::deepfm {
namespace {

std::string n(int64_t v) {
  return std::to_string(v);
}

constexpr const char* kTables[] = {"drug_emb", "genalle_emb", "gene_emb", "allele_emb"};

// What shapes cannot tell, from config.json; then its shape keys against the shapes.
void apply_config_json(const CheckpointJson& j, Config& c, const Cardinality& rows) {
  if (!j.present()) return;
  const std::string& jw = j.where();
  if (j.has("heads")) {
    c.heads = j.integer("heads");
    if (c.heads < 1 || c.embed % c.heads != 0)
      throw std::invalid_argument(jw + "heads is " + n(c.heads) + ", which does not divide embed " +
                                  n(c.embed) + " (drug_emb.weight's columns)");
  }
  if (j.has("dropout")) {
    const double d = j.number("dropout");
    if (!(d >= 0 && d < 1))
      throw std::invalid_argument(jw + "dropout " + std::to_string(d) + " is outside [0, 1)");
    c.dropout = static_cast<float>(d);
  }
  if (j.has("layer_norm_eps")) {
    const double eps = j.number("layer_norm_eps");
    if (!(eps > 0) || !std::isfinite(eps))
      throw std::invalid_argument(jw + "layer_norm_eps " + std::to_string(eps) +
                                  " must be positive");
    c.eps = static_cast<float>(eps);
  }
  j.check("embed", c.embed, "drug_emb.weight's columns");
  j.check("ff", c.ff, "encoder.linear1.weight's rows");
  j.check("deep", c.deep_widths, "the deep.N.weight rows");
  j.check("vocab", std::vector<int64_t>(rows.begin(), rows.end()), "the *_emb.weight rows");
}

}  // namespace

Checkpoint config_from_checkpoint(const Config& preset, const std::filesystem::path& weights) {
  const std::filesystem::path file = weights_file(weights);
  const SafetensorsWeights src(file);
  const CheckpointShapes shapes(src);
  Checkpoint ck;
  Config& c = ck.config;
  c = preset;
  for (int f = 0; f < 4; ++f) {
    const std::string name = std::string(kTables[f]) + ".weight";
    const std::vector<int64_t> s = shapes.of(name, 2);
    if (f == 0) c.embed = s[1];
    shapes.expect_dim(name, s, 1, c.embed, "drug_emb.weight's columns (embed)");
    if (s[0] < 2)
      throw std::invalid_argument(shapes.where() + "tensor '" + name + "' has " + n(s[0]) +
                                  " rows; a field needs at least one value and its unknown class");
    ck.rows[f] = s[0];
  }
  const std::vector<int64_t> lin1 = shapes.of("encoder.linear1.weight", 2);
  shapes.expect_dim("encoder.linear1.weight", lin1, 1, c.embed, "drug_emb.weight (embed)");
  c.ff = lin1[0];
  c.layers = shapes.count_blocks("deep.", "weight");
  if (c.layers == 0) throw std::invalid_argument(shapes.where() + "missing tensor 'deep.0.weight'");
  c.deep_widths.clear();
  for (int64_t l = 0; l < c.layers; ++l) {
    const std::string name = "deep." + n(l) + ".weight";
    const std::vector<int64_t> s = shapes.of(name, 2);
    if (l == 0)
      shapes.expect_dim(name, s, 1, 4 * c.embed, "4 x embed (the flattened encoder output)");
    else
      shapes.expect_dim(name, s, 1, c.deep_widths.back(), "deep." + n(l - 1) + ".weight's rows");
    c.deep_widths.push_back(s[0]);
  }
  c.hidden = c.deep_widths.back();
  for (int t = 0; t < kTasks; ++t) {
    const std::string name = std::string(kTaskNames[t]) + "_head.weight";
    const std::vector<int64_t> s = shapes.of(name, 2);
    shapes.expect_dim(name, s, 0, kTaskClasses[t],
                      "the data's " + std::string(kTaskNames[t]) + " classes");
    shapes.expect_dim(name, s, 1, c.deep_out() + kPairs,
                      "the last deep layer's width plus the FM's " + n(kPairs) + " pairs");
  }
  c.heads = 0;
  for (int64_t h : {8, 4, 2, 1})
    if (c.heads == 0 && c.embed % h == 0) c.heads = h;
  const CheckpointJson json(file,
                            {"heads", "dropout", "layer_norm_eps", "embed", "ff", "deep", "vocab"});
  apply_config_json(json, c, ck.rows);
  c.source = "weights " + file.string() + (json.present() ? " with " + json.path() : "");
  return ck;
}

}  // namespace sb::deepfm
