#include "models/geneformer/ladder.h"

namespace sb::geneformer {

GraphPasses GraphPasses::all() {
  return {true, true, true, true, true, true};
}

bool GraphPasses::any() const {
  return fold_constants || merge_qkv || fuse_bias_act || fuse_residual_layernorm ||
         eliminate_dead || plan_memory;
}

const std::vector<StageSpec>& ladder() {
  static const std::vector<StageSpec> stages = [] {
    const std::string src = "seed 003";
    std::vector<StageSpec> s(kStageCount);
    s[kEager] = {"eager",
                 "Eager (op by op, B x heads x S x S scores materialized)",
                 {src, "PyTorch baseline: 100 samples/s, 100 ms/batch, 4.0 GB", 1.0},
                 {0.99999, "fp32"}};
    s[kOnnxGraph] = {"onnx-graph",
                     "Graph passes (folding, QKV merge, fusions, dead code, memory plan)",
                     {src, "ONNX Runtime 1.5-3x, memory 80-90%", 1.5},
                     {0.99999, "fp32"}};
    s[kEngineFp32] = {"engine-fp32",
                      "Engine fp32 (fused attention, tf32 tensor cores where present)",
                      {src, "TensorRT FP32 2-4x, memory 70-85%", 2.0},
                      {0.9999, "tf32"}};
    s[kEngineFp16] = {"engine-fp16",
                      "Engine half precision (fp16 OpenCL / bf16 CPU)",
                      {src, "TensorRT FP16 3-6x, memory 35-50%", 3.0},
                      {0.999, "fp16"}};
    s[kEngineInt8] = {"engine-int8",
                      "Engine int8 (calibrated, per-channel weights, per-tensor activations)",
                      {src, "TensorRT INT8 5-10x, memory 20-30%", 5.0},
                      {0.99, "int8"}};
    // PyTorch's counterparts (scripts/reference/geneformer_torch.py's peer variants).
    s[kEager].claim.pytorch = {"fp32-eager"};
    s[kOnnxGraph].claim.pytorch_none =
        "ONNX Runtime's graph passes; PyTorch's nearest, torch.compile, is engine-fp32's row";
    s[kEngineFp32].claim.pytorch = {"compile-tf32", "compile-fp32-sdpa"};
    s[kEngineFp16].claim.pytorch = {"compile-fp16-sdpa", "compile-bf16-sdpa",
                                    "compile-fp16-sdpa-cudagraphs",
                                    "compile-fp16-sdpa-max-autotune"};
    s[kEngineInt8].claim.pytorch_none = "TensorRT INT8; the reference's menu has no int8 inference";
    return s;
  }();
  return stages;
}

size_t stage_index(const std::string& id) {
  return find_stage(ladder(), id, "geneformer");
}

Switches switches_for(size_t stage, Precision reduced, bool tensor_cores) {
  Switches sw;
  if (stage >= kOnnxGraph) sw.passes = GraphPasses::all();
  if (stage >= kEngineFp32) {
    sw.fused_attention = true;
    sw.precision = tensor_cores ? Precision::tf32 : Precision::f32;
    sw.attention = sw.precision;  // TF32 mode covers attention's products too
  }
  if (stage >= kEngineFp16) {
    sw.precision = reduced;
    // Without tensor cores: bf16 products where the backend's reduced precision is bf16 (the
    // CPU's fused attention, fp32 softmax), else fp32.
    sw.attention = tensor_cores                 ? Precision::f16
                   : reduced == Precision::bf16 ? Precision::bf16
                                                : Precision::f32;
  }
  if (stage >= kEngineInt8) {
    sw.precision = Precision::int8;
    sw.calibrated = true;
  }
  // int8 too (issue 27): its GEMMs quantize half inputs and write half outputs, so that the
  // LayerNorms, the attention (reading K and V in place) and the quantize passes move halves.
  sw.half_activations = tensor_cores &&
                        (sw.precision == Precision::f16 || sw.precision == Precision::int8) &&
                        sw.attention == Precision::f16 && sw.passes.fuse_bias_act &&
                        sw.passes.fuse_residual_layernorm;
  return sw;
}

}  // namespace sb::geneformer
