#pragma once
// Batched GEMMs of tiny items (DeepFM's attention: 2,048 items of 4 x 4 x 32 a call) as plain
// loops, items shared out across threads. Eigen's set-up per item cost more than the item: 2,048
// items of 4 x 4 x 32 took 341 us a call at 2 threads on the 2-core VM (6 GFLOP/s).
#include "models/ops/backend.h"

namespace sb::cpu {

// Whether g's items are small enough for gemm_small_items: at most 1,024 outputs (a local
// accumulator) and 16,384 multiply-adds each.
bool small_items(const GemmBatch& g);
// STAGEBENCH_CPU_SMALL_ITEMS_COST, read now (gemm_small_items reads it once): true for
// "traffic" (the default), false for "macs"; another value throws std::invalid_argument.
bool read_small_items_cost();
// C = alpha op(A) op(B) + beta C for every item of g (validated, small_items(g)); beta = 0 never
// reads C. bf16_operands: A and B rounded to bf16 as they are read (the bf16 product: exact
// products, f32 sums), with no packed copy.
void gemm_small_items(const GemmBatch& g, const float* a, const float* b, float* c,
                      bool bf16_operands = false);

}  // namespace sb::cpu
