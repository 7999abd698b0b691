#pragma once
// A fault that makes one op slower by a factor, on every backend: STAGEBENCH_SLOW_OP=OP:FACTOR
// (e.g. linear:1.5). It exists to prove the CI time gate (scripts/ab-gate.sh): a gate that never
// saw a slowdown it should catch proves nothing. The op's front synchronizes the backend, times
// the op, and busy-waits (FACTOR - 1) times that long after it, so the op takes FACTOR times
// as long as the device needed for it, whatever the backend. The variable is recorded in the
// run's context like every STAGEBENCH_* knob. Unset or empty: one branch per op, nothing else.
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "models/ops/op_names.h"

namespace sb {

class CoreOps;

// The ops whose fronts honour the fault: the compute ops of the gated inference ladders.
inline constexpr Op kSlowableOps[] = {Op::linear,
                                      Op::gemm_batched,
                                      Op::conv1d,
                                      Op::im2col,
                                      Op::embedding,
                                      Op::layernorm,
                                      Op::add_layernorm,
                                      Op::softmax_rows,
                                      Op::activation,
                                      Op::add,
                                      Op::mul,
                                      Op::attention_fused,
                                      Op::rel_attention_fused,
                                      Op::attention_pool,
                                      Op::masked_mean};

struct SlowOpFault {
  Op op = Op::empty;
  double factor = 1;
  // Parses "OP:FACTOR"; "" gives none. Throws std::invalid_argument naming the variable and
  // what is wrong (an op not in kSlowableOps, a factor not finite or below 1).
  static std::optional<SlowOpFault> parse(std::string_view spec);
};

// The fault STAGEBENCH_SLOW_OP asks for, parsed once (throws as parse does, at every call).
const std::optional<SlowOpFault>& slow_op_fault();

namespace detail {
bool slow_op_applies(Op op);
void run_slowed(CoreOps& backend, const SlowOpFault& fault, const std::function<void()>& run);
}  // namespace detail

// Runs `run` (the op's do_<op>), stretched when the fault names `op`.
template <class Run>
void run_op(CoreOps& backend, Op op, Run&& run) {
  if (detail::slow_op_applies(op))
    detail::run_slowed(backend, *slow_op_fault(), run);
  else
    run();
}

}  // namespace sb
