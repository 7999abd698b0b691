#include "models/dynunet/params.h"

#include <cmath>
#include <random>
#include <stdexcept>

#include "models/io/weight_source.h"

namespace sb::dynunet {
namespace {

void conv(std::vector<ParamSpec>& s, const std::string& name, int64_t out, int64_t in, int64_t k) {
  s.push_back({name + ".conv.weight", {out, in, k, k, k}, Init::kaiming, in * k * k * k});
}

void norm(std::vector<ParamSpec>& s, const std::string& name, int64_t c) {
  s.push_back({name + ".weight", {c}, Init::one});
  s.push_back({name + ".bias", {c}, Init::zero});
}

// UnetResBlock: conv1 (k^3, stride s), conv2 (k^3), and the 1^3 residual projection conv3 with
// norm3 (every block here changes its width or strides, so each has one).
void res_block(std::vector<ParamSpec>& s, const std::string& p, int64_t in, int64_t out,
               int64_t k) {
  conv(s, p + ".conv1", out, in, k);
  conv(s, p + ".conv2", out, out, k);
  conv(s, p + ".conv3", out, in, 1);
  norm(s, p + ".norm1", out);
  norm(s, p + ".norm2", out);
  norm(s, p + ".norm3", out);
}

// UnetUpBlock: ConvTranspose3d [in, out, u, u, u] (no bias; u its stride), then UnetBasicBlock
// (kernel k) on the concatenation [up, skip] of 2 out channels.
void up_block(std::vector<ParamSpec>& s, const std::string& p, int64_t in, int64_t out, int64_t k,
              int64_t u) {
  s.push_back({p + ".transp_conv.conv.weight", {in, out, u, u, u}, Init::kaiming, out * u * u * u});
  conv(s, p + ".conv_block.conv1", out, 2 * out, k);
  conv(s, p + ".conv_block.conv2", out, out, k);
  norm(s, p + ".conv_block.norm1", out);
  norm(s, p + ".conv_block.norm2", out);
}

}  // namespace

int64_t ParamSpec::count() const {
  int64_t n = 1;
  for (int64_t v : shape) n *= v;
  return n;
}

std::string res_block_name(const Config& c, int64_t level) {
  if (level == 0) return "input_block";
  if (level == c.levels() - 1) return "bottleneck";
  return "downsamples." + std::to_string(level - 1);
}

std::string up_block_name(int64_t j) {
  return "upsamples." + std::to_string(j);
}

int64_t up_level(const Config& c, int64_t j) {
  return c.levels() - 1 - j;
}

std::vector<ParamSpec> param_specs(const Config& c) {
  const std::vector<int64_t>& f = c.filters;
  std::vector<ParamSpec> s;
  for (int64_t i = 0; i < c.levels(); ++i)
    res_block(s, res_block_name(c, i), i == 0 ? c.in_channels : f[i - 1], f[i], c.kernels[i]);
  for (int64_t j = 0; j + 1 < c.levels(); ++j) {
    const int64_t l = up_level(c, j);
    up_block(s, up_block_name(j), f[l], f[l - 1], c.kernels[l], c.strides[l]);
  }
  conv(s, "output_block.conv", c.out_channels, f[0], 1);
  s.push_back({"output_block.conv.conv.bias", {c.out_channels}, Init::zero});
  return s;
}

Params Params::random(const Config& c, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> n(0.f, 1.f);
  // kaiming_normal_(a=0.01, mode='fan_in', nonlinearity='leaky_relu'): std = gain / sqrt(fan_in)
  const double gain = std::sqrt(2.0 / (1.0 + 0.01 * 0.01));
  Params p;
  p.specs_ = param_specs(c);
  for (const auto& spec : p.specs_) {
    HostTensor t{spec.shape, std::vector<float>(static_cast<size_t>(spec.count()))};
    const auto sd = static_cast<float>(gain / std::sqrt(static_cast<double>(spec.fan_in)));
    for (float& v : t.values)
      v = spec.init == Init::kaiming ? sd * n(rng) : spec.init == Init::one ? 1.f : 0.f;
    p.tensors_.push_back(std::move(t));
  }
  return p;
}

Params Params::load(const Config& c, WeightSource& source) {
  Params p;
  p.specs_ = param_specs(c);
  for (const auto& spec : p.specs_)
    p.tensors_.push_back(HostTensor{spec.shape, source.get(spec.name, spec.shape)});
  return p;
}

size_t Params::index(const std::string& name) const {
  for (size_t i = 0; i < specs_.size(); ++i)
    if (specs_[i].name == name) return i;
  throw std::out_of_range("dynunet: no parameter '" + name + "'");
}

const HostTensor& Params::at(const std::string& name) const {
  return tensors_[index(name)];
}

int64_t Params::count() const {
  int64_t n = 0;
  for (const auto& t : tensors_) n += static_cast<int64_t>(t.values.size());
  return n;
}

}  // namespace sb::dynunet
