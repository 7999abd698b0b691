#include "models/dynunet/network.h"

#include <stdexcept>

namespace sb::dynunet {

// Parameter indices (param_specs() order) and sizes of one block. A norm's beta is gamma + 1.
struct Network::Res {
  size_t conv1, conv2, conv3, n1, n2, n3;
  int64_t in, out;
  int64_t kernel, stride;
  int64_t in_edge, out_edge;
};

struct Network::Up {
  size_t tconv, conv1, conv2, n1, n2;
  int64_t in, out;
  int64_t kernel, stride;  // the conv block's kernel; the transposed convolution's stride
  int64_t in_edge, out_edge;
};

// What a block's backward pass reads. The separate-pass blocks also keep each norm's output
// and the pre-activation sums (z1, z2, y2, y3, s); the fused blocks recover LeakyReLU's slope
// from the activation's output (its sign is its input's) and keep neither.
struct Network::Acts {
  Tensor a1, z1, h1, a2, y2, a3, y3, s;  // ResBlock
  Tensor u, c, z2;                       // UpBlock (with a1, z1, h1, a2)
};

Network::Network(Backend& be, const Config& c, const Params& init, const Switches& sw)
    : be_(be), c_(c), sw_(sw), init_(init) {
  check_config(c);
  const std::vector<int64_t>& f = c.filters;
  const std::vector<int64_t> edges = c.edges();
  const int64_t levels = c.levels();
  for (int64_t i = 0; i < levels; ++i) {
    const std::string n = res_block_name(c, i);
    res_.push_back(Res{init.index(n + ".conv1.conv.weight"), init.index(n + ".conv2.conv.weight"),
                       init.index(n + ".conv3.conv.weight"), init.index(n + ".norm1.weight"),
                       init.index(n + ".norm2.weight"), init.index(n + ".norm3.weight"),
                       i == 0 ? c.in_channels : f[i - 1], f[i], c.kernels[i], c.strides[i],
                       i == 0 ? c.patch : edges[i - 1], edges[i]});
  }
  for (int64_t j = 0; j + 1 < levels; ++j) {
    const std::string n = up_block_name(j);
    const int64_t l = up_level(c, j);
    up_.push_back(Up{
        init.index(n + ".transp_conv.conv.weight"), init.index(n + ".conv_block.conv1.conv.weight"),
        init.index(n + ".conv_block.conv2.conv.weight"), init.index(n + ".conv_block.norm1.weight"),
        init.index(n + ".conv_block.norm2.weight"), f[l], f[l - 1], c.kernels[l], c.strides[l],
        edges[l], edges[l - 1]});
  }
  out_w_ = init.index("output_block.conv.conv.weight");
  out_b_ = init.index("output_block.conv.conv.bias");

  std::vector<std::vector<int64_t>> shapes;
  for (const auto& s : init.specs()) shapes.push_back(s.shape);
  if (sw.flat_optimizer) {
    flat_p_ = be.flat_parts(shapes, params_);
    flat_g_ = be.flat_parts(shapes, grads_);
    flat_m_ = be.flat_parts(shapes, m_);
    flat_v_ = be.flat_parts(shapes, v_);
  } else {
    for (const auto& s : shapes) {
      params_.push_back(be.empty(s));
      grads_.push_back(be.empty(s));
      m_.push_back(be.empty(s));
      v_.push_back(be.empty(s));
    }
  }
  for (const Res& r : res_) e_.push_back(be.empty(vol(r.out, r.out_edge)));
  for (const Up& u : up_) d_.push_back(be.empty(vol(u.out, u.out_edge)));
  const auto logits = vol(c.out_channels, c.patch);
  logits_ = be.empty(logits);
  dl_dice_ = be.empty(logits);
  dl_bce_ = be.empty(logits);
  dlogits_ = be.empty(logits);
  if (c.in_channels > 1) image_wide_ = be.empty(vol(c.in_channels, c.patch));
  if (c.out_channels > 1) mask_wide_ = be.empty(logits);
  loss_ = be.empty({2});
  if (!sw.checkpoint) {
    for (const Res& r : res_) acts_.push_back(res_acts(r));
    for (const Up& u : up_) acts_.push_back(up_acts(u));
  }
  reset();
}

Network::~Network() {
  release_holds();
}

void Network::hold(const Tensor& t) {
  if (sw_.checkpoint) return;
  be_.hold_read_only(t);
  held_.push_back(t);
}

void Network::will_hold(const Tensor& t, int64_t in_channels) {
  if (!sw_.checkpoint && in_channels > 1) be_.will_hold_read_only(t, sw_.precision);
}

void Network::release_holds() {
  for (const Tensor& t : held_) be_.release_read_only(t);
  held_.clear();
}

std::vector<int64_t> Network::vol(int64_t channels, int64_t edge) const {
  if (sw_.layout == Layout3d::ncdhw) return {c_.batch, channels, edge, edge, edge};
  return {c_.batch, edge, edge, edge, channels};
}

// MONAI's padding (conv_padding: 1 for 3^3 at stride 1 or 2, 0 for 1^3); 0 for the transposed
// convolutions, whose kernel is their stride.
Conv3dShape Network::conv_shape(int64_t in, int64_t out, int64_t edge, int64_t kernel,
                                int64_t stride, bool transposed) const {
  Conv3dShape s;
  s.batch = c_.batch, s.in_channels = in, s.out_channels = out;
  s.d = s.h = s.w = edge;
  s.kernel = static_cast<int>(kernel), s.stride = static_cast<int>(stride);
  s.padding = transposed ? 0 : static_cast<int>(conv_padding(kernel, stride));
  s.layout = sw_.layout;
  // The stage's precision for every convolution; the transposed ones take bf16 alone (a few
  // percent of the products; other precisions compute them in f32).
  if (!transposed || sw_.precision == Precision::bf16) s.precision = sw_.precision;
  return s;
}

std::unique_ptr<Network::Acts> Network::res_acts(const Res& r) const {
  auto a = std::make_unique<Acts>();
  const auto shape = vol(r.out, r.out_edge);
  for (Tensor* t : {&a->a1, &a->h1, &a->a2, &a->a3}) *t = be_.empty(shape);
  if (!sw_.fused_norm)
    for (Tensor* t : {&a->z1, &a->y2, &a->y3, &a->s}) *t = be_.empty(shape);
  return a;
}

std::unique_ptr<Network::Acts> Network::up_acts(const Up& u) const {
  auto a = std::make_unique<Acts>();
  const auto shape = vol(u.out, u.out_edge);
  for (Tensor* t : {&a->u, &a->a1, &a->h1, &a->a2}) *t = be_.empty(shape);
  a->c = be_.empty(vol(2 * u.out, u.out_edge));
  if (!sw_.fused_norm)
    for (Tensor* t : {&a->z1, &a->z2}) *t = be_.empty(shape);
  return a;
}

void Network::reset() {
  const auto& init = init_.tensors();
  for (size_t i = 0; i < init.size(); ++i) {
    be_.write(init[i].values, params_[i]);
    be_.fill(m_[i], 0.f);
    be_.fill(v_[i], 0.f);
  }
  step_ = 0;
}

void Network::norm(const Tensor& x, size_t gamma, int64_t channels, Tensor& y,
                   const Tensor* residual, bool act) {
  be_.instance_norm(x, sw_.layout, c_.batch, channels, p(gamma), p(gamma + 1), c_.eps, y,
                    {residual, act ? Act::leaky_relu : Act::none});
}

void Network::norm_backward(const Tensor& x, size_t gamma, int64_t channels, const Tensor& dy,
                            Tensor& dx) {
  be_.instance_norm_backward(x, sw_.layout, c_.batch, channels, p(gamma), c_.eps, dy, dx, g(gamma),
                             g(gamma + 1));
}

void Network::lrelu_backward(const Tensor& x, const Tensor& dy, Tensor& dx) {
  be_.activation_backward(x, dy, Act::leaky_relu, dx);
}

void Network::res_forward(const Res& r, const Tensor& x, Acts& a, Tensor& out) {
  be_.conv3d(conv_shape(r.in, r.out, r.in_edge, r.kernel, r.stride), x, p(r.conv1), nullptr, a.a1);
  if (sw_.fused_norm) {
    will_hold(a.h1, r.out);
    norm(a.a1, r.n1, r.out, a.h1, nullptr, true);
  } else {
    norm(a.a1, r.n1, r.out, a.z1, nullptr, false);
    be_.activation(a.z1, Act::leaky_relu, a.h1);
  }
  hold(a.h1);  // read by conv2 and its weight gradient
  be_.conv3d(conv_shape(r.out, r.out, r.out_edge, r.kernel, 1), a.h1, p(r.conv2), nullptr, a.a2);
  be_.conv3d(conv_shape(r.in, r.out, r.in_edge, 1, r.stride), x, p(r.conv3), nullptr, a.a3);
  if (sw_.fused_norm) {
    norm(a.a3, r.n3, r.out, out, nullptr, false);  // the residual branch, then in place:
    // Read by the next block's conv1 and conv3, the bottleneck's by a transposed convolution
    // (bf16 where the stage is; run_forward holds them).
    will_hold(out, r.out);
    norm(a.a2, r.n2, r.out, out, &out, true);  // out = LReLU(IN(a2) + out)
  } else {
    norm(a.a3, r.n3, r.out, a.y3, nullptr, false);
    norm(a.a2, r.n2, r.out, a.y2, nullptr, false);
    be_.add(a.y2, a.y3, a.s);
    be_.activation(a.s, Act::leaky_relu, out);
  }
}

void Network::res_backward(const Res& r, const Tensor& x, Acts& a, const Tensor& out,
                           const Tensor& dout, Tensor* dx) {
  const auto shape = vol(r.out, r.out_edge);
  Tensor ds = be_.empty(shape), da = be_.empty(shape), dh = be_.empty(shape);
  lrelu_backward(sw_.fused_norm ? out : a.s, dout, ds);
  will_hold(da, r.out);
  norm_backward(a.a2, r.n2, r.out, ds, da);
  // Each convolution's two gradients read the same dy: held while they run, it is converted
  // to bf16 once (Backend::hold_read_only), and released before anything rewrites it.
  const Conv3dShape c2 = conv_shape(r.out, r.out, r.out_edge, r.kernel, 1);
  {
    const HeldReadOnly held(be_, da);
    be_.conv3d_backward_weights(c2, a.h1, da, g(r.conv2), nullptr);
    be_.conv3d_backward_data(c2, da, p(r.conv2), dh);
  }
  lrelu_backward(sw_.fused_norm ? a.h1 : a.z1, dh, dh);
  will_hold(da, r.in);
  norm_backward(a.a1, r.n1, r.out, dh, da);
  const Conv3dShape c1 = conv_shape(r.in, r.out, r.in_edge, r.kernel, r.stride);
  {
    const HeldReadOnly held(be_, da);
    be_.conv3d_backward_weights(c1, x, da, g(r.conv1), nullptr);
    if (dx) be_.conv3d_backward_data(c1, da, p(r.conv1), *dx);
  }
  // The residual projection: IN3 and conv3 on the same ds (in place: ds is no longer needed).
  will_hold(ds, r.in);
  norm_backward(a.a3, r.n3, r.out, ds, ds);
  const Conv3dShape c3 = conv_shape(r.in, r.out, r.in_edge, 1, r.stride);
  const HeldReadOnly held(be_, ds);
  be_.conv3d_backward_weights(c3, x, ds, g(r.conv3), nullptr);
  if (dx) {
    Tensor d3 = be_.empty(vol(r.in, r.in_edge));
    be_.conv3d_backward_data(c3, ds, p(r.conv3), d3);
    be_.add(*dx, d3, *dx);
  }
}

namespace {

// The [outer, C, inner] view of a volume's channel axis: ncdhw (N, C, voxels), ndhwc
// (N voxels, C, 1).
std::pair<int64_t, int64_t> channel_view(Layout3d layout, int64_t batch, int64_t voxels) {
  return layout == Layout3d::ncdhw ? std::pair{batch, voxels}
                                   : std::pair{batch * voxels, int64_t{1}};
}

}  // namespace

void Network::up_forward(const Up& u, const Tensor& x, const Tensor& skip, Acts& a, Tensor& out) {
  be_.conv_transpose3d(conv_shape(u.in, u.out, u.in_edge, u.stride, u.stride, true), x, p(u.tconv),
                       nullptr, a.u);
  const auto [outer, inner] =
      channel_view(sw_.layout, c_.batch, u.out_edge * u.out_edge * u.out_edge);
  const Tensor* parts[] = {&a.u, &skip};
  will_hold(a.c, 2 * u.out);
  be_.concat_axis1(parts, outer, inner, a.c);
  hold(a.c);
  be_.conv3d(conv_shape(2 * u.out, u.out, u.out_edge, u.kernel, 1), a.c, p(u.conv1), nullptr, a.a1);
  if (sw_.fused_norm) {
    will_hold(a.h1, u.out);
    norm(a.a1, u.n1, u.out, a.h1, nullptr, true);
  } else {
    norm(a.a1, u.n1, u.out, a.z1, nullptr, false);
    be_.activation(a.z1, Act::leaky_relu, a.h1);
  }
  hold(a.h1);
  be_.conv3d(conv_shape(u.out, u.out, u.out_edge, u.kernel, 1), a.h1, p(u.conv2), nullptr, a.a2);
  if (sw_.fused_norm) {
    if (&out != &d_.back()) will_hold(out, u.out);  // the next up block's transposed conv reads it
    norm(a.a2, u.n2, u.out, out, nullptr, true);
  } else {
    norm(a.a2, u.n2, u.out, a.z2, nullptr, false);
    be_.activation(a.z2, Act::leaky_relu, out);
  }
}

void Network::up_backward(const Up& u, const Tensor& x, const Tensor& skip, Acts& a,
                          const Tensor& out, const Tensor& dout, Tensor& dx, Tensor& dskip) {
  (void)skip;
  const auto shape = vol(u.out, u.out_edge);
  Tensor dz = be_.empty(shape), da = be_.empty(shape);
  lrelu_backward(sw_.fused_norm ? out : a.z2, dout, dz);
  will_hold(da, u.out);
  norm_backward(a.a2, u.n2, u.out, dz, da);
  const Conv3dShape c2 = conv_shape(u.out, u.out, u.out_edge, u.kernel, 1);
  {
    const HeldReadOnly held(be_, da);  // one bf16 copy for both gradients (res_backward)
    be_.conv3d_backward_weights(c2, a.h1, da, g(u.conv2), nullptr);
    be_.conv3d_backward_data(c2, da, p(u.conv2), dz);  // dz now holds dh1
  }
  lrelu_backward(sw_.fused_norm ? a.h1 : a.z1, dz, dz);
  will_hold(da, 2 * u.out);
  norm_backward(a.a1, u.n1, u.out, dz, da);
  const Conv3dShape c1 = conv_shape(2 * u.out, u.out, u.out_edge, u.kernel, 1);
  Tensor dc = be_.empty(vol(2 * u.out, u.out_edge));
  {
    const HeldReadOnly held(be_, da);
    be_.conv3d_backward_weights(c1, a.c, da, g(u.conv1), nullptr);
    be_.conv3d_backward_data(c1, da, p(u.conv1), dc);
  }
  const auto [outer, inner] =
      channel_view(sw_.layout, c_.batch, u.out_edge * u.out_edge * u.out_edge);
  be_.slice_axis1(dc, outer, inner, 0, dz);  // dz now holds du
  be_.slice_axis1(dc, outer, inner, u.out, dskip);
  const Conv3dShape ct = conv_shape(u.in, u.out, u.in_edge, u.stride, u.stride, true);
  const HeldReadOnly held(be_, dz);  // one bf16 copy of du for both gradients
  be_.conv_transpose3d_backward_weights(ct, x, dz, g(u.tconv), nullptr);
  be_.conv_transpose3d_backward_data(ct, dz, p(u.tconv), dx);
}

const Tensor& Network::widen(const Tensor& x, int64_t channels, Tensor& wide) {
  if (channels == 1) return x;
  const auto [outer, inner] = channel_view(sw_.layout, c_.batch, c_.voxels());
  const std::vector<const Tensor*> parts(static_cast<size_t>(channels), &x);
  be_.concat_axis1(parts, outer, inner, wide);
  return wide;
}

void Network::run_forward(const Tensor& image) {
  // Checkpointing: each block's intermediates live only while it runs (and again while its
  // backward pass recomputes them).
  auto block_acts = [&](size_t i, std::unique_ptr<Acts>& temp) -> Acts& {
    if (!sw_.checkpoint) return *acts_[i];
    temp = i < res_.size() ? res_acts(res_[i]) : up_acts(up_[i - res_.size()]);
    return *temp;
  };
  release_holds();  // this pass rewrites what the last one held
  image_ = widen(image, c_.in_channels, image_wide_);
  const Tensor* x = &image_;
  for (size_t i = 0; i < res_.size(); ++i) {
    std::unique_ptr<Acts> temp;
    res_forward(res_[i], *x, block_acts(i, temp), e_[i]);
    x = &e_[i];
    hold(e_[i]);  // read by the next block's conv1 and conv3 and their weight gradients
  }
  for (size_t j = 0; j < up_.size(); ++j) {
    std::unique_ptr<Acts> temp;
    up_forward(up_[j], *x, e_[res_.size() - 2 - j], block_acts(res_.size() + j, temp), d_[j]);
    x = &d_[j];
    hold(d_[j]);
  }
  be_.conv3d(conv_shape(c_.filters[0], c_.out_channels, c_.patch, 1, 1), *x, p(out_w_), &p(out_b_),
             logits_);
}

void Network::forward(const Tensor& image, const Tensor& mask) {
  run_forward(image);
  mask_ = widen(mask, c_.out_channels, mask_wide_);
  // Soft Dice + BCE with logits, equal weights: dlogits is the sum of their gradients.
  be_.soft_dice_loss(logits_, mask_, sw_.layout, c_.batch, c_.out_channels, c_.smooth, 1.f, loss_,
                     0, dl_dice_);
  const int64_t rows = logits_.numel();
  Tensor z = logits_.reshaped({rows, 1}), t = mask_.reshaped({rows, 1});
  Tensor dz = dl_bce_.reshaped({rows, 1});
  be_.bce_with_logits(z, t, 1.f, loss_, 1, dz);
  be_.add(dl_dice_, dl_bce_, dlogits_);
}

const Tensor& Network::infer(const Tensor& image) {
  run_forward(image);
  release_holds();  // no backward pass reads them
  return logits_;
}

void Network::backward() {
  const size_t levels = res_.size();
  const Conv3dShape co = conv_shape(c_.filters[0], c_.out_channels, c_.patch, 1, 1);
  be_.conv3d_backward_weights(co, d_.back(), dlogits_, g(out_w_), &g(out_b_));
  Tensor dx = be_.empty(vol(c_.filters[0], c_.patch));
  be_.conv3d_backward_data(co, dlogits_, p(out_w_), dx);
  auto acts = [&](size_t i, std::unique_ptr<Acts>& temp) -> Acts& {
    if (!sw_.checkpoint) return *acts_[i];
    temp = i < res_.size() ? res_acts(res_[i]) : up_acts(up_[i - res_.size()]);
    return *temp;
  };
  // The up blocks from the last (the finest) back to the bottleneck's: each gives its input's
  // gradient, and its skip's for the encoder level it joined.
  std::vector<Tensor> de(levels), dskip(levels);
  for (size_t j = up_.size(); j-- > 0;) {
    const Up& u = up_[j];
    const size_t level = levels - 2 - j;  // the skip's
    const Tensor& x = j == 0 ? e_.back() : d_[j - 1];
    Tensor din = be_.empty(vol(u.in, u.in_edge));
    dskip[level] = be_.empty(vol(u.out, u.out_edge));
    std::unique_ptr<Acts> temp;
    Acts& a = acts(levels + j, temp);
    if (sw_.checkpoint) up_forward(u, x, e_[level], a, d_[j]);  // recompute
    up_backward(u, x, e_[level], a, d_[j], dx, din, dskip[level]);
    dx = din;
  }
  de[levels - 1] = dx;
  for (size_t i = levels; i-- > 0;) {
    std::unique_ptr<Acts> temp;
    Acts& a = acts(i, temp);
    const Tensor& in = i == 0 ? image_ : e_[i - 1];
    if (i > 0) de[i - 1] = be_.empty(vol(res_[i].in, res_[i].in_edge));
    if (sw_.checkpoint) res_forward(res_[i], in, a, e_[i]);
    res_backward(res_[i], in, a, e_[i], de[i], i > 0 ? &de[i - 1] : nullptr);
    // The level above's output feeds this block and an up block's skip: both gradients.
    if (i > 0) be_.add(de[i - 1], dskip[i - 1], de[i - 1]);
  }
  release_holds();
}

StepLoss Network::update() {
  const std::vector<float> l = be_.download(loss_);
  ++step_;
  AdamWStep s;
  s.lr = c_.lr, s.weight_decay = c_.weight_decay, s.step = step_;
  if (sw_.flat_optimizer) {
    be_.adamw(flat_p_, flat_g_, flat_m_, flat_v_, s);
  } else {
    for (size_t i = 0; i < params_.size(); ++i) be_.adamw(params_[i], grads_[i], m_[i], v_[i], s);
  }
  return {l.at(0), l.at(1)};
}

namespace {

std::vector<float> download_all(Backend& be, const std::vector<Tensor>& ts) {
  std::vector<float> out;
  for (const Tensor& t : ts) {
    const std::vector<float> v = be.download(t);
    out.insert(out.end(), v.begin(), v.end());
  }
  return out;
}

}  // namespace

std::vector<float> Network::parameters() {
  return download_all(be_, params_);
}

std::vector<float> Network::gradients() {
  return download_all(be_, grads_);
}

MemorySplit Network::memory() const {
  MemorySplit m;
  auto bytes = [](const std::vector<Tensor>& ts) {
    uint64_t n = 0;
    for (const Tensor& t : ts) n += t.bytes();
    return n;
  };
  m.parameters = sw_.flat_optimizer ? flat_p_.bytes() : bytes(params_);
  m.gradients = sw_.flat_optimizer ? flat_g_.bytes() : bytes(grads_);
  m.optimizer_state =
      sw_.flat_optimizer ? flat_m_.bytes() + flat_v_.bytes() : bytes(m_) + bytes(v_);
  for (const std::vector<Tensor>* blocks : {&e_, &d_})
    for (const Tensor& t : *blocks) m.activations += t.bytes();
  for (const Tensor* t : {&logits_, &dl_dice_, &dl_bce_, &dlogits_, &image_wide_, &mask_wide_})
    if (t->defined()) m.activations += t->bytes();
  for (const auto& a : acts_)
    for (const Tensor* t :
         {&a->a1, &a->z1, &a->h1, &a->a2, &a->y2, &a->a3, &a->y3, &a->s, &a->u, &a->c, &a->z2})
      if (t->defined()) m.activations += t->bytes();
  return m;
}

}  // namespace sb::dynunet
