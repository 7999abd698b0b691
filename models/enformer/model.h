#pragma once
// Enformer written once against the op layer. The stage's switches choose between the eager
// sequence of ops and the fused ones; nothing else differs between stages.
#include <string>
#include <unordered_map>
#include <vector>

#include "models/enformer/config.h"
#include "models/enformer/ladder.h"
#include "models/enformer/params.h"
#include "models/ops/backend.h"

namespace sb::enformer {

struct Outputs {
  Tensor embeddings;  // [B, target, 2 dim]
  Tensor human;       // [B, target, human_out]
  Tensor mouse;       // [B, target, mouse_out]
};

class Model {
 public:
  Model(const Config& config, const Params& params, Backend& backend, const Switches& sw);

  // input: one-hot DNA [B, input_bp, 4] on this backend. Queues the work; the caller syncs.
  Outputs forward(const Tensor& input);

 private:
  struct BatchNorm {
    Tensor scale, shift;  // eval statistics folded: x * scale + shift
  };
  struct ConvBlock {
    BatchNorm bn;
    Weight w;  // [cout, k * cin], column j * cin + c
    Tensor bias;
    int k = 1;
  };
  struct Tower {
    ConvBlock conv, pointwise;
    Weight pool;
  };
  struct Layer {
    Tensor ln1_g, ln1_b, ln2_g, ln2_b;
    Weight q, k, v, out, rel_k, ff1, ff2;
    Tensor out_b, ff1_b, ff2_b;
    Tensor content_bias, pos_bias;  // [H * dk]
    Tensor rel_k_cached;            // graph-compile: rel_k for this model's length
  };

  Weight weight(const std::string& name, int64_t n, int64_t k, Precision p);
  Tensor vec(const std::string& name);
  BatchNorm batch_norm(const std::string& prefix);
  ConvBlock conv_block(const std::string& bn, const std::string& conv, int64_t cin, int64_t cout,
                       int k);
  // A buffer for one op site: fresh each call (eager) or kept across calls (static plan).
  Tensor buffer(const std::string& site, std::vector<int64_t> shape, DType dtype = DType::f32);
  // The dtype of a transformer activation that feeds an f16 product only (Switches::
  // half_activations): f16 there, else fp32.
  DType act() const;

  Tensor gelu(const Tensor& x, const std::string& site);
  // 'same' conv1d; the im2col columns come from the memory plan when the backend gathers them.
  void conv(const Tensor& x, int k, const Weight& w, Tensor& y, const Epilogue& ep,
            const InputTransform& t, const std::string& site);
  // `out`: f16 only where the block's one reader takes it (a pool, in the half-activation
  // stage); the residual is added in fp32 before the rounding.
  // `applied`: x already holds BN + GELU of the block's input (its pool wrote it so).
  Tensor run_conv_block(const Tensor& x, const ConvBlock& b, const Tensor* residual,
                        const std::string& site, DType out = DType::f32, bool applied = false);
  // `out`: f16 only where the next conv block (whose input pass reads it) is the one reader.
  // `next`, where set: that block, whose BN + GELU the pool applies before its store
  // (Switches::pool_transform).
  Tensor run_pool(const Tensor& x, const Weight& w, const std::string& site, DType out = DType::f32,
                  const ConvBlock* next = nullptr);
  Tensor layer_norm(const Tensor& x, const Tensor& g, const Tensor& b, const std::string& site);
  Tensor positions();
  Tensor rel_k(const Layer& l, const Tensor& features, const std::string& site);
  Tensor attention(const Tensor& x, const Layer& l, const std::string& site);
  Tensor transformer_layer(const Tensor& x, const Layer& l, const std::string& site);
  Tensor head(const Tensor& x, const Weight& w, const Tensor& b, const std::string& site);

  Config c_;
  Backend& be_;
  Switches sw_;
  const Params& params_;
  Weight stem_w_;
  Tensor stem_b_;
  ConvBlock stem_pointwise_;
  Weight stem_pool_;
  std::vector<Tower> tower_;
  std::vector<Layer> layers_;
  ConvBlock final_;
  Weight human_w_, mouse_w_;
  Tensor human_b_, mouse_b_, q_scale_;
  Tensor features_;  // eager: this call's positional features
  std::unordered_map<std::string, Tensor> plan_;
};

}  // namespace sb::enformer
