#pragma once
// DynUNet trained through the op layer (docs/models.md): input ResBlock -> down ResBlocks ->
// bottleneck ResBlock -> one UpBlock per level below the first (transposed convolution, skip
// concatenation, two convolutions) -> 1x1x1 output convolution; soft Dice + BCE with logits;
// AdamW. The levels, widths, kernels and strides are the configuration's. Written once:
// a stage's Switches choose the layout, the fused norm epilogue, the flat optimizer and
// checkpointing. Forward, backward and the update are separate calls so that a caller can time
// them as phases; infer() is the inference pass.
#include <cstdint>
#include <memory>
#include <vector>

#include "models/dynunet/config.h"
#include "models/dynunet/ladder.h"
#include "models/dynunet/params.h"
#include "models/ops/backend.h"
#include "models/train_phases.h"

namespace sb::dynunet {

struct StepLoss {
  double dice = 0, bce = 0;
  double total() const { return dice + bce; }
};

class Network {
 public:
  Network(Backend& be, const Config& c, const Params& init, const Switches& sw);
  ~Network();

  // Back to the initial parameters, zero moments, step 0.
  void reset();
  // image and mask are [N, 1, P, P, P] (one channel: the same bytes in either layout); each is
  // repeated over the configuration's input and output channels where it has several.
  void forward(const Tensor& image, const Tensor& mask);
  void backward();
  // Reads the loss back (the step's one synchronization, as loss.item()), then AdamW.
  StepLoss update();
  // The inference pass: logits for image, nothing kept for a backward pass.
  const Tensor& infer(const Tensor& image);
  const Tensor& logits() const { return logits_; }
  // The shape of one-channel volumes (image, mask, logits) in this network's layout.
  std::vector<int64_t> input_shape() const { return vol(1, c_.patch); }

  std::vector<float> parameters();  // every parameter, flattened in param_specs() order
  // Every parameter's gradient from the last backward(), in parameters()' order. update()
  // only reads them, so they hold until the next backward().
  std::vector<float> gradients();
  MemorySplit memory() const;
  int64_t steps() const { return step_; }

 private:
  struct Res;   // a ResBlock's parameters
  struct Up;    // an UpBlock's parameters
  struct Acts;  // a block's intermediate tensors
  std::vector<int64_t> vol(int64_t channels, int64_t edge) const;
  Conv3dShape conv_shape(int64_t in, int64_t out, int64_t edge, int64_t kernel, int64_t stride,
                         bool transposed = false) const;
  // x (one channel) repeated over `channels` into `wide`; x itself when channels is 1.
  const Tensor& widen(const Tensor& x, int64_t channels, Tensor& wide);
  Tensor& p(size_t i) { return params_[i]; }
  Tensor& g(size_t i) { return grads_[i]; }
  void norm(const Tensor& x, size_t gamma, int64_t channels, Tensor& y, const Tensor* residual,
            bool act);
  void lrelu_backward(const Tensor& x, const Tensor& dy, Tensor& dx);
  void norm_backward(const Tensor& x, size_t gamma, int64_t channels, const Tensor& dy, Tensor& dx);
  void res_forward(const Res& r, const Tensor& x, Acts& a, Tensor& out);
  // dx: the block input's gradient, unless null (the input block's).
  void res_backward(const Res& r, const Tensor& x, Acts& a, const Tensor& out, const Tensor& dout,
                    Tensor* dx);
  void up_forward(const Up& u, const Tensor& x, const Tensor& skip, Acts& a, Tensor& out);
  void up_backward(const Up& u, const Tensor& x, const Tensor& skip, Acts& a, const Tensor& out,
                   const Tensor& dout, Tensor& dx, Tensor& dskip);
  std::unique_ptr<Acts> res_acts(const Res& r) const;
  std::unique_ptr<Acts> up_acts(const Up& u) const;
  void run_forward(const Tensor& image);
  // The training pass's convolution inputs held read-only (Backend::hold_read_only) from when
  // they are written until backward() has read them, so that a backend converts each to bf16
  // once, not at every convolution that reads it (forward, weight gradient). Not when
  // checkpointing: that rewrites them, and the holds would keep the freed intermediates alive.
  void hold(const Tensor& t);
  void release_holds();
  // Before the last write of a tensor that a hold then keeps for convolutions reading it at the
  // stage's precision (Backend::will_hold_read_only): a backend may write their bf16 copy with
  // it. Only for the convolutions of `in_channels` inputs that read copies: the one-channel
  // input block's run the narrow kernels, which read fp32 (conv3d_narrow.cl).
  void will_hold(const Tensor& t, int64_t in_channels);

  Backend& be_;
  Config c_;
  Switches sw_;
  const Params& init_;
  std::vector<Res> res_;  // per level: input, downsamples, bottleneck
  std::vector<Up> up_;    // upsamples.0 (from the bottleneck) ...
  size_t out_w_ = 0, out_b_ = 0;

  std::vector<Tensor> params_, grads_, m_, v_;  // param_specs() order (parts when flat)
  Tensor flat_p_, flat_g_, flat_m_, flat_v_;    // the flat buffers (flat_optimizer)
  // Block outputs, always kept: e_[level] the encoder's, d_[j] upsamples.j's.
  std::vector<Tensor> e_, d_;
  Tensor logits_, image_, mask_;
  Tensor image_wide_, mask_wide_;            // the repeated channels, when there are several
  std::vector<std::unique_ptr<Acts>> acts_;  // per block, unless checkpointing
  Tensor loss_, dl_dice_, dl_bce_, dlogits_;
  std::vector<Tensor> held_;  // hold()
  int64_t step_ = 0;
};

}  // namespace sb::dynunet
