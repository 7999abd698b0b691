#pragma once
// `stagebench infer geneformer`: one forward on the user's token ids (and attention mask) and
// weights; writes every layer's hidden states and the cell embedding, so the port can be checked
// against Hugging Face's BertModel on the same file.
#include <filesystem>
#include <memory>
#include <string>

#include "models/ops/backend.h"

namespace sb::geneformer {

struct InferRequest {
  std::filesystem::path weights;  // empty: seeded random weights (seed)
  std::filesystem::path input;    // token ids [B, S] or [S] (.npy / .safetensors "input_ids")
  std::filesystem::path mask;     // optional attention mask [B, S]; else in the input's file
                                  // ("attention_mask") or ids != 0
  std::filesystem::path output;   // .safetensors: hidden_states.{0..L}, cell_embedding
  std::string stage = "eager";
  std::string size = "full";  // the real dimensions (small and full differ only in length)
  std::filesystem::path export_weights;
  uint64_t seed = 1;
};

struct InferSummary {
  std::string size, stage;
  int64_t batch = 0, tokens = 0, layers = 0;
};

InferSummary run_inference(const InferRequest& request, std::unique_ptr<Backend> backend);

}  // namespace sb::geneformer
