#pragma once
// FLOPs and minimum bytes of one Geneformer forward from the layer formulas (docs/models.md): FLOPs
// are 2 x the multiply-adds of the linear layers and of attention (QK^T and PV); bytes are one
// read of each GEMM's input and weights and one write of its output, plus the scores' write and
// read where attention materializes them. Counted for the layers the stage really runs.
#include "contract/workload.h"
#include "models/geneformer/config.h"
#include "models/geneformer/ladder.h"

namespace sb::geneformer {

WorkCounts forward_counts(const Config& c, const Switches& sw, int64_t layers_run);
double layer_flops(const Config& c);  // one encoder layer, whole batch

}  // namespace sb::geneformer
