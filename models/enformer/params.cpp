#include "models/enformer/params.h"

#include <cmath>
#include <random>
#include <stdexcept>

#include "models/io/weight_source.h"

namespace sb::enformer {
namespace {

void batch_norm(std::vector<ParamSpec>& s, const std::string& p, int64_t c) {
  s.push_back({p + ".weight", {c}, Init::bn_scale});
  s.push_back({p + ".bias", {c}, Init::bn_shift});
  s.push_back({p + ".running_mean", {c}, Init::bn_mean});
  s.push_back({p + ".running_var", {c}, Init::bn_var});
}

void conv(std::vector<ParamSpec>& s, const std::string& p, int64_t cout, int64_t cin, int64_t k) {
  s.push_back({p + ".weight", {cout, cin, k}, Init::fan_in_uniform, cin * k});
  s.push_back({p + ".bias", {cout}, Init::fan_in_uniform, cin * k});
}

void linear(std::vector<ParamSpec>& s, const std::string& p, int64_t out, int64_t in, bool bias) {
  s.push_back({p + ".weight", {out, in}, Init::fan_in_uniform, in});
  if (bias) s.push_back({p + ".bias", {out}, Init::fan_in_uniform, in});
}

void layer_norm(std::vector<ParamSpec>& s, const std::string& p, int64_t c) {
  s.push_back({p + ".weight", {c}, Init::ln_gamma});
  s.push_back({p + ".bias", {c}, Init::ln_beta});
}

void attention_pool(std::vector<ParamSpec>& s, const std::string& p, int64_t c) {
  s.push_back({p + ".to_attn_logits.weight", {c, c, 1, 1}, Init::pool_dirac, c});
}

int64_t product(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

}  // namespace

std::vector<ParamSpec> param_specs(const Config& c) {
  std::vector<ParamSpec> s;
  const auto f = c.filters();
  conv(s, "stem.0", f[0], 4, 15);
  batch_norm(s, "stem.1.fn.0", f[0]);
  conv(s, "stem.1.fn.2", f[0], f[0], 1);
  attention_pool(s, "stem.2", f[0]);
  for (int64_t i = 0; i < c.tower_blocks(); ++i) {
    const std::string t = "conv_tower." + std::to_string(i);
    batch_norm(s, t + ".0.0", f[i]);
    conv(s, t + ".0.2", f[i + 1], f[i], 5);
    batch_norm(s, t + ".1.fn.0", f[i + 1]);
    conv(s, t + ".1.fn.2", f[i + 1], f[i + 1], 1);
    attention_pool(s, t + ".2", f[i + 1]);
  }
  const int64_t hk = c.heads * c.dk;
  for (int l = 0; l < c.depth; ++l) {
    const std::string t = "transformer." + std::to_string(l);
    layer_norm(s, t + ".0.fn.0", c.dim);
    const std::string a = t + ".0.fn.1";
    linear(s, a + ".to_q", hk, c.dim, false);
    linear(s, a + ".to_k", hk, c.dim, false);
    linear(s, a + ".to_v", c.dim, c.dim, false);
    linear(s, a + ".to_out", c.dim, c.dim, true);
    linear(s, a + ".to_rel_k", hk, c.rel_features(), false);
    s.push_back({a + ".rel_content_bias", {1, c.heads, 1, c.dk}, Init::normal});
    s.push_back({a + ".rel_pos_bias", {1, c.heads, 1, c.dk}, Init::normal});
    layer_norm(s, t + ".1.fn.0", c.dim);
    linear(s, t + ".1.fn.1", 2 * c.dim, c.dim, true);
    linear(s, t + ".1.fn.4", c.dim, 2 * c.dim, true);
  }
  batch_norm(s, "final_pointwise.1.0", c.dim);
  conv(s, "final_pointwise.1.2", 2 * c.dim, c.dim, 1);
  linear(s, "_heads.human.0", c.human_out, 2 * c.dim, true);
  linear(s, "_heads.mouse.0", c.mouse_out, 2 * c.dim, true);
  return s;
}

Params Params::random(const Config& c, uint64_t seed) {
  // PyTorch's default scale for conv/linear (U(+-1/sqrt(fan_in))); BatchNorm statistics and
  // affine terms drawn near their trained ranges so that no stage sees an identity; the pool
  // logits start from enformer-pytorch's dirac x 2 plus a little noise.
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::normal_distribution<float> n(0.f, 1.f);
  Params p;
  for (const auto& spec : param_specs(c)) {
    HostTensor t{spec.shape, std::vector<float>(static_cast<size_t>(product(spec.shape)))};
    const float bound = 1.f / std::sqrt(static_cast<float>(spec.fan_in));
    for (size_t i = 0; i < t.values.size(); ++i) {
      float& v = t.values[i];
      switch (spec.init) {
        case Init::fan_in_uniform:
          v = bound * u(rng);
          break;
        case Init::bn_scale:
          v = 1.f + 0.2f * u(rng);
          break;
        case Init::bn_shift:
          v = 0.1f * n(rng);
          break;
        case Init::bn_mean:
          v = 0.1f * n(rng);
          break;
        case Init::bn_var:
          v = 1.f + 0.5f * u(rng);
          break;
        case Init::ln_gamma:
          v = 1.f + 0.1f * u(rng);
          break;
        case Init::ln_beta:
          v = 0.05f * n(rng);
          break;
        case Init::normal:
          v = n(rng);
          break;
        case Init::pool_dirac: {
          const int64_t ch = spec.shape[0];
          v = (static_cast<int64_t>(i) / ch == static_cast<int64_t>(i) % ch ? 2.f : 0.f) +
              0.01f * n(rng);
          break;
        }
      }
    }
    p.tensors_.emplace(spec.name, std::move(t));
  }
  return p;
}

Params Params::load(const Config& c, WeightSource& source) {
  Params p;
  for (const auto& spec : param_specs(c)) {
    p.tensors_.emplace(spec.name, HostTensor{spec.shape, source.get(spec.name, spec.shape)});
  }
  return p;
}

const HostTensor& Params::at(const std::string& name) const {
  auto it = tensors_.find(name);
  if (it == tensors_.end()) throw std::out_of_range("enformer: no parameter '" + name + "'");
  return it->second;
}

int64_t Params::count() const {
  int64_t n = 0;
  for (const auto& [name, t] : tensors_)
    if (name.find("running_") == std::string::npos) n += static_cast<int64_t>(t.values.size());
  return n;
}

}  // namespace sb::enformer
