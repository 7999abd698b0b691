#pragma once
// DeepFM trained through the op layer (docs/models.md): four embeddings -> a post-norm encoder
// layer over the 4 tokens -> the deep branch; the FM's six pair products on the raw
// embeddings; three heads on [deep, fm]; the uncertainty-weighted multi-task loss; AdamW.
// Written once: a stage's Switches choose which ops run (pair list or Gram FM, stacked or
// preallocated losses, the GEMMs' precision, loss scaling). Forward, backward and the update
// are separate calls so that a caller can time them as phases.
#include <array>
#include <cstdint>
#include <vector>

#include "models/deepfm/config.h"
#include "models/deepfm/ladder.h"
#include "models/deepfm/params.h"
#include "models/ops/backend.h"
#include "models/train_phases.h"

namespace sb::deepfm {

// One batch on the device. ids are the four fields' codes already offset into the one
// concatenated embedding table (table_offsets()).
struct DeviceBatch {
  Tensor ids;        // [B, 4] i32
  Tensor outcome;    // [B, 6] f32 multi-hot
  Tensor direction;  // [B] i32
  Tensor type;       // [B] i32
};

struct StepResult {
  std::array<double, kTasks> task_loss{};
  double loss = 0;       // sum_t exp(-s_t) p_t L_t + s_t
  bool skipped = false;  // dynamic loss scaling found a non-finite gradient
};

std::array<int32_t, 4> table_offsets(const Cardinality& card);

class Trainer {
 public:
  Trainer(Backend& be, const Config& c, const Params& init, const std::vector<float>& type_weights,
          const Switches& sw, uint64_t seed);
  ~Trainer();  // ends the parameters' hold (update())
  Trainer(const Trainer&) = delete;
  Trainer& operator=(const Trainer&) = delete;

  // Back to the initial parameters, zero moments, step 0, the initial loss scale.
  void reset();
  void forward(const DeviceBatch& b) {
    forward_model(b);
    losses(b);
  }
  // The two parts of forward(), apart so that a step's phases can time the loss on its own.
  void forward_model(const DeviceBatch& b);
  void losses(const DeviceBatch& b);
  void backward(const DeviceBatch& b);
  // Reads the task losses back (the one synchronization of a step, as loss.item() is), then
  // updates every parameter; with loss scaling, skips the update on a non-finite gradient.
  StepResult update();
  StepResult step(const DeviceBatch& b) {
    forward(b);
    backward(b);
    return update();
  }

  std::vector<float> parameters();  // every parameter, flattened in param_specs() order
  MemorySplit memory() const;
  int64_t steps() const { return step_; }
  int64_t skipped_steps() const { return skipped_; }
  double loss_scale() const { return scale_; }

 private:
  struct Linear {
    Tensor w, b, dw, db;
  };
  void gemm(const Tensor& a, bool ta, const Tensor& b, bool tb, Tensor& c, int64_t m, int64_t n,
            int64_t k, float beta = 0.f, float alpha = 1.f, const Tensor* bias = nullptr);
  // Every GEMM goes through here: the stage's precision and autotuning.
  void batched(GemmBatch& g, const Tensor& a, const Tensor& b, Tensor& c);
  void linear_forward(const Tensor& x, const Linear& l, Tensor& y, int64_t rows);
  // dx (unless null) and the layer's gradients from dy; dx accumulates when beta = 1.
  void linear_backward(const Tensor& x, const Tensor& dy, Linear& l, Tensor* dx, int64_t rows,
                       float beta = 0.f);
  DropoutKey key(int site) const;
  void fm_forward();
  void fm_backward();
  void attention_forward();
  void attention_backward();

  Backend& be_;
  Config c_;
  Switches sw_;
  uint64_t seed_;
  const Params& init_;
  std::vector<float> type_weights_host_;
  int64_t batch_, rows_;  // B, and B x 4 tokens

  // Parameters (device), their gradients and AdamW moments, in param_specs() order.
  std::vector<Tensor*> params_, grads_;
  std::vector<Tensor> m_, v_;
  Tensor flat_p_, flat_g_, flat_m_, flat_v_;  // the flat buffers the four lists are parts of
  // From each AdamW step to the next write: the parameters held read-only for the f16 products
  // (Backend::hold_read_only), their f16 images written by the step where a backend keeps them.
  bool params_held_ = false;
  void release_params();
  // In the f16 stages, the activations the forward products read as x (s, h1, the FFN's and
  // the first deep layer's dropped activations, t) are noticed before their producer, which may
  // then write their f16 copy beside them (a pack launch fewer a product on NVIDIA), and held
  // until the next forward rewrites them (dfm35).
  std::vector<const Tensor*> held_inputs_;
  void notice_input(const Tensor& t);
  void hold_input(const Tensor& t);
  void release_inputs();
  Tensor table_, dtable_;
  Linear qkv_, out_, lin1_, lin2_;
  Tensor n1g_, n1b_, n2g_, n2b_, dn1g_, dn1b_, dn2g_, dn2b_;
  std::vector<Linear> deep_;
  std::array<Linear, kTasks> heads_;
  std::array<double, kTasks> log_vars_{}, lv_m_{}, lv_v_{};
  Tensor type_weights_;

  // Activations kept for the backward pass, allocated once.
  Tensor s_, qkv_act_, probs_, probs_drop_, attn_, o_, x1_, h1_, f_, a_, ad_, g_, x2_, t_;
  std::vector<Tensor> u_, z_;  // deep: pre-activation and (dropped) output per layer
  Tensor fm_, gram_, hcat_;
  std::array<Tensor, kTasks> logits_, dlogits_;
  Tensor loss_;  // [3 + 1], preallocated-loss stages: the losses and update()'s norm
  // Gradient buffers.
  Tensor ds_, dqkv_, dprobs_, dattn_, do_, dx_, df_, dad_, dg_, dt_, dhcat_, dfm_, dgram_, norms_;
  std::vector<Tensor> dz_;

  int64_t step_ = 0, skipped_ = 0, clean_ = 0;
  double scale_ = 1;
};

}  // namespace sb::deepfm
