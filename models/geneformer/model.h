#pragma once
// Geneformer (post-LayerNorm BERT) written once against the op layer. The stage's switches pick
// eager ops or the graph passes' fused ones, the attention kernel and the GEMM precision.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "models/geneformer/cells.h"
#include "models/geneformer/config.h"
#include "models/geneformer/ladder.h"
#include "models/geneformer/params.h"
#include "models/ops/backend.h"

namespace sb::geneformer {

struct Outputs {
  // Hugging Face's hidden_states: the embeddings' output, then every layer's, [B, S, D] each;
  // kept by models without a memory plan (eager keeps them, as output_hidden_states does) and
  // by any forward asked for all layers.
  std::vector<Tensor> hidden;
  Tensor cell_embedding;  // [B, D]: layer embedding_layer()'s output, mean over gene tokens
};

// Per linear layer, by site name ("layer.0.qkv"), the range its input took: what calibration
// records and the int8 model quantizes with.
using InputRanges = std::map<std::string, std::pair<float, float>>;

class Model {
 public:
  // `ranges` is required when sw.calibrated: every int8 linear takes its static input range.
  Model(const Config& config, const Params& params, Backend& backend, const Switches& sw,
        const InputRanges* ranges = nullptr);

  // Queues one forward; the caller synchronizes. `all_layers`: compute every layer even when
  // dead-code elimination would stop at the embedding layer (inference of all hidden states).
  Outputs forward(const DeviceCells& cells, bool all_layers = false);

  // Calibration: called with each linear layer's site name and input before the GEMM runs.
  void observe_inputs(std::function<void(const std::string&, const Tensor&)> observer) {
    observer_ = std::move(observer);
  }

  // Bytes a forward asks for across all its buffers (what runs without a memory plan allocate)
  // and the bytes the plan holds; both from the last forward.
  uint64_t requested_bytes() const { return requested_bytes_; }
  uint64_t planned_bytes() const;
  int64_t layers_run() const { return layers_run_; }

 private:
  struct Linear {
    std::string site;
    Weight w;
    Tensor bias;
  };
  struct Layer {
    Linear q, k, v, qkv, out, inter, output;
    Tensor ln1_g, ln1_b, ln2_g, ln2_b;
  };

  Linear linear_params(const std::string& site, const std::vector<std::string>& names, float scale,
                       const InputRanges* ranges);
  Tensor vec(const std::string& name);
  Tensor buffer(const std::string& site, std::vector<int64_t> shape, DType dtype = DType::f32);
  void linear(const Tensor& x, const Linear& l, Tensor& y, Act act = Act::none);
  Tensor embed(const DeviceCells& cells);
  Tensor residual_layernorm(const Tensor& x, const Tensor& residual, const Tensor& g,
                            const Tensor& b, const std::string& site, DType dtype = DType::f32);
  Tensor attention(const Tensor& x, const Layer& l, const DeviceCells& cells,
                   const std::string& site);
  Tensor layer(const Tensor& x, const Layer& l, const DeviceCells& cells, const std::string& site,
               int64_t index);

  Config c_;
  Backend& be_;
  Switches sw_;
  const Params& params_;
  Tensor word_, pos_, type_, pos_type_, emb_g_, emb_b_, score_scale_;
  std::vector<Layer> layers_;
  std::unordered_map<std::string, Tensor> plan_;
  std::unordered_map<std::string, Tensor> position_ids_;  // per batch shape, eager only
  std::function<void(const std::string&, const Tensor&)> observer_;
  bool keep_all_ = true;  // this forward keeps every hidden state (no output overwrites)
  // The activations between kernels: f16 in a half-precision stage (Switches), else fp32.
  DType act_ = DType::f32;
  int64_t last_layer_ = 0;  // layers this forward runs
  uint64_t requested_bytes_ = 0;
  int64_t layers_run_ = 0;
};

}  // namespace sb::geneformer
