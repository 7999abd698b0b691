#pragma once
// Every op of Backend's public interface, in the order core_ops.h and then volume_ops.h declare
// them: the do_<op>s of op_list.h, and conv1d and flat_parts, whose hooks are declared by hand.
// The fronts name themselves through this list in their error messages, and the op tests check
// that each op has a case (tests/ops/op_cases.h).
#include <cstdint>
#include <iterator>
#include <string_view>

namespace sb {

// clang-format off
#define SB_OPS(X)                                                                                \
  X(empty) X(upload) X(upload_ids) X(download)                                                   \
  X(prepare_weight) X(linear) X(gemm_batched)                                                    \
  X(im2col) X(conv1d) X(copy_rows) X(convert) X(embedding)                                       \
  X(affine_channels) X(sigmoid_scaled) X(mul) X(add) X(activation)                               \
  X(layernorm) X(add_layernorm) X(normalize_rows) X(softmax_rows) X(softmax_axis1)               \
  X(row_moments) X(sum_axis1) X(masked_mean)                                                     \
  X(add_key_bias) X(rel_shift_add) X(attention_fused) X(rel_attention_fused)                     \
  X(attention_pool)                                                                              \
  X(write) X(write_ids) X(fill) X(concat_last) X(slice_last) X(gather_cols) X(scatter_add_cols)  \
  X(embedding_backward) X(activation_backward) X(layernorm_backward) X(softmax_rows_backward)     \
  X(dropout) X(activation_dropout) X(dropout_activation_backward) X(bce_with_logits) X(cross_entropy) X(sum_squares) X(adamw) X(flat_parts)        \
  X(conv3d) X(conv3d_backward_data) X(conv3d_backward_weights)                                   \
  X(conv_transpose3d) X(conv_transpose3d_backward_data) X(conv_transpose3d_backward_weights)     \
  X(instance_norm) X(instance_norm_backward) X(concat_axis1) X(slice_axis1) X(soft_dice_loss)
// clang-format on

enum class Op : uint8_t {
#define SB_OP_ENUMERATOR(name) name,
  SB_OPS(SB_OP_ENUMERATOR)
#undef SB_OP_ENUMERATOR
};

inline constexpr std::string_view kOpNames[] = {
#define SB_OP_NAME(name) #name,
    SB_OPS(SB_OP_NAME)
#undef SB_OP_NAME
};

inline constexpr int kOpCount = static_cast<int>(std::size(kOpNames));

constexpr std::string_view op_name(Op op) {
  return kOpNames[static_cast<int>(op)];
}

}  // namespace sb
