#pragma once
// Every backend op's do_<op> signature, written once. The op layer's classes declare them pure
// virtual from these lists (core_ops.h, volume_ops.h), each backend declares its overrides from
// them (SB_DECLARE_OVERRIDE), and the tests' recording backend forwards them (tests/ops/
// recording_backend.h): a new op is one line here, and a signature cannot drift between them.
//
// X(return type, op, (parameters), (the parameters as arguments)): the op's front has the same
// name and takes the same arguments. Left out because they are not pure virtual: do_conv1d and
// do_part (with part_alignment), declared by hand in core_ops.h.

// clang-format off
#define SB_CORE_OPS(X)                                                                           \
  X(Tensor, empty, (std::vector<int64_t> shape, DType dtype), (std::move(shape), dtype))         \
  X(Tensor, upload, (std::span<const float> host, std::vector<int64_t> shape),                  \
    (host, std::move(shape)))                                                                    \
  X(Tensor, upload_ids, (std::span<const int32_t> host, std::vector<int64_t> shape),            \
    (host, std::move(shape)))                                                                    \
  X(std::vector<float>, download, (const Tensor& t), (t))                                        \
  X(Weight, prepare_weight, (std::span<const float> w, int64_t n, int64_t k, Precision p),      \
    (w, n, k, p))                                                                                \
  X(void, linear, (const Tensor& x, const Weight& w, Tensor& y, const Epilogue& ep),            \
    (x, w, y, ep))                                                                               \
  X(void, gemm_batched, (const GemmBatch& g, const Tensor& a, const Tensor& b, Tensor& c),      \
    (g, a, b, c))                                                                                \
  X(void, im2col, (const Tensor& x, int k, Tensor& cols, const InputTransform& t),              \
    (x, k, cols, t))                                                                             \
  X(void, copy_rows, (const Tensor& x, int64_t start, Tensor& y), (x, start, y))                 \
  X(void, convert, (const Tensor& x, Tensor& y), (x, y))                                         \
  X(void, embedding, (const Tensor& table, const Tensor& ids, const Tensor* rows, Tensor& y),   \
    (table, ids, rows, y))                                                                       \
  X(void, affine_channels,                                                                       \
    (const Tensor& x, const Tensor* scale, const Tensor* shift, Tensor& y), (x, scale, shift, y)) \
  X(void, sigmoid_scaled, (const Tensor& x, float alpha, Tensor& y), (x, alpha, y))              \
  X(void, mul, (const Tensor& a, const Tensor& b, Tensor& y), (a, b, y))                         \
  X(void, add, (const Tensor& a, const Tensor& b, Tensor& y), (a, b, y))                         \
  X(void, activation, (const Tensor& x, Act act, Tensor& y), (x, act, y))                        \
  X(void, layernorm,                                                                             \
    (const Tensor& x, const Tensor& gamma, const Tensor& beta, float eps, Tensor& y),            \
    (x, gamma, beta, eps, y))                                                                    \
  X(void, add_layernorm,                                                                         \
    (const Tensor& x, const Tensor& residual, const Tensor& gamma, const Tensor& beta,           \
     float eps, Tensor& y),                                                                      \
    (x, residual, gamma, beta, eps, y))                                                          \
  X(void, normalize_rows,                                                                        \
    (const Tensor& x, const Tensor& mean, const Tensor& var, const Tensor& gamma,               \
     const Tensor& beta, float eps, Tensor& y),                                                  \
    (x, mean, var, gamma, beta, eps, y))                                                         \
  X(void, softmax_rows, (Tensor& x), (x))                                                        \
  X(void, softmax_axis1, (const Tensor& x, Tensor& y), (x, y))                                   \
  X(void, row_moments, (const Tensor& x, Tensor& mean, Tensor& var), (x, mean, var))             \
  X(void, sum_axis1, (const Tensor& x, const Tensor* weights, Tensor& y), (x, weights, y))       \
  X(void, masked_mean, (const Tensor& x, const Tensor& weights, Tensor& y), (x, weights, y))     \
  X(void, add_key_bias, (Tensor& logits, const Tensor& key_bias, int64_t heads),                \
    (logits, key_bias, heads))                                                                   \
  X(void, rel_shift_add, (Tensor& logits, const Tensor& rel), (logits, rel))                     \
  X(void, attention_fused,                                                                       \
    (const AttentionShape& s, const Tensor& q, const Tensor& k, const Tensor& v,                \
     const Tensor* key_bias, Tensor& out),                                                       \
    (s, q, k, v, key_bias, out))                                                                 \
  X(void, rel_attention_fused,                                                                   \
    (const RelAttentionShape& s, const Tensor& q, const Tensor& k, const Tensor& v,             \
     const Tensor& rel_k, const Tensor& content_bias, const Tensor& pos_bias, Tensor& out),     \
    (s, q, k, v, rel_k, content_bias, pos_bias, out))                                            \
  X(void, attention_pool,                                                                        \
    (const Tensor& x, const Tensor& logits, Tensor& y, const InputTransform& t),                \
    (x, logits, y, t))                                                                           \
  X(void, write, (std::span<const float> host, Tensor& t, bool blocking), (host, t, blocking))   \
  X(void, write_ids, (std::span<const int32_t> host, Tensor& t, bool blocking),                 \
    (host, t, blocking))                                                                         \
  X(void, fill, (Tensor& y, float value), (y, value))                                            \
  X(void, concat_last, (std::span<const Tensor* const> xs, Tensor& y), (xs, y))                  \
  X(void, slice_last, (const Tensor& x, int64_t start, Tensor& y), (x, start, y))                \
  X(void, gather_cols, (const Tensor& x, std::span<const int64_t> index, Tensor& y),            \
    (x, index, y))                                                                               \
  X(void, scatter_add_cols, (const Tensor& y, std::span<const int64_t> index, Tensor& x),       \
    (y, index, x))                                                                               \
  X(void, embedding_backward, (const Tensor& dy, const Tensor& ids, Tensor& dtable),            \
    (dy, ids, dtable))                                                                           \
  X(void, activation_backward, (const Tensor& x, const Tensor& dy, Act act, Tensor& dx),        \
    (x, dy, act, dx))                                                                            \
  X(void, layernorm_backward,                                                                    \
    (const Tensor& x, const Tensor& gamma, float eps, const Tensor& dy, Tensor& dx,             \
     Tensor& dgamma, Tensor& dbeta),                                                             \
    (x, gamma, eps, dy, dx, dgamma, dbeta))                                                      \
  X(void, softmax_rows_backward, (const Tensor& y, const Tensor& dy, Tensor& dx), (y, dy, dx))   \
  X(void, dropout, (const Tensor& x, const DropoutKey& key, Tensor& y), (x, key, y))             \
  X(void, activation_dropout, (const Tensor& x, Act act, const DropoutKey& key, Tensor& y),     \
    (x, act, key, y))                                                                            \
  X(void, dropout_activation_backward,                                                           \
    (const Tensor& x, const Tensor& dy, Act act, const DropoutKey& key, Tensor& dx),            \
    (x, dy, act, key, dx))                                                                       \
  X(void, bce_with_logits,                                                                       \
    (const Tensor& logits, const Tensor& targets, float scale, Tensor& loss, int64_t slot,      \
     Tensor& dlogits),                                                                           \
    (logits, targets, scale, loss, slot, dlogits))                                               \
  X(void, cross_entropy,                                                                         \
    (const Tensor& logits, const Tensor& labels, const Tensor* class_weights, float smoothing,   \
     float scale, Tensor& loss, int64_t slot, Tensor& dlogits),                                  \
    (logits, labels, class_weights, smoothing, scale, loss, slot, dlogits))                      \
  X(void, sum_squares, (const Tensor& x, Tensor& out, int64_t slot), (x, out, slot))             \
  X(void, adamw,                                                                                 \
    (Tensor& param, const Tensor& grad, Tensor& m, Tensor& v, const AdamWStep& s),              \
    (param, grad, m, v, s))

// The 3-D volume family (volume_ops.h).
#define SB_VOLUME_OPS(X)                                                                         \
  X(void, conv3d,                                                                                \
    (const Conv3dShape& s, const Tensor& x, const Tensor& w, const Tensor* bias, Tensor& y),    \
    (s, x, w, bias, y))                                                                          \
  X(void, conv3d_backward_data,                                                                  \
    (const Conv3dShape& s, const Tensor& dy, const Tensor& w, Tensor& dx), (s, dy, w, dx))       \
  X(void, conv3d_backward_weights,                                                               \
    (const Conv3dShape& s, const Tensor& x, const Tensor& dy, Tensor& dw, Tensor* dbias),       \
    (s, x, dy, dw, dbias))                                                                       \
  X(void, conv_transpose3d,                                                                      \
    (const Conv3dShape& s, const Tensor& x, const Tensor& w, const Tensor* bias, Tensor& y),    \
    (s, x, w, bias, y))                                                                          \
  X(void, conv_transpose3d_backward_data,                                                        \
    (const Conv3dShape& s, const Tensor& dy, const Tensor& w, Tensor& dx), (s, dy, w, dx))       \
  X(void, conv_transpose3d_backward_weights,                                                     \
    (const Conv3dShape& s, const Tensor& x, const Tensor& dy, Tensor& dw, Tensor* dbias),       \
    (s, x, dy, dw, dbias))                                                                       \
  X(void, instance_norm,                                                                         \
    (const Tensor& x, Layout3d layout, int64_t batch, int64_t channels, const Tensor& gamma,    \
     const Tensor& beta, float eps, Tensor& y, const NormEpilogue& ep),                          \
    (x, layout, batch, channels, gamma, beta, eps, y, ep))                                       \
  X(void, instance_norm_backward,                                                                \
    (const Tensor& x, Layout3d layout, int64_t batch, int64_t channels, const Tensor& gamma,    \
     float eps, const Tensor& dy, Tensor& dx, Tensor& dgamma, Tensor& dbeta),                    \
    (x, layout, batch, channels, gamma, eps, dy, dx, dgamma, dbeta))                             \
  X(void, concat_axis1,                                                                          \
    (std::span<const Tensor* const> xs, int64_t outer, int64_t inner, Tensor& y),               \
    (xs, outer, inner, y))                                                                       \
  X(void, slice_axis1,                                                                           \
    (const Tensor& x, int64_t outer, int64_t inner, int64_t start, Tensor& y),                  \
    (x, outer, inner, start, y))                                                                 \
  X(void, soft_dice_loss,                                                                        \
    (const Tensor& logits, const Tensor& targets, Layout3d layout, int64_t batch,               \
     int64_t channels, float smooth, float scale, Tensor& loss, int64_t slot, Tensor& dlogits),  \
    (logits, targets, layout, batch, channels, smooth, scale, loss, slot, dlogits))

// Every op a backend implements.
#define SB_BACKEND_OPS(X) SB_CORE_OPS(X) SB_VOLUME_OPS(X)
// clang-format on

// The declarations the lists expand to: the op layer's pure virtuals, and a backend's overrides
// (ARGS unused: only forwarding backends need them).
#define SB_DECLARE_PURE_VIRTUAL(RET, OP, PARAMS, ARGS) virtual RET do_##OP PARAMS = 0;
#define SB_DECLARE_OVERRIDE(RET, OP, PARAMS, ARGS) RET do_##OP PARAMS override;
