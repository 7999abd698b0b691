#include "models/deepfm/params.h"

#include <cmath>
#include <random>
#include <stdexcept>

#include "models/io/weight_source.h"

namespace sb::deepfm {
namespace {

void linear(std::vector<ParamSpec>& s, const std::string& p, int64_t out, int64_t in) {
  s.push_back({p + ".weight", {out, in}, Init::fan_in_uniform, in, out});
  s.push_back({p + ".bias", {out}, Init::fan_in_uniform, in, out});
}

void layer_norm(std::vector<ParamSpec>& s, const std::string& p, int64_t c) {
  s.push_back({p + ".weight", {c}, Init::one});
  s.push_back({p + ".bias", {c}, Init::zero});
}

}  // namespace

int64_t ParamSpec::count() const {
  int64_t n = 1;
  for (int64_t v : shape) n *= v;
  return n;
}

std::vector<ParamSpec> param_specs(const Config& c, const Cardinality& card) {
  std::vector<ParamSpec> s;
  const int64_t e = c.embed, ff = c.ff_width();
  const char* tables[] = {"drug_emb", "genalle_emb", "gene_emb", "allele_emb"};
  for (int f = 0; f < 4; ++f)
    s.push_back({std::string(tables[f]) + ".weight", {card[f], e}, Init::embedding});
  // nn.MultiheadAttention: in_proj xavier-uniform over [3E, E], its biases zero.
  s.push_back({"encoder.self_attn.in_proj_weight", {3 * e, e}, Init::xavier_uniform, e, 3 * e});
  s.push_back({"encoder.self_attn.in_proj_bias", {3 * e}, Init::zero});
  s.push_back({"encoder.self_attn.out_proj.weight", {e, e}, Init::fan_in_uniform, e, e});
  s.push_back({"encoder.self_attn.out_proj.bias", {e}, Init::zero});
  linear(s, "encoder.linear1", ff, e);
  linear(s, "encoder.linear2", e, ff);
  layer_norm(s, "encoder.norm1", e);
  layer_norm(s, "encoder.norm2", e);
  for (int64_t l = 0; l < c.layers; ++l)
    linear(s, "deep." + std::to_string(l), c.deep_width(l), l == 0 ? 4 * e : c.deep_width(l - 1));
  for (int t = 0; t < kTasks; ++t)
    linear(s, std::string(kTaskNames[t]) + "_head", kTaskClasses[t], c.deep_out() + kPairs);
  s.push_back({"log_vars", {kTasks}, Init::zero});
  return s;
}

Params Params::random(const Config& c, const Cardinality& card, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::normal_distribution<float> n(0.f, 1.f);
  Params p;
  p.specs_ = param_specs(c, card);
  for (const auto& spec : p.specs_) {
    HostTensor t{spec.shape, std::vector<float>(static_cast<size_t>(spec.count()))};
    const float fan_in_bound = 1.f / std::sqrt(static_cast<float>(spec.fan_in));
    const float xavier_bound = std::sqrt(6.f / static_cast<float>(spec.fan_in + spec.fan_out));
    for (float& v : t.values) {
      switch (spec.init) {
        case Init::embedding:
          v = n(rng);
          break;
        case Init::fan_in_uniform:
          v = fan_in_bound * u(rng);
          break;
        case Init::xavier_uniform:
          v = xavier_bound * u(rng);
          break;
        case Init::zero:
          v = 0.f;
          break;
        case Init::one:
          v = 1.f;
          break;
      }
    }
    p.tensors_.push_back(std::move(t));
  }
  return p;
}

Params Params::load(const Config& c, const Cardinality& card, WeightSource& source) {
  Params p;
  p.specs_ = param_specs(c, card);
  for (const auto& spec : p.specs_)
    p.tensors_.push_back(HostTensor{spec.shape, source.get(spec.name, spec.shape)});
  return p;
}

const HostTensor& Params::at(const std::string& name) const {
  for (size_t i = 0; i < specs_.size(); ++i)
    if (specs_[i].name == name) return tensors_[i];
  throw std::out_of_range("deepfm: no parameter '" + name + "'");
}

int64_t Params::count() const {
  int64_t n = 0;
  for (const auto& t : tensors_) n += static_cast<int64_t>(t.values.size());
  return n;
}

}  // namespace sb::deepfm
