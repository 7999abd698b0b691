#include "models/gemm/ladder.h"

#include <stdexcept>

namespace sb::gemm {

const std::vector<StageSpec>& ladder() {
  static const std::vector<StageSpec> stages = [] {
    const Claim none{"none", "kernel benchmark: no document claim", std::nullopt};
    std::vector<StageSpec> s(kStageCount);
    s[kFp32] = {"fp32", "fp32 GEMM (the backend's library kernel)", none, {0.99999, "fp32"}};
    s[kTf32] = {"tf32", "TF32 tensor-core GEMM, fp32 accumulation", none, {0.9999, "tf32"}};
    s[kFp16] = {"fp16", "fp16 GEMM, fp32 accumulation", none, {0.999, "fp16"}};
    s[kInt8] = {"int8",
                "int8 GEMM (per-channel weights, calibrated per-tensor input)",
                none,
                {0.99, "int8"}};
    return s;
  }();
  return stages;
}

size_t stage_index(const std::string& id) {
  return find_stage(ladder(), id, "gemm");
}

Switches switches_for(size_t stage) {
  switch (stage) {
    case kFp32:
      return {Precision::f32};
    case kTf32:
      return {Precision::tf32};
    case kFp16:
      return {Precision::f16};
    case kInt8:
      return {Precision::int8};
    default:
      throw std::invalid_argument("gemm: no stage " + std::to_string(stage));
  }
}

}  // namespace sb::gemm
