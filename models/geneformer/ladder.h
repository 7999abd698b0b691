#pragma once
// Geneformer's ladder (docs/ladders.md, seed 003): eager, onnx-graph, engine-fp32, engine-fp16,
// engine-int8. Each stage is a set of switches the model reads; stage k carries the
// optimizations of the stages below it that apply here.
#include <string>
#include <vector>

#include "contract/workload.h"
#include "models/ops/backend.h"

namespace sb::geneformer {

enum StageIndex : size_t {
  kEager = 0,
  kOnnxGraph,
  kEngineFp32,
  kEngineFp16,
  kEngineInt8,
  kStageCount
};

// One switch per graph pass, so that each pass can be tested on its own.
struct GraphPasses {
  bool fold_constants = false;           // pos + type[0] into one table; 1/sqrt(dh) into Wq and bq
  bool merge_qkv = false;                // Q, K, V as one [3D, D] GEMM
  bool fuse_bias_act = false;            // ReLU in the intermediate GEMM's epilogue
  bool fuse_residual_layernorm = false;  // LN(x + y) in one pass
  bool eliminate_dead = false;  // layers after the embedding layer when only it is requested
  bool plan_memory = false;     // buffers planned once and reused across layers and calls

  static GraphPasses all();
  bool any() const;
};

struct Switches {
  GraphPasses passes;
  bool fused_attention = false;          // streaming softmax, no B x heads x S x S buffer
  Precision precision = Precision::f32;  // of every linear layer
  Precision attention = Precision::f32;  // what the fused attention may compute in
  bool calibrated = false;               // int8 activations from calibration ranges
  // f16 activations between the kernels (issue 27): the GEMM epilogues, LayerNorms and attention
  // write what the next f16 kernel reads, no conversion pass; statistics stay fp32, and the
  // last layer's output (what the cell embedding averages) is fp32. Tensor cores only: the fp16
  // and int8 stages.
  bool half_activations = false;
};

const std::vector<StageSpec>& ladder();
size_t stage_index(const std::string& id);  // throws naming the unknown stage and the ladder

// `reduced`: bf16 on the CPU, f16 on OpenCL. `tensor_cores`: tf32/f16 mma present (the engine
// stages then compute attention and fp32 GEMMs on them, as TensorRT does by default).
Switches switches_for(size_t stage, Precision reduced, bool tensor_cores);

}  // namespace sb::geneformer
