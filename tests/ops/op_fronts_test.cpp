// The op fronts' validation (backend.h's policy): a bad call throws std::invalid_argument
// "<op>: ..." with the same message on every backend, and a call with nothing to write does
// nothing anywhere.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <stdexcept>

#include "tests/ops/reference.h"
#include "tests/ops/test_backends.h"

namespace sb::testing {
namespace {

struct BadCall {
  std::string name;
  Op op;
  std::string says;  // a part of the message
  std::function<void(Backend&)> call;
};

void PrintTo(const BadCall& bad, std::ostream* os) {
  *os << bad.name;
}

Tensor zeros(Backend& be, std::vector<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return be.upload(Vec(static_cast<size_t>(n), 0.f), std::move(shape));
}

Tensor ids(Backend& be, std::vector<int32_t> values, std::vector<int64_t> shape) {
  return be.upload_ids(values, std::move(shape));
}

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
        GemmBatch g{2, 2, 2, true, 1.f, 2, 2, 2, {0}, {0}, {3}};
        Tensor a = zeros(be, {4}), b = zeros(be, {4}), c = zeros(be, {4});
        be.gemm_batched(g, a, b, c);
      });
  add("im2col_zero_width", Op::im2col, "k = 0", [](Backend& be) {
    Tensor cols = zeros(be, {2, 3});
    be.im2col(zeros(be, {1, 2, 3}), 0, cols);
  });
  add("copy_rows_past_the_end", Op::copy_rows, "rows [5, 10)", [](Backend& be) {
    Tensor y = zeros(be, {2, 5, 4});
    be.copy_rows(zeros(be, {2, 9, 4}), 5, y);
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
  GemmBatch g{0, 4, 4, true, 1.f, 4, 4, 4, {0}, {0}, {0}};
  be->gemm_batched(g, be->empty({16}), be->empty({16}), sentinel);
  AttentionShape s = packed_shape();
  s.n = 0;
  Tensor q = be->empty({1, 0, 6}), out = be->empty({1, 0, 6});
  be->attention_fused(s, q, q, q, nullptr, out);
  EXPECT_EQ(be->download(sentinel), Vec(5, 7.f));
}

INSTANTIATE_TEST_SUITE_P(Backends, EmptyCalls, ::testing::ValuesIn(backend_names()));

}  // namespace
}  // namespace sb::testing
