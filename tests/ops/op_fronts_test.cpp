// The op fronts' validation (backend.h's policy): a bad call throws std::invalid_argument
// "<op>: ..." with the same message on every backend, and a call with nothing to write does
// nothing anywhere.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <stdexcept>

#include "tests/ops/bad_call.h"
#include "tests/ops/reference.h"
#include "tests/ops/test_backends.h"

namespace sb::testing {
namespace {

AttentionShape packed_shape() {
  AttentionShape s;
  s.batch = 1, s.n = 4, s.heads = 2, s.dh = 3;
  s.ld_q = s.ld_k = s.ld_v = s.ld_out = 6;
  return s;
}

std::vector<BadCall> bad_calls() {
  std::vector<BadCall> c;
  auto add = [&](std::string name, Op op, std::string says, std::function<void(Backend&)> f) {
    c.push_back({std::move(name), op, std::move(says), std::move(f)});
  };
  add("empty_negative_dimension", Op::empty, "negative", [](Backend& be) { be.empty({2, -1}); });
  add("upload_count", Op::upload, "5 values for shape [2,3]", [](Backend& be) {
    be.upload(Vec(5), {2, 3});
  });
  add("upload_ids_count", Op::upload_ids, "6 ids for shape [4,2]", [](Backend& be) {
    be.upload_ids(std::vector<int32_t>(6), {4, 2});
  });
  add("download_i32", Op::download, "must be f32",
      [](Backend& be) { be.download(be.upload_ids(std::vector<int32_t>(3), {3})); });
  add("prepare_weight_count", Op::prepare_weight, "6 values for a [4, 3] weight",
      [](Backend& be) { be.prepare_weight(Vec(6), 4, 3, Precision::f32); });
  add("linear_mismatched_k", Op::linear, "is not a multiple of K = 6", [](Backend& be) {
    const Weight w = be.prepare_weight(Vec(18), 3, 6, Precision::f32);
    Tensor y = zeros(be, {4, 3});
    be.linear(zeros(be, {4, 5}), w, y);
  });
  add("linear_output_is_input", Op::linear, "must not be the input", [](Backend& be) {
    const Weight w = be.prepare_weight(Vec(9), 3, 3, Precision::f32);
    Tensor x = zeros(be, {4, 3});
    be.linear(x, w, x);
  });
  add("gemm_batched_item_outside_c", Op::gemm_batched, "item 0 runs outside C [4]",
      [](Backend& be) {
        GemmBatch g;
        g.m = g.n = g.k = 2, g.lda = g.ldb = g.ldc = 2;
        g.a_offsets = {0}, g.b_offsets = {0}, g.c_offsets = {3};
        Tensor a = zeros(be, {4}), b = zeros(be, {4}), c = zeros(be, {4});
        be.gemm_batched(g, a, b, c);
      });
  add("im2col_zero_width", Op::im2col, "k = 0", [](Backend& be) {
    Tensor cols = zeros(be, {2, 3});
    be.im2col(zeros(be, {1, 2, 3}), 0, cols);
  });
  add("conv1d_even_width", Op::conv1d, "k = 4 must be odd", [](Backend& be) {
    Tensor y = zeros(be, {1, 2, 2});
    be.conv1d(zeros(be, {1, 2, 3}), 4, be.prepare_weight(Vec(2 * 12, 0.f), 2, 12, Precision::f32),
              y);
  });
  add("conv1d_weight_not_k_by_channels", Op::conv1d, "the weight's K = 12 is not k x C = 5 x 3",
      [](Backend& be) {
        Tensor y = zeros(be, {1, 2, 2});
        be.conv1d(zeros(be, {1, 2, 3}), 5,
                  be.prepare_weight(Vec(2 * 12, 0.f), 2, 12, Precision::f32), y);
      });
  add("copy_rows_past_the_end", Op::copy_rows, "rows [5, 10)", [](Backend& be) {
    Tensor y = zeros(be, {2, 5, 4});
    be.copy_rows(zeros(be, {2, 9, 4}), 5, y);
  });
  add("convert_to_another_size", Op::convert, "is not the input's size", [](Backend& be) {
    Tensor y = zeros(be, {2, 5});
    be.convert(zeros(be, {2, 4}), y);
  });
  add("embedding_id_too_large", Op::embedding,
      "id 11 at position 6 (item 1, token 2) is outside the table's 11 rows", [](Backend& be) {
        Tensor y = zeros(be, {2, 4, 3});
        be.embedding(zeros(be, {11, 3}), ids(be, {0, 1, 2, 3, 4, 5, 11, 6}, {2, 4}), nullptr, y);
      });
  add("embedding_id_negative", Op::embedding, "id -1 at position 1", [](Backend& be) {
    Tensor y = zeros(be, {1, 3, 3});
    be.embedding(zeros(be, {11, 3}), ids(be, {0, -1, 2}, {1, 3}), nullptr, y);
  });
  add("embedding_ids_not_uploaded", Op::embedding, "were not made by upload_ids", [](Backend& be) {
    Tensor y = zeros(be, {1, 3, 3});
    be.embedding(zeros(be, {11, 3}), be.empty({1, 3}, DType::i32), nullptr, y);
  });
  add("embedding_float_ids", Op::embedding, "ids [1,3] must be i32, got f32", [](Backend& be) {
    Tensor y = zeros(be, {1, 3, 3});
    be.embedding(zeros(be, {11, 3}), zeros(be, {1, 3}), nullptr, y);
  });
  add("embedding_short_rows", Op::embedding, "do not cover 3 positions", [](Backend& be) {
    Tensor y = zeros(be, {1, 3, 3});
    const Tensor rows = zeros(be, {2, 3});
    be.embedding(zeros(be, {11, 3}), ids(be, {0, 1, 2}, {1, 3}), &rows, y);
  });
  add("affine_channels_short_scale", Op::affine_channels, "scale [2] is not [C]", [](Backend& be) {
    Tensor y = zeros(be, {4, 3});
    const Tensor s = zeros(be, {2});
    be.affine_channels(zeros(be, {4, 3}), &s, nullptr, y);
  });
  add("sigmoid_scaled_output_size", Op::sigmoid_scaled, "output [5]", [](Backend& be) {
    Tensor y = zeros(be, {5});
    be.sigmoid_scaled(zeros(be, {4}), 1.f, y);
  });
  add("mul_sizes_differ", Op::mul, "b [3]", [](Backend& be) {
    Tensor y = zeros(be, {4});
    be.mul(zeros(be, {4}), zeros(be, {3}), y);
  });
  add("add_sizes_differ", Op::add, "output [3]", [](Backend& be) {
    Tensor y = zeros(be, {3});
    be.add(zeros(be, {4}), zeros(be, {4}), y);
  });
  add("activation_output_size", Op::activation, "output [5]", [](Backend& be) {
    Tensor y = zeros(be, {5});
    be.activation(zeros(be, {4}), Act::relu, y);
  });
  add("layernorm_short_gamma", Op::layernorm, "gamma [4] is not [C]", [](Backend& be) {
    Tensor y = zeros(be, {2, 5});
    be.layernorm(zeros(be, {2, 5}), zeros(be, {4}), zeros(be, {5}), 1e-5f, y);
  });
  add("layernorm_negative_eps", Op::layernorm, "eps", [](Backend& be) {
    Tensor y = zeros(be, {2, 5});
    be.layernorm(zeros(be, {2, 5}), zeros(be, {5}), zeros(be, {5}), -1.f, y);
  });
  add("add_layernorm_short_residual", Op::add_layernorm, "residual [9]", [](Backend& be) {
    Tensor y = zeros(be, {2, 5});
    be.add_layernorm(zeros(be, {2, 5}), zeros(be, {9}), zeros(be, {5}), zeros(be, {5}), 1e-5f, y);
  });
  add("normalize_rows_short_mean", Op::normalize_rows, "mean [3] is not [rows]", [](Backend& be) {
    Tensor y = zeros(be, {2, 2, 5});
    be.normalize_rows(zeros(be, {2, 2, 5}), zeros(be, {3}), zeros(be, {4}), zeros(be, {5}),
                      zeros(be, {5}), 1e-5f, y);
  });
  add("softmax_rows_scalar", Op::softmax_rows, "has no last dimension", [](Backend& be) {
    Tensor x = zeros(be, {});
    be.softmax_rows(x);
  });
  add("softmax_axis1_rank_2", Op::softmax_axis1, "is not [outer, n, inner]", [](Backend& be) {
    Tensor y = zeros(be, {4, 2});
    be.softmax_axis1(zeros(be, {4, 2}), y);
  });
  add("row_moments_mean_is_var", Op::row_moments, "must not be the mean", [](Backend& be) {
    Tensor m = zeros(be, {2});
    be.row_moments(zeros(be, {2, 5}), m, m);
  });
  add("row_moments_empty_rows", Op::row_moments, "are empty", [](Backend& be) {
    Tensor m = zeros(be, {3}), v = zeros(be, {3});
    be.row_moments(zeros(be, {3, 0}), m, v);
  });
  add("sum_axis1_output_is_input", Op::sum_axis1, "must not be the input", [](Backend& be) {
    Tensor x = zeros(be, {2, 1, 3});
    Tensor y = x.reshaped({2, 3});
    be.sum_axis1(x, nullptr, y);
  });
  add("masked_mean_short_weights", Op::masked_mean, "weights [2,4] is not [B, S]", [](Backend& be) {
    Tensor y = zeros(be, {2, 3});
    be.masked_mean(zeros(be, {2, 5, 3}), zeros(be, {2, 4}), y);
  });
  add("add_key_bias_heads", Op::add_key_bias, "for heads = 4", [](Backend& be) {
    Tensor logits = zeros(be, {6, 5, 5});
    be.add_key_bias(logits, zeros(be, {2, 5}), 4);
  });
  add("rel_shift_add_rel_shape", Op::rel_shift_add, "rel [3,6,10]", [](Backend& be) {
    Tensor logits = zeros(be, {3, 6, 6});
    be.rel_shift_add(logits, zeros(be, {3, 6, 10}));
  });
  add("attention_fused_k_past_ld", Op::attention_fused, "k columns [1, 7)", [](Backend& be) {
    AttentionShape s = packed_shape();
    s.k_col = 1;
    Tensor t = zeros(be, {1, 4, 6}), out = zeros(be, {1, 4, 6});
    be.attention_fused(s, t, t, t, nullptr, out);
  });
  add("attention_fused_short_key_bias", Op::attention_fused, "key_bias [1,3] is not [B, n]",
      [](Backend& be) {
        Tensor t = zeros(be, {1, 4, 6}), out = zeros(be, {1, 4, 6});
        const Tensor bias = zeros(be, {1, 3});
        be.attention_fused(packed_shape(), t, t, t, &bias, out);
      });
  add("attention_fused_out_is_q", Op::attention_fused, "out must not be q", [](Backend& be) {
    Tensor t = zeros(be, {1, 4, 6});
    be.attention_fused(packed_shape(), t, zeros(be, {1, 4, 6}), zeros(be, {1, 4, 6}), nullptr, t);
  });
  add("rel_attention_fused_rel_k", Op::rel_attention_fused, "rel_k [5,4] is not [2n-1, H*dk]",
      [](Backend& be) {
        const RelAttentionShape s{1, 4, 1, 4, 2};
        Tensor out = zeros(be, {1, 4, 2});
        be.rel_attention_fused(s, zeros(be, {1, 4, 4}), zeros(be, {1, 4, 4}), zeros(be, {1, 4, 2}),
                               zeros(be, {5, 4}), zeros(be, {4}), zeros(be, {4}), out);
      });
  add("attention_pool_odd_length", Op::attention_pool, "odd length", [](Backend& be) {
    Tensor y = zeros(be, {1, 2, 3});
    be.attention_pool(zeros(be, {1, 5, 3}), zeros(be, {1, 5, 3}), y);
  });
  add("gemm_batched_trans_a_short_lda", Op::gemm_batched, "lda 3", [](Backend& be) {
    GemmBatch g;
    g.m = 4, g.n = 2, g.k = 2, g.trans_a = true, g.lda = 3, g.ldb = g.ldc = 4;
    g.a_offsets = g.b_offsets = g.c_offsets = {0};
    Tensor a = zeros(be, {16}), b = zeros(be, {16}), c = zeros(be, {16});
    be.gemm_batched(g, a, b, c);
  });
  add("gemm_batched_int8", Op::gemm_batched, "int8 has no batched GEMM", [](Backend& be) {
    GemmBatch g;
    g.m = g.n = g.k = 2, g.lda = g.ldb = g.ldc = 2, g.precision = Precision::int8;
    g.a_offsets = g.b_offsets = g.c_offsets = {0};
    Tensor a = zeros(be, {4}), b = zeros(be, {4}), c = zeros(be, {4});
    be.gemm_batched(g, a, b, c);
  });
  add("activation_unknown", Op::activation, "unknown activation 9", [](Backend& be) {
    Tensor y = zeros(be, {4});
    be.activation(zeros(be, {4}), static_cast<Act>(9), y);
  });
  add("write_count", Op::write, "5 values for tensor [2,3]", [](Backend& be) {
    Tensor t = zeros(be, {2, 3});
    be.write(Vec(5), t);
  });
  add("write_ids_into_f32", Op::write_ids, "ids [3] must be i32, got f32", [](Backend& be) {
    Tensor t = zeros(be, {3});
    be.write_ids(std::vector<int32_t>(3), t);
  });
  add("fill_i32", Op::fill, "output [2] must be f32", [](Backend& be) {
    Tensor t = be.empty({2}, DType::i32);
    be.fill(t, 1.f);
  });
  add("concat_last_width", Op::concat_last, "output [2,6] is not 5 columns wide", [](Backend& be) {
    const Tensor a = zeros(be, {2, 2}), b = zeros(be, {2, 3});
    const Tensor* xs[] = {&a, &b};
    Tensor y = zeros(be, {2, 6});
    be.concat_last(xs, y);
  });
  add("concat_last_rows", Op::concat_last, "input 1 [3,3] does not have the 2 rows",
      [](Backend& be) {
        const Tensor a = zeros(be, {2, 2}), b = zeros(be, {3, 3});
        const Tensor* xs[] = {&a, &b};
        Tensor y = zeros(be, {2, 5});
        be.concat_last(xs, y);
      });
  add("concat_last_output_is_input", Op::concat_last, "must not be input 0", [](Backend& be) {
    Tensor a = zeros(be, {2, 2});
    const Tensor* xs[] = {&a};
    be.concat_last(xs, a);
  });
  add("slice_last_past_the_end", Op::slice_last, "columns [3, 6) are outside input [2,5]",
      [](Backend& be) {
        Tensor y = zeros(be, {2, 3});
        be.slice_last(zeros(be, {2, 5}), 3, y);
      });
  add("gather_cols_bad_index", Op::gather_cols, "index 5 at position 1 is outside the 5 columns",
      [](Backend& be) {
        Tensor y = zeros(be, {2, 2});
        const std::vector<int64_t> index{0, 5};
        be.gather_cols(zeros(be, {2, 5}), index, y);
      });
  add("scatter_add_cols_negative_index", Op::scatter_add_cols, "index -1 at position 0",
      [](Backend& be) {
        Tensor x = zeros(be, {2, 5});
        const std::vector<int64_t> index{-1};
        be.scatter_add_cols(zeros(be, {2, 1}), index, x);
      });
  add("scatter_add_cols_count", Op::scatter_add_cols, "input [2,2] is not 1 columns wide",
      [](Backend& be) {
        Tensor x = zeros(be, {2, 5});
        const std::vector<int64_t> index{1};
        be.scatter_add_cols(zeros(be, {2, 2}), index, x);
      });
  add("embedding_backward_id_too_large", Op::embedding_backward,
      "id 4 at position 2 (item 0, token 2) is outside the table's 4 rows", [](Backend& be) {
        Tensor dtable = zeros(be, {4, 3});
        be.embedding_backward(zeros(be, {1, 3, 3}), ids(be, {0, 1, 4}, {1, 3}), dtable);
      });
  add("embedding_backward_dy_shape", Op::embedding_backward, "dy [1,3,2] is not [B, S, D]",
      [](Backend& be) {
        Tensor dtable = zeros(be, {4, 3});
        be.embedding_backward(zeros(be, {1, 3, 2}), ids(be, {0, 1, 2}, {1, 3}), dtable);
      });
  add("activation_backward_dx_is_x", Op::activation_backward, "dx must not be the input",
      [](Backend& be) {
        Tensor x = zeros(be, {4});
        be.activation_backward(x, zeros(be, {4}), Act::relu, x);
      });
  add("layernorm_backward_short_dgamma", Op::layernorm_backward, "dgamma [4] is not [C]",
      [](Backend& be) {
        Tensor dx = zeros(be, {2, 5}), dg = zeros(be, {4}), db = zeros(be, {5});
        be.layernorm_backward(zeros(be, {2, 5}), zeros(be, {5}), 1e-5f, zeros(be, {2, 5}), dx, dg,
                              db);
      });
  add("layernorm_backward_dgamma_is_dbeta", Op::layernorm_backward, "dbeta must not be dgamma",
      [](Backend& be) {
        Tensor dx = zeros(be, {2, 5}), dg = zeros(be, {5});
        be.layernorm_backward(zeros(be, {2, 5}), zeros(be, {5}), 1e-5f, zeros(be, {2, 5}), dx, dg,
                              dg);
      });
  add("softmax_rows_backward_dx_size", Op::softmax_rows_backward, "dx [7] is not y's size",
      [](Backend& be) {
        Tensor dx = zeros(be, {7});
        be.softmax_rows_backward(zeros(be, {2, 3}), zeros(be, {2, 3}), dx);
      });
  add("dropout_p_one", Op::dropout, "p = 1.000000 is outside [0, 1)", [](Backend& be) {
    Tensor y = zeros(be, {4});
    be.dropout(zeros(be, {4}), DropoutKey{1.f, 0, 0}, y);
  });
  add("dropout_p_negative", Op::dropout, "is outside [0, 1)", [](Backend& be) {
    Tensor y = zeros(be, {4});
    be.dropout(zeros(be, {4}), DropoutKey{-0.1f, 0, 0}, y);
  });
  add("activation_dropout_p_one", Op::activation_dropout, "p = 1.000000 is outside [0, 1)",
      [](Backend& be) {
        Tensor y = zeros(be, {4});
        be.activation_dropout(zeros(be, {4}), Act::relu, DropoutKey{1.f, 0, 0}, y);
      });
  add("dropout_activation_backward_dx_is_x", Op::dropout_activation_backward,
      "dx must not be the input", [](Backend& be) {
        Tensor x = zeros(be, {4});
        be.dropout_activation_backward(x, zeros(be, {4}), Act::relu, DropoutKey{0.1f, 0, 0}, x);
      });
  add("bce_with_logits_slot", Op::bce_with_logits, "slot 2 is outside loss [2]", [](Backend& be) {
    Tensor loss = zeros(be, {2}), d = zeros(be, {2, 3});
    be.bce_with_logits(zeros(be, {2, 3}), zeros(be, {2, 3}), 1.f, loss, 2, d);
  });
  add("bce_with_logits_dlogits_is_logits", Op::bce_with_logits, "dlogits must not be the logits",
      [](Backend& be) {
        Tensor loss = zeros(be, {1}), z = zeros(be, {2, 3});
        be.bce_with_logits(z, zeros(be, {2, 3}), 1.f, loss, 0, z);
      });
  add("bce_with_logits_empty", Op::bce_with_logits, "are empty", [](Backend& be) {
    Tensor loss = zeros(be, {1}), d = zeros(be, {0, 3});
    be.bce_with_logits(zeros(be, {0, 3}), zeros(be, {0, 3}), 1.f, loss, 0, d);
  });
  add("cross_entropy_label_too_large", Op::cross_entropy,
      "label 4 at row 2 is outside the 4 classes", [](Backend& be) {
        Tensor loss = zeros(be, {1}), d = zeros(be, {3, 4});
        be.cross_entropy(zeros(be, {3, 4}), ids(be, {0, 3, 4}, {3}), nullptr, 0.f, 1.f, loss, 0, d);
      });
  add("cross_entropy_label_negative", Op::cross_entropy, "label -1 at row 0", [](Backend& be) {
    Tensor loss = zeros(be, {1}), d = zeros(be, {3, 4});
    be.cross_entropy(zeros(be, {3, 4}), ids(be, {-1, 3, 0}, {3}), nullptr, 0.f, 1.f, loss, 0, d);
  });
  add("cross_entropy_labels_unknown_range", Op::cross_entropy, "were not made by upload_ids",
      [](Backend& be) {
        Tensor loss = zeros(be, {1}), d = zeros(be, {3, 4});
        be.cross_entropy(zeros(be, {3, 4}), be.empty({3}, DType::i32), nullptr, 0.f, 1.f, loss, 0,
                         d);
      });
  add("cross_entropy_smoothing", Op::cross_entropy, "smoothing = 1.000000 is outside [0, 1)",
      [](Backend& be) {
        Tensor loss = zeros(be, {1}), d = zeros(be, {3, 4});
        be.cross_entropy(zeros(be, {3, 4}), ids(be, {0, 1, 2}, {3}), nullptr, 1.f, 1.f, loss, 0, d);
      });
  add("cross_entropy_short_weights", Op::cross_entropy, "class_weights [3] is not [C]",
      [](Backend& be) {
        Tensor loss = zeros(be, {1}), d = zeros(be, {3, 4});
        const Tensor w = zeros(be, {3});
        be.cross_entropy(zeros(be, {3, 4}), ids(be, {0, 1, 2}, {3}), &w, 0.f, 1.f, loss, 0, d);
      });
  add("cross_entropy_label_count", Op::cross_entropy, "labels [2] is not [R] = [3]",
      [](Backend& be) {
        Tensor loss = zeros(be, {1}), d = zeros(be, {3, 4});
        be.cross_entropy(zeros(be, {3, 4}), ids(be, {0, 1}, {2}), nullptr, 0.f, 1.f, loss, 0, d);
      });
  add("sum_squares_slot", Op::sum_squares, "slot -1 is outside out [2]", [](Backend& be) {
    Tensor out = zeros(be, {2});
    be.sum_squares(zeros(be, {5}), out, -1);
  });
  add("adamw_m_is_v", Op::adamw, "v must not be m", [](Backend& be) {
    Tensor p = zeros(be, {4}), m = zeros(be, {4});
    be.adamw(p, zeros(be, {4}), m, m, AdamWStep{});
  });
  add("adamw_step_0", Op::adamw, "step 0 must be >= 1", [](Backend& be) {
    Tensor p = zeros(be, {4}), m = zeros(be, {4}), v = zeros(be, {4});
    AdamWStep s;
    s.step = 0;
    be.adamw(p, zeros(be, {4}), m, v, s);
  });
  add("adamw_grad_size", Op::adamw, "grad [3] is not param's size", [](Backend& be) {
    Tensor p = zeros(be, {4}), m = zeros(be, {4}), v = zeros(be, {4});
    be.adamw(p, zeros(be, {3}), m, v, AdamWStep{});
  });
  add_volume_bad_calls(c);
  return c;
}

class OpFronts : public ::testing::TestWithParam<BadCall> {};

TEST_P(OpFronts, RejectWithOneMessageOnEveryBackend) {
  const BadCall& bad = GetParam();
  std::map<std::string, std::string> said;
  for (const std::string& name : backend_names()) {
    Backend* be = test_backend(name, nullptr);
    if (be == nullptr) continue;
    try {
      bad.call(*be);
      ADD_FAILURE() << name << " accepted the call";
    } catch (const std::invalid_argument& e) {
      said[name] = e.what();
    }
  }
  const std::string prefix = std::string(op_name(bad.op)) + ": ";
  for (const auto& [name, message] : said) {
    EXPECT_EQ(message.rfind(prefix, 0), 0u) << name << ": " << message;
    EXPECT_NE(message.find(bad.says), std::string::npos) << name << ": " << message;
    EXPECT_EQ(message, said.begin()->second) << name << " and " << said.begin()->first << " differ";
  }
}

INSTANTIATE_TEST_SUITE_P(BadCalls, OpFronts, ::testing::ValuesIn(bad_calls()),
                         [](const ::testing::TestParamInfo<BadCall>& info) {
                           return info.param.name;
                         });

// A call with nothing to write returns without touching a kernel, on every backend.
class EmptyCalls : public ::testing::TestWithParam<std::string> {};

TEST_P(EmptyCalls, DoNothing) {
  std::string why;
  Backend* be = test_backend(GetParam(), &why);
  if (be == nullptr) GTEST_SKIP() << why;
  Tensor none = be->empty({0, 5}), rows = be->empty({5});
  Tensor sentinel = be->upload(Vec(5, 7.f), {5});
  be->add(none, none, none);
  be->layernorm(none, rows, rows, 1e-5f, none);
  be->softmax_rows(none);
  const Weight w = be->prepare_weight(Vec(25), 5, 5, Precision::f32);
  Tensor no_rows = be->empty({0, 5});
  be->linear(none, w, no_rows);
  Tensor no_tokens = be->empty({0, 3, 5});
  be->embedding(be->upload(Vec(15), {3, 5}), ids(*be, {}, {0, 3}), nullptr, no_tokens);
  GemmBatch g;
  g.m = 0, g.n = g.k = 4, g.lda = g.ldb = g.ldc = 4;
  g.a_offsets = g.b_offsets = g.c_offsets = {0};
  be->gemm_batched(g, be->empty({16}), be->empty({16}), sentinel);
  AttentionShape s = packed_shape();
  s.n = 0;
  Tensor q = be->empty({1, 0, 6}), out = be->empty({1, 0, 6});
  be->attention_fused(s, q, q, q, nullptr, out);
  // The training ops with nothing to write.
  be->fill(none, 1.f);
  be->write(Vec{}, none);
  be->dropout(none, DropoutKey{0.5f, 1, 2}, none);
  be->activation_dropout(none, Act::relu, DropoutKey{0.5f, 1, 2}, none);
  Tensor none_dx = be->empty({0, 5});
  be->activation_backward(none, none, Act::gelu_erf, none_dx);
  be->dropout_activation_backward(none, none, Act::gelu_erf, DropoutKey{0.5f, 1, 2}, none_dx);
  be->softmax_rows_backward(none, none, none_dx);
  Tensor no_columns = be->empty({1, 0});
  be->slice_last(sentinel.reshaped({1, 5}), 5, no_columns);
  Tensor param = be->empty({0}), grad = be->empty({0}), m = be->empty({0}), v = be->empty({0});
  be->adamw(param, grad, m, v, AdamWStep{});
  EXPECT_EQ(be->download(sentinel), Vec(5, 7.f));
}

// Without rows, layernorm_backward's parameter gradients are empty sums: the front fills them
// with 0 itself (through fill), and the backend's kernel never runs.
TEST_P(EmptyCalls, LayerNormBackwardWithoutRowsZeroesParameterGradients) {
  std::string why;
  Backend* be = test_backend(GetParam(), &why);
  if (be == nullptr) GTEST_SKIP() << why;
  Tensor x = be->empty({0, 4}), dx = be->empty({0, 4});
  Tensor dg = be->upload(Vec(4, 9.f), {4}), db = be->upload(Vec(4, 9.f), {4});
  be->layernorm_backward(x, be->upload(Vec(4, 1.f), {4}), 1e-5f, x, dx, dg, db);
  EXPECT_EQ(be->download(dg), Vec(4, 0.f));
  EXPECT_EQ(be->download(db), Vec(4, 0.f));
}

// A sum of squares over nothing is 0, written like any other.
TEST_P(EmptyCalls, SumSquaresOfNothingIsZero) {
  std::string why;
  Backend* be = test_backend(GetParam(), &why);
  if (be == nullptr) GTEST_SKIP() << why;
  Tensor out = be->upload(Vec(2, 9.f), {2});
  be->sum_squares(be->empty({0}), out, 1);
  EXPECT_EQ(be->download(out), (Vec{9.f, 0.f}));
}

INSTANTIATE_TEST_SUITE_P(Backends, EmptyCalls, ::testing::ValuesIn(backend_names()));

}  // namespace
}  // namespace sb::testing
