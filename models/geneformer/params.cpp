#include "models/geneformer/params.h"

#include <cmath>
#include <random>
#include <stdexcept>

#include "models/io/weight_source.h"

namespace sb::geneformer {
namespace {

void linear(std::vector<ParamSpec>& s, const std::string& p, int64_t out, int64_t in) {
  s.push_back({p + ".weight", {out, in}, Init::fan_in_uniform, in});
  s.push_back({p + ".bias", {out}, Init::fan_in_uniform, in});
}

void layer_norm(std::vector<ParamSpec>& s, const std::string& p, int64_t c) {
  s.push_back({p + ".weight", {c}, Init::ln_gamma});
  s.push_back({p + ".bias", {c}, Init::ln_beta});
}

}  // namespace

std::string layer_prefix(int64_t layer) {
  return "encoder.layer." + std::to_string(layer) + ".";
}

std::vector<ParamSpec> param_specs(const Config& c) {
  std::vector<ParamSpec> s;
  const int64_t d = c.hidden;
  s.push_back({"embeddings.word_embeddings.weight", {c.vocab, d}, Init::embedding});
  s.push_back({"embeddings.position_embeddings.weight", {c.max_positions, d}, Init::embedding});
  s.push_back({"embeddings.token_type_embeddings.weight", {c.type_vocab, d}, Init::embedding});
  layer_norm(s, "embeddings.LayerNorm", d);
  for (int64_t l = 0; l < c.layers; ++l) {
    const std::string p = layer_prefix(l);
    linear(s, p + "attention.self.query", d, d);
    linear(s, p + "attention.self.key", d, d);
    linear(s, p + "attention.self.value", d, d);
    linear(s, p + "attention.output.dense", d, d);
    layer_norm(s, p + "attention.output.LayerNorm", d);
    linear(s, p + "intermediate.dense", c.intermediate, d);
    linear(s, p + "output.dense", d, c.intermediate);
    layer_norm(s, p + "output.LayerNorm", d);
  }
  return s;
}

Params Params::random(const Config& c, uint64_t seed) {
  // PyTorch's module defaults: nn.Embedding N(0, 1), nn.Linear U(+-1/sqrt(fan_in)) for weight
  // and bias; LayerNorm affine terms drawn near their trained ranges so no stage sees identity.
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::normal_distribution<float> n(0.f, 1.f);
  Params p;
  for (const auto& spec : param_specs(c)) {
    int64_t count = 1;
    for (int64_t v : spec.shape) count *= v;
    HostTensor t{spec.shape, std::vector<float>(static_cast<size_t>(count))};
    const float bound = 1.f / std::sqrt(static_cast<float>(spec.fan_in));
    for (float& v : t.values) {
      switch (spec.init) {
        case Init::embedding:
          v = n(rng);
          break;
        case Init::fan_in_uniform:
          v = bound * u(rng);
          break;
        case Init::ln_gamma:
          v = 1.f + 0.1f * u(rng);
          break;
        case Init::ln_beta:
          v = 0.05f * n(rng);
          break;
      }
    }
    p.tensors_.emplace(spec.name, std::move(t));
  }
  return p;
}

Params Params::load(const Config& c, WeightSource& source) {
  Params p;
  for (const auto& spec : param_specs(c))
    p.tensors_.emplace(spec.name, HostTensor{spec.shape, source.get(spec.name, spec.shape)});
  return p;
}

const HostTensor& Params::at(const std::string& name) const {
  auto it = tensors_.find(name);
  if (it == tensors_.end()) throw std::out_of_range("geneformer: no parameter '" + name + "'");
  return it->second;
}

int64_t Params::count() const {
  int64_t n = 0;
  for (const auto& [name, t] : tensors_) n += static_cast<int64_t>(t.values.size());
  return n;
}

}  // namespace sb::geneformer
