#pragma once
// `stagebench infer geneformer`: one forward on the user's token ids (and attention mask) and
// weights; writes every layer's hidden states and the cell embedding, so the port can be checked
// against Hugging Face's BertModel on the same file.
#include <filesystem>
#include <memory>
#include <string>

#include "models/geneformer/config.h"
#include "models/ops/backend.h"

namespace sb::geneformer {

struct InferRequest {
  std::filesystem::path weights;  // file or folder (model.safetensors); empty: seeded random
                                  // weights (seed) of `size`
  ConfigOverrides overrides;      // --heads, --eps
  std::filesystem::path input;    // token ids [B, S] or [S] (.npy / .safetensors "input_ids")
  std::filesystem::path mask;     // optional attention mask [B, S]; else in the input's file
                                  // ("attention_mask") or ids != 0
  std::filesystem::path output;   // .safetensors: hidden_states.{0..L}, cell_embedding
  std::string stage = "eager";
  std::string size = "full";  // the real dimensions (small and full differ only in length);
                              // with weights, the configuration is the checkpoint's
  std::filesystem::path export_weights;
  uint64_t seed = 1;
};

struct InferSummary {
  std::string size, stage;
  int64_t batch = 0, tokens = 0, layers = 0;
  std::string configuration;  // describe(config): dimensions, heads and eps and where from
  // The first NaN or Inf of the outputs (first_non_finite), "" when all are finite: the output
  // is written all the same, and the command fails (exit 1) naming it.
  std::string non_finite;
};

InferSummary run_inference(const InferRequest& request, std::unique_ptr<Backend> backend);

}  // namespace sb::geneformer
